"""The `babelflow` command line. Every command exits 0 on success, 1 on findings, 2 on bad input."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import typer
from rich.table import Table

from babelflow.atomic_io import dump_json_bytes, write_bytes_atomic, write_text_atomic
from babelflow.ir import ir_json_schema, save_ir
from babelflow.output_guard import check_file_out
from babelflow.run_lock import one_at_a_time
from babelflow.settings import BabelflowSettings
from flows.cli.common import (
    cli_errors,
    console,
)
from flows.cli.common import out as report
from flows.cli.options import BENCHMARK, DOMAIN_PACKAGE, SOURCE_DIR
from source_benchmarks import get_benchmark
from source_benchmarks.registry import resolve_benchmark

# Every command imports its engine inside its body: this module is what `babelflow --help` loads, and each
# noqa below names what the import would add to it (measured on top of `import flows.cli.app`).

app = typer.Typer(
    name="babelflow",
    help="Adapt an executable LLM-agent benchmark (τ², τ³, AgentDojo, VitaBench; `families` lists them) into"
    " another language without breaking it.",
    no_args_is_help=True,
    add_completion=False,
)


@app.command()
@cli_errors
def analyze(
    benchmark: str = BENCHMARK.info,
    out: Path = typer.Option(..., "--out", "-o", help="Where to write the IR (JSON)."),
    source_dir: Path | None = SOURCE_DIR.info,
    profile: Path | None = typer.Option(None, "--profile", help="Analysis profile (TOML); default: the packaged one."),
    no_profile: bool = typer.Option(
        False, "--no-profile", help="Type from runtime evidence, structure and shape alone (no reviewed profile)."
    ),
    starter_profile: Path | None = typer.Option(
        None, "--starter-profile", help="Also write a profile drafted from the evidence (TOML) here, for review."
    ),
    domain_package: str | None = DOMAIN_PACKAGE.info,
    reanalyze: bool = typer.Option(
        False,
        "--reanalyze",
        help="Analyse again even when the saved IR (state folder) was made from the same files, harness and profile.",
    ),
) -> None:
    """Trace every text field the benchmark reads at run time and type it
    (Preserve / Translate-Free / Translate-Canonical).

    The IR is also kept in the state folder, where `flow` and `adapt` read it: a rerun with nothing
    changed (same analyzer, source files, harness and profile) reuses it instead of replaying the benchmark."""
    benchmark = resolve_benchmark(benchmark, domain_package)
    from analyzers.analyze import analyze_benchmark  # noqa: PLC0415 - +1.6 s on --help
    from flows.components import analysis_lock, analyze_or_reuse  # noqa: PLC0415 - +1.8 s on --help
    from translators.rebuild import source_folders  # noqa: PLC0415 - +0.15 s on --help

    bench = get_benchmark(benchmark, source_dir=source_dir)
    sources, _ = source_folders(bench)
    check_file_out(out, sources)
    if starter_profile is not None:
        check_file_out(starter_profile, sources, "--starter-profile")
    from flows.pipeline.progress_views import terminal_progress  # noqa: PLC0415 - +50 ms on --help

    def progress(message: str) -> None:
        console.print(f"[cyan]{message}", highlight=False)

    with terminal_progress(console):
        if no_profile:  # a typing without reviewed rules is a one-off look, never what `flow` should reuse
            document = analyze_benchmark(bench, None, progress=progress, use_profile=False)
            save_ir(document, out)
        else:
            ir_path = BabelflowSettings().layout.ir(benchmark)
            document = analyze_or_reuse(bench, profile, ir_path, progress, reuse=not reanalyze)
            with one_at_a_time(analysis_lock(ir_path)):  # the saved bytes: serialising 60k elements again costs ~10 s
                write_bytes_atomic(out, ir_path.read_bytes())
    counts = Counter(e.translation_type.value for e in document.elements)
    table = Table(title=f"{benchmark}: {len(document.elements)} text fields, {len(document.link_groups)} link groups")
    table.add_column("type")
    table.add_column("fields", justify="right")
    for name, count in sorted(counts.items()):
        table.add_row(name, str(count))
    report.print(table)
    from analyzers.evidence_report import evidence_summary  # noqa: PLC0415 - +11 ms on --help

    for line in evidence_summary(document):
        report.print(line, highlight=False)
    if starter_profile is not None:
        from analyzers.starter_profile import starter_profile as draft  # noqa: PLC0415 - +1.6 s on --help

        write_text_atomic(starter_profile, draft(document, bench))
        report.print(f"starter profile written to [bold]{starter_profile}[/] (review it, then pass it with --profile)")
    report.print(f"IR written to [bold]{out}[/]")


@app.command()
@cli_errors
def replay(
    benchmark: str = BENCHMARK.info,
    source_dir: Path | None = SOURCE_DIR.info,
    split: str = typer.Option("all", help="Task split (all, base, test, ...)."),
) -> None:
    """Replay every task's golden actions and a do-nothing trajectory, scored by the benchmark's own evaluator."""
    from rich.progress import track  # noqa: PLC0415 - +17 ms on --help

    bench = get_benchmark(benchmark, source_dir=source_dir)
    ids = bench.task_ids(split)
    golden = [bench.replay_golden([task_id])[0] for task_id in track(ids, description="golden replay", console=console)]
    nothing = bench.run_do_nothing(ids)
    table = Table(title=f"{benchmark} ({split}): {len(ids)} tasks")
    for column in ("trajectory", "reward 1.0", "other", "not replayable", "tool errors", "evaluator errors"):
        table.add_column(column)
    for name, outcomes in (("golden", golden), ("do-nothing", nothing)):
        table.add_row(
            name,
            str(sum(o.reward == 1.0 for o in outcomes)),
            str(sum(o.reward != 1.0 for o in outcomes)),
            str(sum(not o.replayable for o in outcomes)),
            str(sum(len(o.tool_error_sequence) for o in outcomes)),
            str(sum(o.evaluator_error is not None for o in outcomes)),
        )
    report.print(table)
    failed = [o.task_id for o in golden if o.replayable and o.reward != 1.0]
    if failed:
        report.print(f"[red]replayable tasks below 1.0:[/] {', '.join(failed[:20])}")
        raise typer.Exit(code=1)


@app.command("ir-schema")
@cli_errors
def ir_schema(
    out: Path | None = typer.Option(None, "--out", "-o", help="Write the JSON Schema here instead of stdout."),
) -> None:
    """Print the JSON Schema of the IR."""
    data = dump_json_bytes(ir_json_schema())
    if out:
        write_bytes_atomic(out, data + b"\n")
    else:
        sys.stdout.write(data.decode() + "\n")


# command modules; they never import this one
from flows.cli import adapt as cli_adapt  # noqa: E402
from flows.cli import adopt as cli_adopt  # noqa: E402
from flows.cli import evaluate as cli_evaluate  # noqa: E402
from flows.cli import families as cli_families  # noqa: E402
from flows.cli import flow as cli_flow  # noqa: E402
from flows.cli import interchange as cli_interchange  # noqa: E402
from flows.cli import review as cli_review  # noqa: E402
from flows.cli import terms as cli_terms  # noqa: E402
from flows.cli import units as cli_units  # noqa: E402
from flows.cli import validate as cli_validate  # noqa: E402

app.command("adapt")(cli_adapt.adapt)
app.command("validate")(cli_validate.validate)
app.command("flow")(cli_flow.flow)
app.command("review")(cli_review.review)
app.command("server")(cli_review.server)
app.command("export")(cli_interchange.export_command)
app.command("import")(cli_interchange.import_command)
app.command("evaluate")(cli_evaluate.evaluate_command)
app.command("families")(cli_families.families_command)
app.command("terms")(cli_terms.terms_command)
app.command("adopt")(cli_adopt.adopt_command)
app.command("units")(cli_units.units_command)
app.command("correct")(cli_units.correct_command)

if __name__ == "__main__":
    app()
