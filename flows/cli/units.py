"""`babelflow units` (read every translation unit: source and target side by side, context,
provenance, checks) and `babelflow correct` (post-edit a unit in place: checked, logged with author,
time and the previous text, applied by rebuilding the variant)."""

from __future__ import annotations

import fnmatch
import getpass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import typer
from rich.console import Console
from rich.table import Table

from babelflow.errors import BabelflowError
from babelflow.ir import Record
from flows.cli.common import cli_errors, load_workbench, shown_text
from flows.cli.options import BENCHMARK, LANG, SOURCE_DIR, Declared, takes
from flows.review.unit_lines import checks_line, context_line, provenance

if TYPE_CHECKING:
    from flows.review.unit_records import UnitRecord
    from flows.review.workbench import Workbench

out = Console()  # results on stdout; progress and errors on stderr (flows/cli/common.console)


class UnitFilter(Record):
    """Which units `babelflow units` lists (every filter given must hold)."""

    task: str | None = None
    field: str | None = None
    origin: str | None = None
    grep: str | None = None
    limit: int = 50
    kind: Literal["all", "free", "canonical"] = "all"
    failing: bool = False

    def matches(self, record: UnitRecord) -> bool:
        if self.kind != "all" and record.kind != self.kind:
            return False
        if self.task is not None and self.task not in record.tasks:
            return False
        if self.field is not None and not any(
            fnmatch.fnmatchcase(r, self.field) or self.field in r for r in record.roles
        ):
            return False
        if self.origin is not None and record.origin_class != self.origin:
            return False
        return self.grep is None or self.grep.casefold() in (record.source + "\n" + record.target).casefold()


def unit_filter(given: dict) -> UnitFilter:
    """Refused (exit 2) before any work: an origin or kind that no unit has."""
    from flows.review.unit_records import ORIGIN_CLASSES  # noqa: PLC0415

    origin, kind = given["origin"], given["kind"]
    if origin is not None and origin not in ORIGIN_CLASSES:
        raise BabelflowError(
            f"Unknown origin {origin!r}", field="--origin", fix="use one of " + ", ".join(ORIGIN_CLASSES)
        )
    if kind not in ("all", "free", "canonical"):
        raise BabelflowError(f"Unknown kind {kind!r}", field="--kind", fix="use free, canonical or all")
    return UnitFilter(**given)


UNIT_FILTER = (
    Declared("task", str | None, typer.Option(None, "--task", help="Only units used by this task id.")),
    Declared(
        "field",
        str | None,
        typer.Option(
            None, "--field", help="Only units of fields whose role matches this glob or text (e.g. 'policy*')."
        ),
    ),
    Declared(
        "origin",
        str | None,
        typer.Option(
            None,
            "--origin",
            help="Only units made so: draft, reviewed, corrected, imported, kept, localized, reference, failed.",
        ),
    ),
    Declared(
        "grep", str | None, typer.Option(None, "--grep", help="Only units whose source or target contains this text.")
    ),
    Declared("limit", int, typer.Option(50, "--limit", min=0, help="Most units listed (0: all).")),
    Declared("kind", str, typer.Option("all", "--kind", help="free (prose), canonical (entity terms) or all.")),
    Declared(
        "failing",
        bool,
        typer.Option(
            False,
            "--failing",
            help="The work list, riskiest first: units with open findings, failed in a rejected sign-off sample,"
            " or failing a check (language, numbers, tokens, pack); never units kept as they are by policy.",
        ),
    ),
)


