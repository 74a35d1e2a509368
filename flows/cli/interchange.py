"""`babelflow export` / `babelflow import`: XLIFF 1.2 or PO for professional translators."""

from __future__ import annotations

import getpass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from babelflow.errors import BabelflowError
from babelflow.output_guard import check_file_out
from flows.cli.common import cli_errors, load_workbench, shown_text
from flows.cli.options import BENCHMARK, LANG, SOURCE_DIR
from flows.cli.units import out
from flows.review.unit_lines import provenance

if TYPE_CHECKING:  # the commands import their engines lazily: `babelflow --help` stays fast
    from flows.review.workbench import Workbench
    from translators.interchange import ExchangeUnit


def exchange_units(bench: Workbench) -> list[ExchangeUnit]:
    """Each unit with its current text (corrections and imports included), its XLIFF state and its
    context (fields, tasks, tools, who made the text) as notes."""
    from translators.interchange import ExchangeUnit  # noqa: PLC0415

    out = []
    for record in bench.records:
        protected = bench.protected[record.key]
        target = None if record.origin_class in ("failed", "pending") else bench.protected_target(record)
        notes = [
            f"context: {bench.run.benchmark} {record.kind} unit",
            "fields: "
            + "; ".join(record.roles[:4])
            + (f" (+{len(record.roles) - 4})" if len(record.roles) > 4 else ""),
        ]
        if record.tasks:
            notes.append("tasks: " + ", ".join(record.tasks[:20]) + (" …" if len(record.tasks) > 20 else ""))
        if record.tools:
            notes.append("tools: " + ", ".join(record.tools[:10]))
        notes.append("made by: " + provenance(record))
        if record.canonical_group:
            notes.append(f"canonical term ({record.canonical_group}): translate once, it is reused in every file")
        if protected.placeholders:
            notes.append(
                "inline codes: "
                + "; ".join(f"{p.index}={p.original!r}" for p in protected.placeholders)
                + " — keep every code exactly once"
            )
        state = "needs-translation" if target is None else record.state
        out.append(ExchangeUnit(record_unit(bench, record.key), protected, target, notes, state))
    return out


def record_unit(bench: Workbench, key: str):
    return next(u for u in bench.units if u.key == key)


@cli_errors
def export_command(
    benchmark: str = BENCHMARK.info,
    lang: str = LANG.info,
    fmt: str = typer.Option("xliff", "--format", help="xliff (XLIFF 1.2) or po."),
    out_file: Path = typer.Option(..., "--out", "-o", help="File to write (.xlf or .po)."),
    translator: str = typer.Option(
        "auto",
        "--translator",
        help=(
            "Who drafts the targets: `auto` (pseudo-locales: pseudo; a language with an Apertium pair: apertium; "
            "else none = empty targets), `none`, `pseudo`, `apertium`, PROVIDER:MODEL."
        ),
    ),
    source_dir: Path | None = SOURCE_DIR.info,
) -> None:
    """Export the language's translation units (context, notes, inline codes, canonical terms)."""
    from translators.interchange import write_exchange  # noqa: PLC0415 - translate-toolkit and lxml: +0.6 s on --help
    from translators.spec import resolve_spec  # noqa: PLC0415

    if fmt not in ("xliff", "po"):
        raise BabelflowError(
            f"Unknown format {fmt!r}",
            field="--format",
            fix="use xliff or po (XLIFF 2.0 is not offered: translate-toolkit's writer fails the official schema)",
        )
    if source_dir is not None:  # the installed packages are guarded by the writer itself
        check_file_out(out_file, [source_dir])
    bench = load_workbench(benchmark, lang, source_dir=source_dir, translator=translator, translate_missing=True)
    units = exchange_units(bench)
    write_exchange(units, out_file, "xliff" if fmt == "xliff" else "po", "en", lang, benchmark)
    states: dict[str, int] = {}
    for unit in units:
        states[unit.state or "none"] = states.get(unit.state or "none", 0) + 1
    out.print(
        f"{len(units)} units written to [bold]{shown_text(str(out_file))}[/] (current text; translator"
        f" {resolve_spec(bench.run.request.translator, bench.language, bench.run.pack).text}): "
        + ", ".join(f"{n} {s}" for s, n in sorted(states.items())),
        highlight=False,
    )


