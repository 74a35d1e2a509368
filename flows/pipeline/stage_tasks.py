"""The flow's stages as Prefect tasks: coarse (one per stage and one per validation layer), named by stage,
layer and language, and cached on the `cache_key` the flow computes from their real inputs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from prefect import get_run_logger, task
from prefect.cache_policies import NO_CACHE

from babelflow.adaptation_run import AdaptationRun
from flows.code_fingerprint import stage_code
from flows.pipeline import stage_io, stages, validation_stages
from flows.pipeline.evaluation_stage import (
    EvaluationConfig,
    EvaluationStageResult,
    stage_evaluate,
)
from flows.pipeline.result_store import result_model, stage_result_options
from flows.pipeline.shared_run import checkpoint, project_key, provider_slots
from flows.pipeline.terms_stage import TermsResult, stage_terms
from validators.findings import FailureSet, Layer


def stage_run_name(stage: str, layer: str = ""):
    """Task run names say the stage, the validation layer and the language (`validate:fidelity · es`)."""

    def name(parameters: dict[str, Any]) -> str:
        given = parameters.get("layer")
        run = parameters.get("run")
        label = f"{stage}:{given.value if isinstance(given, Layer) else layer}" if layer or given else stage
        return f"{label} · {run.language}" if isinstance(run, AdaptationRun) else label

    return name


def _cached(stage: str, layer: str = ""):
    """A task whose cache key is the `cache_key` parameter the flow computed from real inputs."""

    def key_fn(context, parameters):
        # results hold paths into one project's state folder (the IR, targets, the variant): a result
        # store shared by two projects (one process, or a global PREFECT_LOCAL_STORAGE_PATH) must not
        # hand one project the other's paths
        settings = parameters["run"].settings if "run" in parameters else parameters["settings"]
        project = stage_io.key_of(project_key(settings))  # on a pool: the shared namespace, whatever the folder
        return f"{stage}-{stage_io.STAGE_VERSIONS[stage]}-{stage_code(stage)}-{project}-{parameters['cache_key']}"

    return task(name=stage, cache_key_fn=key_fn, persist_result=True, task_run_name=stage_run_name(stage, layer))


@_cached("analyze")
def analyze_task(cache_key: str, run: AdaptationRun) -> stages.AnalyzeResult:
    get_run_logger().info(f"analyzing {run.benchmark}: runtime trace of every task's golden replay")
    return stages.stage_analyze(run)


@_cached("terms")
def terms_task(cache_key: str, run: AdaptationRun, ir_path: Path) -> TermsResult:
    result = stage_terms(run, ir_path)
    by_class = ", ".join(f"{group} {n}" for group, n in sorted(result.doubtful_by_class.items()))
    get_run_logger().info(
        f"{result.terms} terms: {result.doubtful} doubtful{f' ({by_class})' if by_class else ''},"
        f" {result.approved} approved by a reviewer"
    )
    return result


@_cached("translate")
def translate_task(
    cache_key: str, run: AdaptationRun, ir_path: Path, reviewed: dict[str, str], forget: list[str]
) -> stages.TranslateResult:
    result = stages.stage_translate(run, ir_path, reviewed, forget)
    stats = result.stats
    from_memory = sum(n for origin, n in stats.units_by_origin.items() if origin.endswith("(memory)"))
    get_run_logger().info(
        f"{sum(stats.units_by_origin.values())} units: {result.retranslated_units} translated now"
        f" ({stats.segments_sent} segments sent to {stats.translator_id}), {from_memory} from translation memory,"
        f" {len(result.failures)} failed"
    )
    return result


@_cached("rebuild")
def rebuild_task(
    cache_key: str, run: AdaptationRun, ir_path: Path, translated: stages.TranslateResult
) -> stages.RebuildResult:
    return stages.stage_rebuild(run, ir_path, translated)


@_cached("validate", layer="integrity")
def integrity_task(cache_key: str, run: AdaptationRun, ir_path: Path, variant: Path) -> validation_stages.LayerResult:
    return validation_stages.stage_integrity(run, ir_path, variant)


@_cached("validate")
def layer_task(
    cache_key: str, run: AdaptationRun, layer: Layer, ir_path: Path, variant: Path, suppressed: list
) -> validation_stages.LayerResult:
    result = validation_stages.stage_layer(run, layer, ir_path, variant, suppressed)
    reused = result.tasks_replayed - result.variant_replays_run  # the progress bar counts the replays run
    replayed = (
        f", {result.tasks_replayed} tasks compared ({result.variant_replays_run} variant replays run,"
        f" {reused} reused: their replay inputs did not change)"
        if layer is Layer.BEHAVIOR
        else ""
    )
    get_run_logger().info(f"{layer.value}: {len(result.findings)} findings{replayed}")
    return result


@_cached("evaluate")
def evaluate_task(cache_key: str, run: AdaptationRun, variant: Path, config: EvaluationConfig) -> EvaluationStageResult:
    get_run_logger().info(f"evaluating agents on {run.benchmark} {run.language}: {config.agent} / {config.user}")
    return stage_evaluate(run, variant, config)


@task(name="merge", cache_policy=NO_CACHE, task_run_name=stage_run_name("merge"))
def merge_task(
    run: AdaptationRun, layers: list[validation_stages.LayerResult], ir_path: Path, variant: Path
) -> FailureSet:
    return validation_stages.stage_merge(run, layers, ir_path, variant)


for _model in (
    stages.AnalyzeResult,
    TermsResult,
    stages.TranslateResult,
    stages.RebuildResult,
    validation_stages.LayerResult,
    EvaluationStageResult,
):
    result_model(_model)  # what the result store may load back (JSON, never pickle)


def stored(task_fn):
    """The cached task with babelflow's result store: JSON records, read back only when babelflow wrote them."""
    return task_fn.with_options(**stage_result_options())


def call_stage(task_fn, **kwargs):
    """Run a cached task, refreshing its cache when its output file is gone; returns (result, cached)."""
    with provider_slots(kwargs.get("run"), task_fn.name):
        state = stored(task_fn)(**kwargs, return_state=True)
    result = state.result()  # raises if the task failed: failures never pass silently
    checkpoint()  # on a pool: what the stage wrote is shared before the next one starts
    return result, state.name == "Cached"
