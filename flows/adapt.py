"""The adaptation pipeline as plain function calls (the Prefect flows wrap these same stages).

analyze → extract/translate → rebuild. Each stage writes its result atomically, so a rerun can
start from what exists: the IR is reused while the source and profile are unchanged, and the
translation memory means no segment is translated twice.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import orjson

from babelflow.errors import BabelflowError
from babelflow.ir import IRDocument
from babelflow.language_pack import load_pack
from babelflow.run_lock import run_lock
from babelflow.settings import BabelflowSettings
from babelflow.variant import VariantManifest
from flows.components import AdaptPaths, adapt_paths, analyze_or_reuse, owned_output, translator_for
from flows.stages import rebuild_into, translate_ir
from source_benchmarks import get_benchmark
from translators.engine import TranslationOutcome
from translators.registry import validate_language_tag


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

    `costs`: a babelflow.llm.costs.CostLedger that receives a model translator's token usage."""
    settings = settings or BabelflowSettings()
    progress = progress or (lambda message: None)
    validate_language_tag(language)
    pack = load_pack(language, settings.project_root)
    translator = translator_for(translator_spec, language, pack)
    if costs is not None and hasattr(translator, "costs"):
        translator.costs = costs  # model providers report usage per stage/language/provider
    bench = get_benchmark(benchmark_id, source_dir=source_dir)
    paths = adapt_paths(settings, benchmark_id, language, translator.translator_id, out)
    with run_lock(settings.layout.locks(), benchmark_id, language), owned_output(settings, bench, language, paths.variant):
        return _adapt_locked(bench, benchmark_id, language, pack, translator, paths, profile, ir, progress, translation_progress)


def _adapt_locked(bench, benchmark_id, language, pack, translator, paths, profile, ir, progress, translation_progress) -> AdaptResult:
    if ir is None:
        ir = analyze_or_reuse(bench, profile, paths.ir, progress)
    elif ir.benchmark != benchmark_id:
        raise BabelflowError(f"IR is for {ir.benchmark}, not {benchmark_id}", field="ir", fix="analyze this benchmark")
    progress("translating")
    reviewed = orjson.loads(paths.reviewed.read_bytes()) if paths.reviewed.exists() else {}
    outcome, cmap = translate_ir(paths, benchmark_id, language, pack, translator, ir, reviewed, [], translation_progress)
    progress("rebuilding")
    manifest = rebuild_into(
        bench, ir, outcome.targets, paths.variant, language=language, canonical_map_version=cmap.version(),
        translator_id=translator.translator_id, failed_units=len(outcome.failures), language_pack_version=f"{pack.tag}@{pack.version}",
    )
    return AdaptResult(ir=ir, outcome=outcome, manifest=manifest, paths=paths)