def _import_limit(flag: str, envvar: str, help_text: str) -> Any:
    """An import bound, from the flag or the environment; unset, translators.interchange.ImportLimits' default holds."""
    return typer.Option(None, flag, envvar=envvar, min=1, help=help_text)


@cli_errors
def import_command(
    benchmark: str = BENCHMARK.info,
    file: Path = typer.Argument(..., help="The edited .xlf/.po file."),
    lang: str = LANG.info,
    translator: str = typer.Option(
        "auto",
        "--translator",
        help=(
            "Translator for units the file does not cover (`auto` as for export; "
            "`none` keeps their source text and reports them)."
        ),
    ),
    force: bool = typer.Option(
        False, "--force", help="Accept targets whose per-unit checks fail (English left, numbers); they are recorded."
    ),
    source_dir: Path | None = SOURCE_DIR.info,
    max_bytes: int | None = _import_limit(
        "--max-bytes",
        "BABELFLOW_IMPORT_MAX_BYTES",
        "Largest file accepted, checked before it is read (default 50 MiB).",
    ),
    max_units: int | None = _import_limit(
        "--max-units",
        "BABELFLOW_IMPORT_MAX_UNITS",
        "Most units accepted, counted before the file is parsed (default 20,000).",
    ),
) -> None:
    """Bring a translator's file back, all or nothing: every entry is checked (ids, states, inline
    codes, pack, fidelity, canonical terms) before anything is written; then the variant is rebuilt."""
    # the pipeline (2.2 s), the import checks and translate-toolkit (0.8 s) stay off `babelflow --help`
    from flows.pipeline.correcting import apply_human_texts  # noqa: PLC0415
    from flows.review.importing import check_entries, check_header, check_written, refuse  # noqa: PLC0415
    from flows.review.unit_records import Correction, now  # noqa: PLC0415
    from translators.interchange import ImportLimits, plan_import, read_exchange  # noqa: PLC0415

    limits = ImportLimits(
        **{k: v for k, v in {"max_bytes": max_bytes, "max_units": max_units}.items() if v is not None}
    )
    exchange = read_exchange(file, limits)  # bounded before the IR is loaded
    check_header(exchange, benchmark, lang)
    bench = load_workbench(benchmark, lang, source_dir=source_dir, translator=translator)
    plan = plan_import(exchange_units(bench), exchange, keep_order=bench.run.pack.is_pseudo)
    check_entries(exchange, plan)
    records = {r.key: r for r in bench.records}
    # per unit, the flow's checks on the new text (language, numbers, tokens, pack): a finding per unit
    flagged = {e.unit_key: [c for c in bench.checks(records[e.unit_key], e.target) if c.refusing] for e in plan.entries}
    flagged = {key: checks for key, checks in flagged.items() if checks}
    if not force:
        check_written(exchange, plan, bench.ir, bench.run.pack, bench.cmap, bench.language)
        if flagged:
            error = refuse(
                file,
                [
                    f"unit {e.unit_key} ({e.where}): "
                    + "; ".join(f"{c.kind}: {c.message}" for c in flagged[e.unit_key])
                    for e in plan.entries
                    if e.unit_key in flagged
                ],
                field="targets",
            )
            error.fix = f"{error.fix}; or import with --force to accept them as they are (recorded with each unit)"
            raise error
    counts = f"{plan.unchanged} unchanged, {plan.empty_units} without a target"
    if not plan.entries:
        out.print(f"0 changed ({counts}); nothing was written", highlight=False)
        return
    corrections = [
        Correction(
            unit_key=e.unit_key,
            element_ids=e.element_ids,
            text=e.target,
            previous=records[e.unit_key].target,
            author=getpass.getuser(),
            at=now(),
            via="import",
            detail=file.name,
            forced=[c.kind for c in flagged.get(e.unit_key, [])],
        )
        for e in plan.entries
    ]
    applied = apply_human_texts(bench, plan, corrections, holder=f"import {file.name}")
    out.print(
        f"{len(plan.entries)} changed ({counts}): {len(plan.reviewed)} fields, {len(plan.canonical)} canonical terms"
        + (f"; accepted with --force despite their checks: {', '.join(sorted(flagged))}" if flagged else ""),
        highlight=False,
    )
    for entry in plan.entries:
        out.print(f"  unit {entry.unit_key} ({entry.where}): {shown_text(entry.target)}", highlight=False)
    for line in applied.lines:
        out.print(shown_text(line), highlight=False)