@cli_errors
@takes("which", UNIT_FILTER, unit_filter)
def units_command(
    which: UnitFilter,
    benchmark: str = BENCHMARK.info,
    lang: str = LANG.info,
    unit_id: str | None = typer.Option(None, "--id", help="Show one unit whole (its id or a unique 6+ prefix)."),
    source_dir: Path | None = SOURCE_DIR.info,
) -> None:
    """Read the translation units side by side: context (artifact, field, task, tool), provenance
    (translator, memory, map, human correction with author and time) and the flow's checks."""
    bench = load_workbench(benchmark, lang, source_dir=source_dir)
    if unit_id is not None:
        show_unit(bench, bench.find(unit_id))
        return
    if which.failing:  # the work list: open findings, failed sample units, failing checks; nothing kept by policy
        from flows.review.work_list import work_list  # noqa: PLC0415

        chosen = [record for record, _, _ in work_list(bench) if which.matches(record)]
    else:
        chosen = [r for r in bench.records if which.matches(r)]
    listed = chosen[: which.limit] if which.limit else chosen
    table = Table(show_lines=True, expand=True, title=f"{benchmark} → {bench.language}: {len(chosen)} unit(s)")
    table.add_column("unit", overflow="fold", min_width=13, ratio=1)
    table.add_column("source", overflow="fold", ratio=4)
    table.add_column("target", overflow="fold", ratio=4)
    table.add_column("context · provenance · checks", overflow="fold", ratio=3)
    for record in listed:
        checks = bench.checks(record)
        table.add_row(
            f"{record.key[:12]}\n{record.origin_class}\n{record.state.replace('-translation', '')}",
            shown_text(record.source),
            shown_text(record.target),
            shown_text(f"{context_line(record)}\n{provenance(record)}\n{checks_line(checks)}")
            + (f"\nfindings: {', '.join(record.findings)}" if record.findings else ""),
        )
    out.print(table)
    counts: dict[str, int] = {}
    for record in bench.records:
        counts[record.origin_class] = counts.get(record.origin_class, 0) + 1
    out.print(
        f"{len(listed)} of {len(chosen)} matching unit(s) shown (of {len(bench.records)}: "
        + ", ".join(f"{n} {c}" for c, n in sorted(counts.items()))
        + f"). {signoff_line(bench)}. One whole: `babelflow units {benchmark} --lang {bench.language} --id UNIT`;"
        f' correct: `babelflow correct {benchmark} --lang {bench.language} --id UNIT --text "…" --author NAME`',
        highlight=False,
    )


def signoff_line(bench: Workbench) -> str:
    from flows.review.signoff import signoff_state  # noqa: PLC0415

    state = signoff_state(bench.settings.layout.variant(bench.run.benchmark, bench.language))
    if not state.present:
        return "Not signed off"
    if state.valid:
        return f"Signed off by {state.reviewer} at {state.signed_at}"
    return f"Sign-off by {state.reviewer} is VOID: {len(state.changed)} file(s) changed since"


def show_unit(bench: Workbench, record: UnitRecord) -> None:
    checks = bench.checks(record)
    out.rule(f"unit {record.key} ({record.kind}, {record.origin_class}, XLIFF state {record.state})")
    out.print(f"[bold]source[/]  {shown_text(record.source)}", soft_wrap=False)
    out.print(f"[bold]target[/]  {shown_text(record.target)}")
    out.print(f"[bold]context[/] {shown_text(context_line(record))}", highlight=False)
    out.print(f"[bold]fields[/]  {len(record.element_ids)}: {shown_text(', '.join(record.element_ids[:6]))}")
    out.print(f"[bold]made by[/] {shown_text(provenance(record))}", highlight=False)
    out.print(f"[bold]checks[/]  {shown_text(checks_line(checks))}", highlight=False)
    if record.findings:
        out.print(f"[bold]open findings[/] {', '.join(record.findings)}")
    for correction in bench.log.history(record.key):
        out.print(
            f"  {correction.at} {shown_text(correction.author)} ({correction.via}"
            f"{' ' + shown_text(correction.detail) if correction.detail else ''}): "
            f"{shown_text(correction.previous)!r} -> {shown_text(correction.text)!r}",
            highlight=False,
        )


@cli_errors
def correct_command(
    benchmark: str = BENCHMARK.info,
    lang: str = LANG.info,
    text: str = typer.Option(..., "--text", help="The unit's new target text (inline codes as the source has them)."),
    unit_id: str | None = typer.Option(None, "--id", help="The unit to correct (id or unique 6+ prefix)."),
    finding: str | None = typer.Option(
        None,
        "--finding",
        help="A review finding (F-…): its unit is corrected and the finding confirmed with this text.",
    ),
    author: str = typer.Option("", "--author", help="Your name, recorded with the correction (default: login name)."),
    force: bool = typer.Option(False, "--force", help="Accept a text whose checks fail (they are recorded)."),
    source_dir: Path | None = SOURCE_DIR.info,
) -> None:
    """Post-edit one unit in place: checked like any translation, logged (author, time, previous
    text; append-only), then the variant is rebuilt (only what the unit touches changes)."""
    from flows.pipeline.correcting import apply_correction  # noqa: PLC0415

    if (unit_id is None) == (finding is None):
        raise BabelflowError("Say which unit", field="--id", fix="give --id UNIT or --finding F-… (one of them)")
    bench = load_workbench(benchmark, lang, source_dir=source_dir)
    outcome = apply_correction(
        bench, unit_id=unit_id, finding_id=finding, text=text, author=author or getpass.getuser(), force=force
    )  # fmt: skip
    for line in outcome.lines:
        out.print(shown_text(line), highlight=False)
