"""`babelflow terms`: the term base of a language, one table per entity class; approve or correct
renderings before (or after) the prose is built on them."""

from __future__ import annotations

import getpass
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.console import Console
from rich.table import Table

from babelflow.errors import BabelflowError
from flows.cli.common import cli_errors, console, shown_text
from flows.cli.options import BENCHMARK, LANG, SOURCE_DIR

if TYPE_CHECKING:
    from babelflow.adaptation_run import AdaptationRun
    from translators.terms.review import TermDecision
    from translators.terms.term_base import TermBase, TermEntry

out = Console()


@cli_errors
def terms_command(
    benchmark: str = BENCHMARK.info,
    lang: str = LANG.info,
    term_class: str | None = typer.Option(None, "--class", help="Only this entity class (e.g. option_value)."),
    doubtful: bool = typer.Option(False, "--doubtful", help="Only the renderings the signals doubt."),
    approve: list[str] = typer.Option(
        [], "--approve", help="Approve a term's rendering as it is (the English term; repeat for more)."
    ),
    approve_listed: bool = typer.Option(
        False, "--approve-listed", help="Approve every proposed rendering the filters list (e.g. a whole class)."
    ),
    correct: list[str] = typer.Option(
        [], "--correct", help='Correct a rendering: "TERM=RENDERING" (repeat for more; a batch is checked whole).'
    ),
    author: str = typer.Option("", "--author", help="Your name, recorded with each decision (default: login name)."),
    note: str = typer.Option("", "--note", help="A reason recorded with the decisions."),
    export_tbx: Path | None = typer.Option(
        None, "--export-tbx", help="Write the term base as TBX (ISO 30042) for a terminology tool."
    ),
    import_tbx: Path | None = typer.Option(
        None,
        "--import-tbx",
        help="Read a reviewed TBX back: changed renderings are corrections, preferred terms approvals (by the"
        " approver it names, else --author). Refused whole on an empty or conflicting term.",
    ),
    source_dir: Path | None = SOURCE_DIR.info,
) -> None:
    """The term base: every entity value a class translates, its rendering, the prose examples and
    records it comes from, the signals that doubt it and a confidence. Decisions (approve, correct) are
    logged with author and time, append-only, into the reviewed map; the next `babelflow flow` writes them
    everywhere the map reaches and retranslates only the units that mention them."""
    run = _run(benchmark, lang, source_dir)
    base = _term_base(run)
    listed = [e for e in base.entries if (term_class is None or e.group == term_class) and (not doubtful or e.doubtful)]
    if term_class is not None and term_class not in base.classes():
        raise BabelflowError(
            f"No class {term_class!r} in the term base of {benchmark} {lang}",
            field="--class",
            fix="use one of " + ", ".join(base.classes()),
        )
    if export_tbx is not None:
        _export(run, base, export_tbx)
        return
    if import_tbx is not None:
        from translators.terms.tbx import import_tbx as read_tbx  # noqa: PLC0415

        decisions = read_tbx(import_tbx, base, author or getpass.getuser())
        if not decisions:
            out.print(f"{import_tbx}: nothing changed (every term as the term base has it)", highlight=False)
            return
        _record(run, decisions)
        return
    decisions = _decisions(base, listed, approve, approve_listed, correct, term_class, author, note)
    if decisions:
        _record(run, decisions)
        return
    _show(base, listed, benchmark, lang)


def _export(run: AdaptationRun, base: TermBase, path: Path) -> None:
    from babelflow.atomic_io import write_bytes_atomic  # noqa: PLC0415
    from translators.terms.review import read_decisions  # noqa: PLC0415
    from translators.terms.tbx import export_tbx as to_tbx  # noqa: PLC0415

    decisions = read_decisions(run.settings.layout.term_decisions(run.benchmark, run.language))
    write_bytes_atomic(path, to_tbx(base, decisions))
    approved = sum(1 for e in base.entries if e.state == "approved")
    out.print(
        f"{path}: {len(base.entries)} term(s), {approved} approved, {len(base.doubtful())} doubtful (TBX-Basic)",
        highlight=False,
    )


def _run(benchmark: str, lang: str, source_dir: Path | None) -> AdaptationRun:
    from babelflow.settings import BabelflowSettings  # noqa: PLC0415 - keeps `--help` fast
    from flows.run_setup import resolve_run, stored_request  # noqa: PLC0415

    settings = BabelflowSettings()
    request = stored_request(settings, benchmark, lang)
    if source_dir is not None:
        request = request.model_copy(update={"source_dir": source_dir})
    return resolve_run(settings, request)


def _term_base(run: AdaptationRun) -> TermBase:
    """The last run's term base with decisions taken since over it; built now when no run made one."""
    from babelflow.canonical_map import load_canonical_map  # noqa: PLC0415
    from flows.components import analyze_or_reuse  # noqa: PLC0415
    from flows.pipeline.terms_stage import stage_terms  # noqa: PLC0415
    from source_benchmarks import get_benchmark  # noqa: PLC0415
    from translators.terms.term_base import as_decided, load_term_base  # noqa: PLC0415

    if not run.paths.term_base.exists():
        with console.status(f"rendering the terms of {run.benchmark} {run.language} …"):
            if not run.paths.ir.exists():
                analyze_or_reuse(
                    get_benchmark(run.benchmark, source_dir=run.source_dir), run.profile, run.paths.ir, console.log
                )
            stage_terms(run, run.paths.ir)
    base = load_term_base(run.paths.term_base)
    return as_decided(base, load_canonical_map(run.paths.canonical_map, run.benchmark, run.language))


