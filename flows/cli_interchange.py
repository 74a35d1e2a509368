"""`babelflow export` / `babelflow import`: XLIFF 1.2 or PO for professional translators."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from babelflow.errors import BabelflowError
from babelflow.output_guard import check_file_out
from babelflow.settings import BabelflowSettings
from flows.cli_common import BENCHMARK_HELP, SOURCE_DIR_HELP, cli_errors, console, shown_text
from source_benchmarks import get_benchmark
from translators.memory import TranslationMemory

if TYPE_CHECKING:  # the commands import their engines lazily: `babelflow --help` stays fast
    from babelflow.adaptation_run import RunPaths
    from babelflow.canonical_map import CanonicalMap
    from babelflow.ir import IRDocument
    from babelflow.language_pack import LanguagePack
    from translators.interchange import ExchangeUnit


@dataclass
class _Context:
    """What export and import share: the IR, the exchange units and the translator for the rest."""

    settings: BabelflowSettings
    paths: RunPaths
    ir: IRDocument
    units: list[ExchangeUnit]
    translator: str
    pack: LanguagePack
    cmap: CanonicalMap


def _context(benchmark: str, lang: str, source_dir: Path | None, translator: str, *, drafts: bool = False) -> _Context:
    """`auto` without an offline translator for `lang` means none: the export goes out with empty
    targets (the offline path to any language); with a translator, `drafts` fills the targets."""
    # each of these adds 35 ms (CLDR) to 2.5 s (the stages) to `babelflow --help`, which imports this module
    from babelflow.canonical_map import load_canonical_map  # noqa: PLC0415
    from flows.components import analyze_or_reuse, translator_for  # noqa: PLC0415
    from flows.run_setup import resolve_run  # noqa: PLC0415
    from translators.choice import NONE  # noqa: PLC0415
    from translators.engine import TranslationEngine, pack_glossary  # noqa: PLC0415
    from translators.interchange import exchange_units  # noqa: PLC0415

    settings = BabelflowSettings()
    # `auto` without an offline translator for the language: the export goes out with empty targets
    run = resolve_run(settings, benchmark, lang, translator=translator, source_dir=source_dir, auto_fallback=NONE)
    pack, paths = run.pack, run.paths
    engine_translator = translator_for(run.translator_spec, run.language, pack)
    bench = get_benchmark(benchmark, source_dir=source_dir)
    ir = analyze_or_reuse(bench, None, paths.ir, lambda m: None)
    cmap = load_canonical_map(paths.canonical_map, benchmark, lang)
    engine = TranslationEngine(
        engine_translator, lang, TranslationMemory(paths.memory), glossary=pack_glossary(pack, benchmark)
    )
    if drafts and run.translator_spec != NONE:
        # fills the translation memory: its drafts become the targets
        engine.translate(ir, cmap, renderings=run.entity_renderings(ir.entity_classes))
    return _Context(settings, paths, ir, exchange_units(ir, cmap, engine), run.translator_spec, pack, cmap)


@cli_errors
def export_command(
    benchmark: str = typer.Argument(..., help=BENCHMARK_HELP),
    lang: str = typer.Option(..., "--lang", "-l", help="Target language (BCP 47)."),
    fmt: str = typer.Option("xliff", "--format", help="xliff (XLIFF 1.2) or po."),
    out: Path = typer.Option(..., "--out", "-o", help="File to write (.xlf or .po)."),
    translator: str = typer.Option(
        "auto",
        "--translator",
        help=(
            "Who drafts the targets: `auto` (pseudo-locales: pseudo; a language with an Apertium pair: apertium; "
            "else none = empty targets), `none`, `pseudo`, `apertium`, PROVIDER:MODEL."
        ),
    ),
    source_dir: Path | None = typer.Option(None, "--source-dir", help=SOURCE_DIR_HELP),
) -> None:
    """Export the language's translation units (context, notes, inline codes, canonical terms)."""
    from translators.interchange import write_exchange  # noqa: PLC0415 - translate-toolkit and lxml: +0.6 s on --help

    if fmt not in ("xliff", "po"):
        raise BabelflowError(
            f"Unknown format {fmt!r}",
            field="--format",
            fix="use xliff or po (XLIFF 2.0 is not offered: translate-toolkit's writer fails the official schema)",
        )
    if source_dir is not None:  # the installed packages are guarded by the writer itself
        check_file_out(out, [source_dir])
    context = _context(benchmark, lang, source_dir, translator, drafts=True)
    units, used = context.units, context.translator
    write_exchange(units, out, "xliff" if fmt == "xliff" else "po", "en", lang, benchmark)
    console.print(
        f"{len(units)} units ({sum(u.target is not None for u in units)} with a {used} draft)"
        f" written to [bold]{shown_text(str(out))}[/]"
    )


