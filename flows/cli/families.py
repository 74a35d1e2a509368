"""`babelflow families`: the installed benchmark families, their ids, hooks and runtimes."""

from __future__ import annotations

from rich.table import Table

from flows.cli.common import cli_errors, console
from source_benchmarks.registry import ENTRY_POINT_GROUP, families


@cli_errors
def families_command() -> None:
    """List the benchmark families found through the entry-point group `babelflow.families`.

    A family from another package appears here once that package is installed; a family whose
    runtime is missing (e.g. τ³ without its environment) is listed with the command that installs it."""
    table = Table(title=f"benchmark families ({ENTRY_POINT_GROUP})")
    for column in ("family", "benchmarks", "hooks", "runtime"):
        table.add_column(column, overflow="fold")
    for name, family in families().items():
        ids = family.benchmark_ids()
        missing = family.unavailable(ids[0]) if ids else None
        runtime = "ready" if missing is None else f"[yellow]not installed[/]: {family.install_hint() or missing}"
        languages = dict.fromkeys(family.source_language_of(i) for i in ids) or [family.source_language]
        hooks = ", ".join((f"source {'/'.join(languages)}", *family.hooks()))
        table.add_row(f"[bold]{name}[/]\n{family.description}", "\n".join(ids), hooks, runtime)
    console.print(table)
