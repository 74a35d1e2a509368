"""The adaptation pipeline as plain function calls (the Prefect flows wrap these same stages).

analyze → extract/translate → rebuild. Each stage writes its result atomically, so a rerun can
start from what exists: the IR is reused while the source and profile are unchanged, and the
translation memory means no segment is translated twice.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import orjson

from babelflow.adapt_request import AdaptRequest
from babelflow.adaptation_run import AdaptationRun, RunPaths
from babelflow.errors import BabelflowError
from babelflow.ir import IRDocument
from babelflow.run_lock import run_lock
from babelflow.settings import BabelflowSettings
from babelflow.variant import VariantManifest
from flows.components import analyze_or_reuse, owned_output
from flows.pipeline.stages import translate_ir, variant_build
from flows.review.hand_edits import adopt_hand_edits
from flows.review.signoff import void_stale_signoff
from flows.run_setup import resolve_run
from flows.written_targets import record_written_targets
from source_benchmarks import get_benchmark
from source_benchmarks.protocol import SourceBenchmark
from translators.interface import Translator
from translators.outcomes import TranslationOutcome
from translators.rebuild import rebuild_variant
from translators.spec import make_translator


@dataclass
class AdaptResult:
    ir: IRDocument
    outcome: TranslationOutcome
    manifest: VariantManifest
    paths: RunPaths
    voided_signoff: str | None = None  # a sign-off whose hashes this rebuild broke, moved out of the variant
    hand_edits: list[str] = field(default_factory=list)  # the variant's hand edits kept as corrections


def adapt(
    request: AdaptRequest,
    *,
    settings: BabelflowSettings | None = None,
    progress: Callable[[str], None] | None = None,
    translation_progress: Callable[[int, int], None] | None = None,
    ir: IRDocument | None = None,
    costs=None,
) -> AdaptResult:
    """Resolve the request's run (flows/run_setup.py), then adapt it (`adapt_run`)."""
    run = resolve_run(settings or BabelflowSettings(), request)
    return adapt_run(run, progress=progress, translation_progress=translation_progress, ir=ir, costs=costs)


def adapt_run(
    run: AdaptationRun,
    *,
    progress: Callable[[str], None] | None = None,
    translation_progress: Callable[[int, int], None] | None = None,
    ir: IRDocument | None = None,
    costs=None,
    superseded_hand_edits: frozenset[str] = frozenset(),
) -> AdaptResult:
    """Run analyze → translate → rebuild; `ir` skips analysis when the caller already holds it.
    Hand edits of the variant are kept as corrections first, except of `superseded_hand_edits` (units a
    correction or import being applied replaces).

    `costs`: a babelflow.llm.costs.CostLedger that receives a model translator's token usage."""
    settings = run.settings
    translator = make_translator(run.request.translator, run.language, run.pack, costs=costs)
    bench = get_benchmark(run.benchmark, source_dir=run.source_dir)
    with (
        run_lock(settings.layout.locks(), run.benchmark, run.language),
        owned_output(settings, bench, run.language, run.paths.variant),
    ):
        progress = progress or (lambda message: None)
        return _adapt_locked(run, bench, translator, ir, progress, translation_progress, superseded_hand_edits)


def _adapt_locked(
    run: AdaptationRun,
    bench: SourceBenchmark,
    translator: Translator,
    ir: IRDocument | None,
    progress: Callable[[str], None],
    translation_progress: Callable[[int, int], None] | None,
    superseded_hand_edits: frozenset[str],
) -> AdaptResult:
    paths = run.paths
    if ir is None:
        ir = analyze_or_reuse(bench, run.profile, paths.ir, progress)
    elif ir.benchmark != run.benchmark:
        raise BabelflowError(f"IR is for {ir.benchmark}, not {run.benchmark}", field="ir", fix="analyze this benchmark")
    adopted = adopt_hand_edits(run, ir, superseded=superseded_hand_edits)  # the rebuild would write over them
    try:
        progress("translating")
        reviewed = orjson.loads(paths.reviewed.read_bytes()) if paths.reviewed.exists() else {}
        applying = superseded_hand_edits  # the units a correction or import applies now: refused, not set aside
        outcome, cmap = translate_ir(run, translator, ir, reviewed, [], translation_progress, applying=applying)
        progress("rebuilding")
        build = variant_build(run, translator.translator_id, cmap.version(), len(outcome.failures), run.pack_version)
        manifest = rebuild_variant(bench, ir, outcome.targets, paths.variant, build, canonical_map=cmap)
    except BaseException:  # a refused (or interrupted) run says "nothing was written": the adopted edits go too
        adopted.undo()
        raise
    record_written_targets(run, outcome.targets)
    voided = void_stale_signoff(paths.variant, paths.review_dir)
    return AdaptResult(
        ir=ir, outcome=outcome, manifest=manifest, paths=paths, voided_signoff=voided, hand_edits=adopted.lines
    )