@cli_errors
def import_command(
    benchmark: str = typer.Argument(..., help=BENCHMARK_HELP),
    file: Path = typer.Argument(..., help="The edited .xlf/.po file."),
    lang: str = typer.Option(..., "--lang", "-l", help="Target language (BCP 47)."),
    translator: str = typer.Option(
        "auto",
        "--translator",
        help=(
            "Translator for units the file does not cover (`auto` as for export; "
            "`none` keeps their source text and reports them)."
        ),
    ),
    source_dir: Path | None = typer.Option(None, "--source-dir", help=SOURCE_DIR_HELP),
    max_bytes: int | None = typer.Option(
        None,
        "--max-bytes",
        envvar="BABELFLOW_IMPORT_MAX_BYTES",
        min=1,
        help="Largest file accepted, checked before it is read (default 50 MiB).",
    ),
    max_units: int | None = typer.Option(
        None,
        "--max-units",
        envvar="BABELFLOW_IMPORT_MAX_UNITS",
        min=1,
        help="Most units accepted, counted before the file is parsed (default 20,000).",
    ),
) -> None:
    """Bring a translator's file back, all or nothing: every entry is checked (ids, states, inline
    codes, pack, fidelity, canonical terms) before anything is written; then the variant is rebuilt."""
    # the pipeline (2.2 s), the import checks and translate-toolkit (0.8 s) stay off `babelflow --help`
    from flows.adapt import adapt  # noqa: PLC0415
    from flows.importing import check_entries, check_header, check_written, roll_back, write_import  # noqa: PLC0415
    from translators.interchange import ImportLimits, plan_import, read_exchange  # noqa: PLC0415

    limits = ImportLimits(
        **{k: v for k, v in {"max_bytes": max_bytes, "max_units": max_units}.items() if v is not None}
    )
    exchange = read_exchange(file, limits)  # bounded before the IR is loaded
    check_header(exchange, benchmark, lang)
    context = _context(benchmark, lang, source_dir, translator)
    settings, paths = context.settings, context.paths
    plan = plan_import(context.units, exchange, keep_order=context.pack.is_pseudo)
    check_entries(exchange, plan)
    check_written(exchange, plan, context.ir, context.pack, context.cmap, lang)
    written = write_import(
        settings, benchmark, lang, paths.reviewed, paths.canonical_map, plan, holder=f"import {file.name}"
    )
    try:
        result = adapt(
            benchmark, lang, translator_spec=context.translator, source_dir=source_dir, settings=settings, ir=context.ir
        )
    except BaseException as exc:  # an interrupted rebuild too: the import is all or nothing
        roll_back(settings, benchmark, lang, written)
        if isinstance(exc, BabelflowError):
            exc.message += "\nThe import was rolled back: the reviewed translations and canonical map are as before."
        raise
    console.print(
        f"{len(plan.entries)} units imported ({len(plan.targets)} fields, {len(plan.canonical)} canonical terms; "
        f"{plan.empty_units} without a target left to the translator);"
        f" variant rebuilt at [bold]{shown_text(str(result.paths.variant))}[/]"
    )