def _find(base: TermBase, source: str, term_class: str | None) -> TermEntry:
    matches = [e for e in base.entries if e.source == source and (term_class is None or e.group == term_class)]
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise BabelflowError(
            f"No term {source!r}" + (f" in class {term_class!r}" if term_class else ""),
            field="--approve/--correct",
            fix="use the English term exactly as `babelflow terms` lists it",
        )
    classes = ", ".join(e.group for e in matches)
    raise BabelflowError(
        f"{source!r} is a term of several classes ({classes})", field="--class", fix="say which with --class"
    )


def _decisions(
    base: TermBase,
    listed: list[TermEntry],
    approve: list[str],
    approve_listed: bool,
    correct: list[str],
    term_class: str | None,
    author: str,
    note: str,
) -> list[TermDecision]:
    from translators.terms.review import TermDecision, now  # noqa: PLC0415

    who = author or getpass.getuser()
    at = now()
    chosen: list[tuple[TermEntry, str, str]] = []
    for source in approve:
        entry = _find(base, source, term_class)
        chosen.append((entry, "approve", entry.rendering))
    if approve_listed:
        chosen += [(e, "approve", e.rendering) for e in listed if e.state == "proposed"]
    for pair in correct:
        source, sep, rendering = pair.partition("=")
        if not sep:
            raise BabelflowError(
                f"--correct {pair!r} has no '='", field="--correct", fix='write it as "TERM=RENDERING"'
            )
        entry = _find(base, source.strip(), term_class)
        chosen.append((entry, "correct", rendering.strip()))
    return [
        TermDecision(
            at=at,
            author=who,
            action=action,  # type: ignore[arg-type]
            group=entry.group,
            source=entry.source,
            rendering=rendering,
            previous=entry.rendering,
            note=note,
        )
        for entry, action, rendering in chosen
    ]


def _record(run: AdaptationRun, decisions: list[TermDecision]) -> None:
    from flows.review.importing import held_run_lock  # noqa: PLC0415
    from translators.terms.review import record_decisions  # noqa: PLC0415

    layout = run.settings.layout
    log = layout.term_decisions(run.benchmark, run.language)
    with held_run_lock(run.settings, run.benchmark, run.language, holder="babelflow terms"):
        record_decisions(run.paths.canonical_map, log, run.benchmark, run.language, decisions)
    changed = sum(1 for d in decisions if d.rendering != d.previous)
    out.print(
        f"{len(decisions)} decision(s) recorded ({changed} change a rendering) in {run.paths.canonical_map}"
        f" and {log.name}. `babelflow flow {run.benchmark} --lang {run.language}` applies them: the DB, the"
        " golden arguments and the prose take the rendering, and only units that mention a changed term are"
        " translated again.",
        highlight=False,
    )


def _show(base: TermBase, listed: list[TermEntry], benchmark: str, lang: str) -> None:
    from translators.terms.signals import SIGNAL_MEANING  # noqa: PLC0415

    by_class: dict[str, list[TermEntry]] = {}
    for entry in listed:
        by_class.setdefault(entry.group, []).append(entry)
    for group, entries in by_class.items():
        doubtful = sum(1 for e in entries if e.doubtful)
        table = Table(title=f"{group}: {len(entries)} term(s), {doubtful} doubtful", expand=False, show_lines=False)
        table.add_column("term", overflow="fold", max_width=22)
        table.add_column("rendering", overflow="fold", max_width=24)
        table.add_column("ok", justify="right", width=4)
        table.add_column("why doubtful · context", overflow="fold", max_width=42)
        for entry in sorted(entries, key=lambda e: (-e.chance_wrong, e.source)):
            why = "; ".join(f"{s.kind.value}: {s.evidence}" for s in entry.signals)
            if entry.state == "approved":
                why = f"approved ({entry.origin_detail})"
            elif entry.draft != entry.rendering:
                why = f"draft {entry.draft!r} kept whole" + (f"; {why}" if why else "")
            context = (entry.context.records[:1] + entry.context.examples[:1]) if entry.doubtful else []
            cell = "\n".join([why, *(f"· {c}" for c in context)]) if why or context else ""
            mark = "[red]?[/]" if entry.doubtful else ("✓" if entry.state == "approved" else "")
            table.add_row(
                shown_text(entry.source),
                shown_text(entry.rendering),
                f"{mark}{round(100 * (1 - entry.chance_wrong))}",
                shown_text(cell),
            )
        out.print(table)
    total_doubtful = sum(1 for e in base.entries if e.doubtful)
    fired = sorted({s.kind for e in listed for s in e.signals}, key=lambda k: k.value)
    if fired:
        out.print("signals: " + "; ".join(f"{k.value}: {SIGNAL_MEANING[k]}" for k in fired), highlight=False)
    out.print(
        f"{len(listed)} of {len(base.entries)} term(s) shown; {total_doubtful} doubtful (confidence calibrated on"
        f" {', '.join(base.calibrated_on)}). Approve: `babelflow terms {benchmark} --lang {lang} --approve TERM`;"
        f' correct: `--correct "TERM=RENDERING" --author NAME`.',
        highlight=False,
    )
