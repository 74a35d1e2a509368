"""`babelflow export` / `babelflow import`: XLIFF 1.2 or PO for professional translators."""

from __future__ import annotations

from pathlib import Path

import orjson
import typer
from rich.table import Table

from flows.cli_common import BENCHMARK_HELP, SOURCE_DIR_HELP, cli_errors, console


def _context(benchmark: str, lang: str, source_dir: Path | None, translator: str, *, drafts: bool = False):
    """`auto` without an offline translator for `lang` means none: the export goes out with empty
    targets (the offline path to any language); with a translator, `drafts` fills the targets."""
    from babelflow.canonical_map import load_canonical_map
    from babelflow.language_pack import load_pack
    from babelflow.settings import BabelflowSettings
    from flows.components import adapt_paths, analyze_or_reuse, translator_for
    from source_benchmarks import get_benchmark
    from translators.engine import TranslationEngine, pack_glossary
    from translators.interchange import exchange_units
    from translators.memory import TranslationMemory
    from translators.registry import validate_language_tag

    validate_language_tag(lang)
    settings = BabelflowSettings()
    pack = load_pack(lang, settings.project_root)
    from translators.choice import AUTO, NONE, default_spec

    if translator == AUTO:
        translator = default_spec(lang, pack) or NONE
    engine_translator = translator_for(translator, lang, pack)
    paths = adapt_paths(settings, benchmark, lang, engine_translator.translator_id)
    bench = get_benchmark(benchmark, source_dir=source_dir)
    ir = analyze_or_reuse(bench, None, paths.ir, lambda m: None)
    cmap = load_canonical_map(paths.canonical_map, benchmark, lang)
    engine = TranslationEngine(engine_translator, lang, TranslationMemory(paths.memory), glossary=pack_glossary(pack, benchmark))
    if drafts and translator != NONE:
        engine.translate(ir, cmap)  # fills the translation memory: its drafts become the targets
    return settings, paths, ir, exchange_units(ir, cmap, engine), translator


@cli_errors
def export_command(
    benchmark: str = typer.Argument(..., help=BENCHMARK_HELP),
    lang: str = typer.Option(..., "--lang", "-l", help="Target language (BCP 47)."),
    fmt: str = typer.Option("xliff", "--format", help="xliff (XLIFF 1.2) or po."),
    out: Path = typer.Option(..., "--out", "-o", help="File to write (.xlf or .po)."),
    translator: str = typer.Option("auto", "--translator", help="Who drafts the targets: `auto` (pseudo-locales: pseudo; a language with an Apertium pair: apertium; else none = empty targets), `none`, `pseudo`, `apertium`, PROVIDER:MODEL."),
    source_dir: Path | None = typer.Option(None, "--source-dir", help=SOURCE_DIR_HELP),
) -> None:
    """Export the language's translation units (context, notes, inline codes, canonical terms)."""
    from babelflow.errors import BabelflowError
    from translators.interchange import write_exchange

    if fmt not in ("xliff", "po"):
        raise BabelflowError(f"Unknown format {fmt!r}", field="--format", fix="use xliff or po (XLIFF 2.0 is not offered: translate-toolkit's writer fails the official schema)")
    _, _, ir, units, used = _context(benchmark, lang, source_dir, translator, drafts=True)
    write_exchange(units, out, "xliff" if fmt == "xliff" else "po", "en", lang, benchmark)
    console.print(f"{len(units)} units ({sum(u.target is not None for u in units)} with a {used} draft) written to [bold]{out}[/]")


@cli_errors
def import_command(
    benchmark: str = typer.Argument(..., help=BENCHMARK_HELP),
    file: Path = typer.Argument(..., help="The edited .xlf/.po file."),
    lang: str = typer.Option(..., "--lang", "-l", help="Target language (BCP 47)."),
    translator: str = typer.Option("auto", "--translator", help="Translator for units the file does not cover (`auto` as for export; `none` keeps their source text and reports them)."),
    source_dir: Path | None = typer.Option(None, "--source-dir", help=SOURCE_DIR_HELP),
) -> None:
    """Bring a translator's file back: same checks as a model translation; then rebuild the variant."""
    from babelflow.atomic_io import write_bytes_atomic
    from flows.adapt import adapt
    from translators.interchange import import_translations, read_exchange

    settings, paths, ir, units, translator = _context(benchmark, lang, source_dir, translator)
    imported, problems = import_translations(units, read_exchange(file))
    reviewed = orjson.loads(paths.reviewed.read_bytes()) if paths.reviewed.exists() else {}
    reviewed.update(imported)
    write_bytes_atomic(paths.reviewed, orjson.dumps(reviewed))
    result = adapt(benchmark, lang, translator_spec=translator, source_dir=source_dir, settings=settings, ir=ir)
    console.print(f"{len(imported)} fields imported; variant rebuilt at [bold]{result.paths.variant}[/]")
    if problems:
        table = Table(title=f"{len(problems)} import findings (fidelity / inline_code_broken)")
        for column in ("unit", "problems", "target"):
            table.add_column(column, overflow="fold")
        for problem in problems:
            table.add_row(problem.unit_key, "; ".join(problem.problems), problem.target[:120])
        console.print(table)
        raise typer.Exit(code=1)
