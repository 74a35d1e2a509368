"""The adaptation pipeline as plain function calls (the Prefect flows wrap these same stages).

analyze → extract/translate → rebuild. Each stage writes its result atomically, so a rerun can
start from what exists: the IR is reused while the source and profile are unchanged, and the
translation memory means no segment is translated twice.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import orjson

from analyzers import ANALYZER_VERSION
from analyzers.analyze import analyze_benchmark
from analyzers.profile import load_profile
from babelflow.canonical_map import load_canonical_map, save_canonical_map
from babelflow.errors import BabelflowError
from babelflow.ir import IRDocument, save_ir
from babelflow.ir_cache import load_ir_cached, remember
from babelflow.language_pack import LanguagePack, load_pack
from babelflow.run_lock import run_lock
from babelflow.settings import BabelflowSettings
from babelflow.variant import VariantManifest
from source_benchmarks import get_benchmark
from source_benchmarks.protocol import SourceBenchmark
from translators.engine import TranslationEngine, TranslationOutcome, pack_glossary
from translators.interface import Translator
from translators.memory import TranslationMemory
from translators.pack_checks import enforce
from translators.pseudo_locale import SUPPORTED_PSEUDO_LOCALES, PseudoLocaleTranslator
from translators.rebuild import rebuild_variant
from translators.registry import make_translator, validate_language_tag


def translator_for(spec: str, language: str, pack: LanguagePack, costs=None) -> Translator:
    """The pack may declare a pseudo style, so a new pseudo-locale is data, not code.
    `auto` picks the language's default (translators/choice.py): pseudo, Apertium, or an error."""
    from translators.choice import resolve_spec

    spec = resolve_spec(spec, language, pack)
    if spec == "pseudo" and pack.offline_rendering and language not in SUPPORTED_PSEUDO_LOCALES:
        return PseudoLocaleTranslator(language, style=pack.offline_rendering)
    return make_translator(spec, language, costs=costs)


@dataclass
class AdaptPaths:
    ir: Path
    memory: Path
    canonical_map: Path
    variant: Path
    reviewed: Path  # element id -> a reviewer's or human translator's text (review loop, imports)


def adapt_paths(settings: BabelflowSettings, benchmark_id: str, language: str, translator_id: str, out: Path | None = None) -> AdaptPaths:
    """The paths one adaptation with one translator uses (from the settings' layout)."""
    layout = settings.layout
    return AdaptPaths(
        ir=layout.ir(benchmark_id),
        memory=layout.memory(benchmark_id, language, translator_id),
        canonical_map=layout.canonical_map(benchmark_id, language),
        variant=layout.variant(benchmark_id, language, out),
        reviewed=layout.reviewed_translations(benchmark_id, language),
    )


def domain_name_for(benchmark_id: str, language: str) -> str:
    return f"{benchmark_id.removeprefix('tau2-')}_{language}"


def analyze_or_reuse(bench: SourceBenchmark, profile_path: Path | None, ir_path: Path, progress: Callable[[str], None]) -> IRDocument:
    """Reuse the saved IR iff it was made from the same source files and profile."""
    profile = load_profile(bench.id, profile_path)
    if ir_path.exists():
        try:
            ir = load_ir_cached(ir_path, bench.id)
        except BabelflowError:
            ir = None
        fresh = ir is not None and ir.analyzer_version == ANALYZER_VERSION and ir.profile_sha256 == profile.sha256
        if fresh and [a.model_dump() for a in ir.artifacts] == [a.model_dump() for a in bench.fingerprints()]:
            progress("IR unchanged: reused")
            return ir
    ir = analyze_benchmark(bench, profile, progress=progress)
    save_ir(ir, ir_path)
    remember(ir_path, ir)  # a rerun in a new process loads the binary sidecar, not 170k JSON elements
    return ir


@dataclass
class AdaptResult:
    ir: IRDocument
    outcome: TranslationOutcome
    manifest: VariantManifest
    paths: AdaptPaths


def adapt(
    benchmark_id: str,
    language: str,
    *,
    translator_spec: str = "auto",
    source_dir: Path | None = None,
    profile: Path | None = None,
    out: Path | None = None,
    settings: BabelflowSettings | None = None,
    progress: Callable[[str], None] | None = None,
    translation_progress: Callable[[int, int], None] | None = None,
    ir: IRDocument | None = None,
    costs=None,
) -> AdaptResult:
    """Run analyze → translate → rebuild; `ir` skips analysis when the caller already holds it.

    `costs`: a translators.providers.costs.CostLedger that receives a model translator's token usage."""
    settings = settings or BabelflowSettings()
    progress = progress or (lambda message: None)
    validate_language_tag(language)
    pack = load_pack(language, settings.project_root)
    translator = translator_for(translator_spec, language, pack)
    if costs is not None and hasattr(translator, "costs"):
        translator.costs = costs  # model providers report usage per stage/language/provider
    bench = get_benchmark(benchmark_id, source_dir=source_dir)
    paths = adapt_paths(settings, benchmark_id, language, translator.translator_id, out)
    if paths.variant.exists() and not paths.variant.is_dir():
        raise BabelflowError("Output path is a file", file=paths.variant, fix="remove it or choose another --out")
    with run_lock(settings.layout.locks(), benchmark_id, language):
        return _adapt_locked(bench, benchmark_id, language, pack, translator, paths, profile, ir, progress, translation_progress)


def _adapt_locked(bench, benchmark_id, language, pack, translator, paths, profile, ir, progress, translation_progress) -> AdaptResult:
    if ir is None:
        ir = analyze_or_reuse(bench, profile, paths.ir, progress)
    elif ir.benchmark != benchmark_id:
        raise BabelflowError(f"IR is for {ir.benchmark}, not {benchmark_id}", field="ir", fix="analyze this benchmark")
    cmap = load_canonical_map(paths.canonical_map, benchmark_id, language)
    progress("translating")
    engine = TranslationEngine(translator, language, TranslationMemory(paths.memory), glossary=pack_glossary(pack, benchmark_id))
    reviewed = orjson.loads(paths.reviewed.read_bytes()) if paths.reviewed.exists() else {}
    outcome = engine.translate(ir, cmap, progress=translation_progress, reviewed=reviewed)
    save_canonical_map(cmap, paths.canonical_map)
    progress(f"release checks of language pack {pack.tag} {pack.version}")
    enforce(pack, ir, outcome.targets)  # before any write: a failing pack check leaves adapted/ untouched
    progress("rebuilding")
    manifest = rebuild_variant(
        bench,
        ir,
        outcome.targets,
        paths.variant,
        language=language,
        domain_name=domain_name_for(benchmark_id, language),
        canonical_map_version=cmap.version(),
        translator_id=translator.translator_id,
        failed_units=len(outcome.failures),
        language_pack_version=f"{pack.tag}@{pack.version}",
    )
    return AdaptResult(ir=ir, outcome=outcome, manifest=manifest, paths=paths)
