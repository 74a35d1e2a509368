"""`babelflow adopt`: bring a variant made elsewhere in (its texts seed the translation, the map repairs it)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import typer
from rich.table import Table

from babelflow.adapt_request import AdaptRequest
from flows.cli.common import cli_errors, console, shown_text
from flows.cli.common import out as report
from flows.cli.options import ADAPT, takes_request


@cli_errors
@takes_request(ADAPT)
def adopt_command(
    request: AdaptRequest,
    from_dir: Path = typer.Option(
        ...,
        "--from",
        help="The existing variant: a folder laid out like the benchmark's data (or a babelflow variant); Python "
        "files at the package's paths (a fork of the code) are parsed, never run, and their literals read.",
    ),
    origin: str = typer.Option(
        "", "--origin", help="Who made it, shown as 'adopted from ORIGIN' (default: the folder's name)."
    ),
    human_reviewed: bool = typer.Option(
        False,
        "--human-reviewed",
        help="Its texts were reviewed by people: XLIFF state translated, sign-off tier human.",
    ),
) -> None:
    """Adopt an existing translation of BENCHMARK into LANG and repair it into a babelflow variant.

    Each translated field is read at its place in the source (tasks matched by id); each catalogue value gets
    the catalogue record's rendering, written everywhere the data flow links it (DB, order lines, golden
    arguments, prose mentions); values the harness compares go back to the source's text. What cannot be
    aligned goes to --translator (offline: none for most languages, so it stays a failure to review), listed with
    its reason. Then: `babelflow validate`, `review`, `units`, `export`/`import`, sign-off, as for any run."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn  # noqa: PLC0415 - +17 ms on --help

    from flows.pipeline.adopting import AdoptedFrom, adopt  # noqa: PLC0415 - +2.5 s on --help

    with Progress(TextColumn("[cyan]{task.description}"), BarColumn(), MofNCompleteColumn(), console=console) as bar:
        stage = bar.add_task("starting", total=None)
        units = bar.add_task("translation units", total=None, visible=False)
        outcome = adopt(
            request,
            AdoptedFrom(from_dir, origin or None, human_reviewed),
            progress=lambda message: bar.update(stage, description=message),
            translation_progress=lambda done, total: bar.update(units, completed=done, total=total, visible=True),
        )
        bar.update(stage, description="done", total=1, completed=1)
    adoption, adapted = outcome.adoption, outcome.adapted
    share = adoption.adopted_fields / max(adoption.translatable_fields, 1)
    table = Table(title=f"{request.benchmark} {request.language}: adopted from {adoption.origin}")
    table.add_column("what")
    table.add_column("value", justify="right")
    rows = [
        (
            "translated fields carrying the variant's text",
            f"{adoption.adopted_fields} of {adoption.translatable_fields} ({share:.1%})",
        ),
        ("catalogue values given one rendering", str(len(adoption.terms))),
        ("  of them rendered several ways in the variant", str(sum(1 for t in adoption.terms if t.competing))),
        ("fields adopted whole (sentence count differs)", str(len(adoption.whole_fields))),
        ("values the harness compares, put back to the source's", str(len(adoption.restored))),
        *(
            (f"not adopted: {reason}", str(n))
            for reason, n in sorted(Counter(n.reason for n in adoption.not_adopted).items())
        ),
        *((f"units made by {origin}", str(n)) for origin, n in sorted(adapted.outcome.stats.units_by_origin.items())),
    ]
    for name, value in rows:
        table.add_row(name, value)
    report.print(table)
    for term in [t for t in adoption.terms if t.competing][:10]:
        others = ", ".join(f"{c.rendering!r} ({c.count})" for c in term.competing[:3])
        report.print(
            shown_text(f"{term.group} {term.source!r} -> {term.target!r} ({term.chosen_by}); also {others}"),
            highlight=False,
        )
    for item in adoption.restored[:5]:
        report.print(shown_text(f"put back {item.where}: {item.variant_text!r} -> {item.source!r}"), highlight=False)
    report.print(f"variant written to [bold]{adapted.paths.variant}[/]; adoption record: {adapted.paths.adopted}")
    lang = request.language
    report.print(
        f"next: babelflow validate {request.benchmark} --lang {lang} --review"
        "  (then babelflow review / units --failing)"
    )
    if adapted.outcome.failures:
        report.print(
            f"[yellow]{len(adapted.outcome.failures)} unit(s) have no text: not in the variant and no translator;"
            f" `babelflow units {request.benchmark} --lang {lang} --origin failed` lists them[/]"
        )
