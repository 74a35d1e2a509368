"""The Prefect DAG: adapt_language (one language, looped review rounds) and adapt_languages.

Tasks are coarse — one per stage and one per validation layer — and cache on their real inputs
(source hashes, IR and profile hash, reviewed canonical entries, translator id, stage code
version). Results persist under the state folder, so an unchanged rerun executes nothing and a
fix reruns only what it touches. Failed work fails the flow: every future is resolved with
`.result()`, which raises.
"""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Literal
from uuid import UUID

import orjson
from prefect import flow, get_run_logger, task
from prefect.artifacts import create_markdown_artifact, create_table_artifact
from prefect.cache_policies import NO_CACHE
from prefect.client.orchestration import get_client
from prefect.exceptions import FlowPauseTimeout
from prefect.flow_runs import pause_flow_run
from prefect.futures import wait
from prefect.runtime import flow_run as current_flow_run
from prefect.settings import get_current_settings
from prefect.states import Completed, Crashed, Failed, State
from pydantic import Field

from analyzers.profile import ElementOverride
from babelflow.adapt_request import AdaptRequest
from babelflow.adaptation_run import AdaptationRun
from babelflow.atomic_io import write_bytes_atomic
from babelflow.errors import BabelflowError
from babelflow.ir import PreserveReason, Record, TranslationType
from babelflow.llm.costs import CostReport, publish_costs
from babelflow.run_lock import run_lock
from babelflow.settings import BabelflowSettings
from flows.code_fingerprint import stage_code
from flows.components import owned_output
from flows.pipeline import stages
from flows.pipeline.evaluation_stage import (
    EvaluationConfig,
    EvaluationStageResult,
    check_evaluation,
    evaluation_config,
    evaluation_key,
    stage_evaluate,
)
from flows.pipeline.progress_views import prefect_progress
from flows.pipeline.reporting import failure_report_markdown, failure_table_rows, units_made_by
from flows.pipeline.run_guard import admitted_request
from flows.pipeline.shared_run import checkpoint, portable, project_key, provider_slots, shared_run
from flows.review.forms import ask_for_review, signoff_form
from flows.review.hand_edits import adopt_hand_edits
from flows.review.material import review_material_markdown, signoff_material_markdown
from flows.review.named_pause import pause_named
from flows.review.signoff import Signer, sign_off, signing_tier, void_stale_signoff
from flows.review.signoff_sample import sign_sample
from flows.review.store import ReviewStore
from flows.review.workbench import Workbench
from flows.run_setup import resolve_run
from source_benchmarks import get_benchmark
from validators.findings import FailureSet, Layer, Severity


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
        project = stages.key_of(project_key(settings))  # on a pool: the shared namespace, whatever the folder
        return f"{stage}-{stages.STAGE_VERSIONS[stage]}-{stage_code(stage)}-{project}-{parameters['cache_key']}"

    return task(name=stage, cache_key_fn=key_fn, persist_result=True, task_run_name=stage_run_name(stage, layer))


@_cached("analyze")
def analyze_task(cache_key: str, run: AdaptationRun) -> stages.AnalyzeResult:
    get_run_logger().info(f"analyzing {run.benchmark}: runtime trace of every task's golden replay")
    return stages.stage_analyze(run)


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
def integrity_task(cache_key: str, run: AdaptationRun, ir_path: Path, variant: Path) -> stages.LayerResult:
    return stages.stage_integrity(run, ir_path, variant)


@_cached("validate")
def layer_task(
    cache_key: str, run: AdaptationRun, layer: Layer, ir_path: Path, variant: Path, suppressed: list
) -> stages.LayerResult:
    result = stages.stage_layer(run, layer, ir_path, variant, suppressed)
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
def merge_task(run: AdaptationRun, layers: list[stages.LayerResult], ir_path: Path, variant: Path) -> FailureSet:
    return stages.stage_merge(run, layers, ir_path, variant)


class StageRun(Record):
    stage: str
    cached: bool


class RoundRecord(Record):
    round: int
    stages: list[StageRun]
    findings: int
    retranslated_units: int = Field(description="units the translator made afresh this round")
    segments_sent: int = Field(default=0, description="unique texts sent for them (units may share one)")
    tasks_replayed: int
    units_by_origin: dict[str, int] = Field(
        default_factory=dict,
        description="who made the variant's translation units (translator id, memory, canonical map, reviewed)",
    )


class AdaptFlowResult(Record):
    benchmark: str
    language: str
    status: Literal["signed", "awaiting_review", "awaiting_signoff", "rounds_exhausted"]
    rounds: list[RoundRecord]
    open_findings: list[str]
    variant_dir: Path
    flow_run_id: str = Field(default="", description="the adapt-language flow run (UI: runs/flow-run/<id>)")
    report_artifact_key: str = Field(
        default="", description="key of the failure-report artifact (UI: artifacts/key/<key>, its versions)"
    )
    report_artifact_id: str = Field(
        default="", description="the last round's failure report (UI: artifacts/artifact/<id>, the report itself)"
    )
    evaluation_report: Path | None = Field(
        default=None, description="the evaluation stage's report (adapted/<benchmark>/<lang>.evaluation.json)"
    )
    evaluation_cached: bool = False
    timed_out: bool = Field(default=False, description="nobody answered the review or sign-off form in time")
    hand_edits: list[str] = Field(
        default_factory=list,
        description="the variant's hand edits this run kept as corrections (flows/review/hand_edits.py)",
    )


# a run's final state names what it waits for, so a Prefect user reads and filters it at a glance; open
# findings are never a green Completed: FAILED type (red) until review, COMPLETED only without findings
FINAL_STATES: dict[str, tuple[Any, str]] = {
    "signed": (Completed, "Signed"),
    "awaiting_signoff": (Completed, "AwaitingSignoff"),
    "awaiting_review": (Failed, "AwaitingReview"),
    "rounds_exhausted": (Failed, "RoundsExhausted"),
}


def final_state(result: AdaptFlowResult) -> State[AdaptFlowResult]:
    """The named final state of one language's run, carrying its AdaptFlowResult (see `outcome`)."""
    make, name = FINAL_STATES[result.status]
    if result.timed_out and result.status == "awaiting_review":
        name = "ReviewTimedOut"
    where = f"{result.benchmark} {result.language}"
    messages = {
        "Signed": f"{where}: signed",
        "AwaitingSignoff": f"{where}: no open findings, awaits sign-off: babelflow review {result.benchmark} "
        f"--lang {result.language} --sign" + (" (the sign-off form timed out)" if result.timed_out else ""),
        "AwaitingReview": f"{where}: {len(result.open_findings)} open findings await review: "
        f"babelflow review {result.benchmark} --lang {result.language}, then rerun",
        "ReviewTimedOut": f"{where}: nobody answered the review form in time; {len(result.open_findings)} "
        f"open findings: babelflow review {result.benchmark} --lang {result.language}, then rerun",
        "RoundsExhausted": f"{where}: findings remain after {len(result.rounds)} rounds",
    }
    return make(name=name, message=messages[name], data=result)


def outcome(state: State) -> AdaptFlowResult:
    """The AdaptFlowResult of a run called with return_state=True, whatever its named final state;
    a run that raised re-raises here."""
    value = state.result(raise_on_failure=False)
    if isinstance(value, AdaptFlowResult):
        return value
    if isinstance(value, BaseException):
        raise value
    state.result()  # any other failed state raises its own error
    raise TypeError(f"adapt-language returned {type(value).__name__}, not AdaptFlowResult")


def _call(task_fn, **kwargs):
    """Run a cached task, refreshing its cache when its output file is gone; returns (result, cached)."""
    with provider_slots(kwargs.get("run"), task_fn.name):
        state = task_fn(**kwargs, return_state=True)
    result = state.result()  # raises if the task failed: failures never pass silently
    checkpoint()  # on a pool: what the stage wrote is shared before the next one starts
    return result, state.name == "Cached"


def _one_round(
    run: AdaptationRun, reviewed: dict[str, str], forget: list[str], record: RoundRecord
) -> tuple[FailureSet, Path]:
    paths = run.paths
    analysis, cached = _call(
        analyze_task.with_options(refresh_cache=not paths.ir.exists()),
        cache_key=stages.analyze_inputs_key(run),
        run=run,
    )
    # a cached result names the folder of the worker that made it: this run's own paths hold the same files
    analysis = analysis.model_copy(update={"ir_path": paths.ir})
    record.stages.append(StageRun(stage="analyze", cached=cached))
    # confirmed translation findings are cumulative inputs: the memory they purged stays purged
    history = sorted(
        f"{d.finding_id}@{d.at}"
        for d in ReviewStore(paths.review_dir).decisions()
        if d.decision == "confirm" and d.route == "translation"
    )
    translate_key = stages.translate_inputs_key(run, analysis.ir_sha256, reviewed) + stages.key_of(history)
    translated, cached = _call(
        translate_task.with_options(refresh_cache=not paths.targets.exists()),
        cache_key=translate_key,
        run=run,
        ir_path=analysis.ir_path,
        reviewed=reviewed,
        forget=forget,
    )
    translated = translated.model_copy(update={"targets_path": paths.targets})
    record.stages.append(StageRun(stage="translate", cached=cached))
    record.retranslated_units = 0 if cached else translated.retranslated_units
    record.segments_sent = 0 if cached else translated.stats.segments_sent
    record.units_by_origin = dict(translated.stats.units_by_origin)
    rebuild_key = stages.key_of(
        analysis.ir_sha256,
        translated.targets_sha256,
        translated.canonical_map_version,
        portable(paths.variant, run.settings),
    )
    rebuilt, cached = _call(
        rebuild_task.with_options(refresh_cache=not stages.variant_intact(paths.variant)),
        cache_key=rebuild_key,
        run=run,
        ir_path=analysis.ir_path,
        translated=translated,
    )
    rebuilt = rebuilt.model_copy(update={"variant_dir": paths.variant})
    record.stages.append(StageRun(stage="rebuild", cached=cached))
    if voided := void_stale_signoff(paths.variant, paths.review_dir):  # a rebuild that changed signed files
        get_run_logger().warning(voided)
    base = stages.key_of(analysis.ir_sha256, rebuilt.manifest_sha256, translated.canonical_map_version)
    ir_path, variant = analysis.ir_path, rebuilt.variant_dir
    integrity, cached = _call(integrity_task, cache_key=base + "-integrity", run=run, ir_path=ir_path, variant=variant)
    record.stages.append(StageRun(stage="validate:integrity", cached=cached))
    futures = {
        layer: layer_task.submit(
            cache_key=f"{base}-{layer.value}",
            run=run,
            layer=layer,
            ir_path=ir_path,
            variant=variant,
            suppressed=integrity.suppressed,
            return_state=False,
        )
        for layer in (Layer.CONSISTENCY, Layer.FIDELITY, Layer.BEHAVIOR)
    }
    with provider_slots(run, "validate"):
        wait(list(futures.values()))
    checkpoint()
    layers = [integrity, stages.translation_failures(translated, ir_path, run.benchmark)]
    for layer, future in futures.items():
        layers.append(future.result())  # raises on failure
        record.stages.append(StageRun(stage=f"validate:{layer.value}", cached=future.state.name == "Cached"))
        if layer is Layer.BEHAVIOR and future.state.name != "Cached":
            record.tasks_replayed = layers[-1].tasks_replayed
    failures = merge_task(run=run, layers=layers, ir_path=ir_path, variant=variant)
    _publish_costs(run.settings, run.benchmark, run.language)
    record.findings = len(failures.findings)
    return failures, rebuilt.variant_dir


def _publish_costs(settings: BabelflowSettings, benchmark: str, language: str) -> None:
    """Token usage of model translators/validators (per stage, language, provider) as a table artifact."""
    rows = []
    for stage in ("translate", "validate"):
        path = stages.costs_path(settings, benchmark, language, stage)
        if path.exists():
            rows += CostReport.model_validate_json(path.read_bytes()).rows
    if rows:
        publish_costs(CostReport(rows=rows), key=f"{artifact_key(benchmark, language)}-costs")


def artifact_key(benchmark: str, language: str) -> str:
    """Prefect artifact keys allow lowercase letters, digits and dashes only (a domain package's
    id `tau2-pkg:acme_tasks` holds a colon and an underscore)."""
    return re.sub(r"[^a-z0-9]+", "-", f"{benchmark}-{language}".lower()).strip("-")


def _ui_url(path: str) -> str | None:
    """A UI address for the run's API (None on Prefect's ephemeral API, which has no lasting UI)."""
    ui = get_current_settings().ui_url
    return f"{ui.rstrip('/')}/{path}" if ui else None


def _publish(
    run: AdaptationRun, round_no: int, failures: FailureSet, variant: Path, units_by_origin: dict[str, int]
) -> tuple[str, str | None]:
    """The round's failure report, findings table and (with findings) the review material; returns the
    report's artifact id and the review material's UI address (None on the ephemeral API or without
    findings)."""
    key = artifact_key(run.benchmark, run.language)
    made_by = "Translation units made by: " + (units_made_by(units_by_origin) or "—")
    report = create_markdown_artifact(
        key=f"{key}-failure-report",
        markdown=failure_report_markdown(failures, round_no, variant, made_by),
        description=f"round {round_no}",
    )
    create_table_artifact(
        key=f"{key}-findings",
        table=failure_table_rows(failures) or [{"finding": "none"}],
        description=f"round {round_no}",
    )
    if not failures.findings:
        return str(report), None
    material = create_markdown_artifact(
        key=f"{key}-review",
        markdown=review_material_markdown(failures, round_no, _workbench(run)),
        description=f"round {round_no}: what to read before deciding",
    )
    return str(report), _ui_url(f"artifacts/artifact/{material}")


def _workbench(run: AdaptationRun) -> Workbench | None:
    """The units as the round wrote them (context, provenance, checks) for the reviewer's reading."""
    try:
        return Workbench.load(run)
    except BabelflowError as error:  # the reading falls back to the findings' own evidence
        get_run_logger().warning(f"review material without unit context: {error}")
        return None


def apply_decisions(run: AdaptationRun, store: ReviewStore) -> tuple[dict[str, str], list[str]]:
    """Route confirmed findings: analysis → profile override; translation → retranslate / reviewer text."""
    paths = run.paths
    reviewed_path = paths.reviewed
    reviewed: dict[str, str] = orjson.loads(reviewed_path.read_bytes()) if reviewed_path.exists() else {}
    overrides = stages.load_overrides(paths.overrides)
    forget: list[str] = []
    pending = store.unapplied_confirmations()
    for decision in pending:
        if decision.element_id is None:
            continue
        if decision.route == "analysis":
            reason = decision.preserve_reason
            overrides = [o for o in overrides if o.element != decision.element_id] + [
                ElementOverride(
                    element=decision.element_id,
                    type=TranslationType.PRESERVE,
                    reason=reason or PreserveReason.LINKED_ENTITY,
                    note=f"review {decision.finding_id} by {decision.reviewer}: {decision.note}",
                )
            ]
        elif decision.replacement:
            reviewed[decision.element_id] = decision.replacement
        else:
            forget.append(decision.element_id)
    write_bytes_atomic(paths.overrides, orjson.dumps([o.model_dump(mode="json") for o in overrides]))
    write_bytes_atomic(reviewed_path, orjson.dumps(reviewed))
    store.mark_applied(pending)
    return reviewed, forget


def _language_run_name() -> str:
    request = AdaptRequest.model_validate(current_flow_run.parameters["request"])
    return f"{request.benchmark} · {request.language}"


@flow(name="adapt-language", log_prints=True, flow_run_name=_language_run_name)
def adapt_language(request: AdaptRequest) -> State[AdaptFlowResult]:
    """analyze → translate → rebuild → validate (4 layers) → merge → review, until no findings; then
    sign off, and (with an evaluation asked) run agents on the variant and its source.

    Ends in a named state (FINAL_STATES) carrying the AdaptFlowResult: call it with return_state=True
    and read the result with `outcome(state)` (a direct call raises on AwaitingReview)."""
    # a deployment's run may not name endpoints, paths or code of its own (flows/pipeline/run_guard.py)
    request = admitted_request(request, BabelflowSettings())
    root = request.project_root
    settings = BabelflowSettings(project_root=root) if root else BabelflowSettings()
    evaluation = evaluation_config(request.evaluation)
    run = resolve_run(settings, request)  # resolved once (language, pack, translator, paths): every stage reads it
    if evaluation is not None:
        check_evaluation(run, evaluation)
    # one writer per output folder (flows/components.py); the same language twice is refused; a run
    # the lock outlived (killed) is marked Crashed in the UI
    benchmark, flow_run_id = run.benchmark, str(current_flow_run.id)
    with (
        run_lock(settings.layout.locks(), benchmark, run.language, holder=flow_run_id) as previous,
        owned_output(settings, get_benchmark(benchmark, source_dir=run.source_dir), run.language, run.paths.variant),
        prefect_progress(),
        shared_run(settings, benchmark, run.language, flow_run_id) as killed_on_pool,
    ):
        if killed := mark_killed_run_crashed(killed_on_pool or previous, flow_run_id):
            get_run_logger().warning(f"flow run {killed} was killed mid-run: marked Crashed")
        hand_edits = adopt_hand_edits(run)  # kept as corrections before a round rebuilds over them
        for line in hand_edits:
            get_run_logger().warning(line)
        result = _rounds(run).model_copy(update={"hand_edits": hand_edits})
        if evaluation is not None and result.status in ("signed", "awaiting_signoff"):
            result = _evaluate(run, result, evaluation)
        return final_state(result)


def _evaluate(run: AdaptationRun, result: AdaptFlowResult, config: EvaluationConfig) -> AdaptFlowResult:
    """The evaluation stage on a variant with no open findings; cached on the variant and the specs."""
    variant = result.variant_dir
    outcome, cached = _call(
        evaluate_task, cache_key=evaluation_key(variant, config), run=run, variant=variant, config=config
    )
    key = artifact_key(run.benchmark, run.language)
    create_markdown_artifact(
        key=f"{key}-evaluation", markdown=outcome.markdown, description="agents on the variant and its source"
    )
    get_run_logger().info(f"evaluation report: {outcome.report}" + (" (cached: nothing changed)" if cached else ""))
    return result.model_copy(update={"evaluation_report": outcome.report, "evaluation_cached": cached})


def mark_killed_run_crashed(previous_holder: str, current_run_id: str) -> str | None:
    """A record left in the lock means its holder was killed (one that ends clears it). If that flow run
    still reads Running, Paused or Pending, say so in the UI (Crashed). Returns the run id marked."""
    _, _, run_id = previous_holder.partition(" ")
    if not run_id or run_id == current_run_id:
        return None
    try:
        stale = UUID(run_id)
    except ValueError:
        return None
    with get_client(sync_client=True) as client:
        try:
            run = client.read_flow_run(stale)
        except Exception:  # another Prefect database (PREFECT_API_URL changed): nothing to mark here
            return None
        if run.state is None or not (run.state.is_running() or run.state.is_paused() or run.state.is_pending()):
            return None
        message = (
            f"its process ended without finishing (lock taken over by flow run {current_run_id}); "
            "rerun to resume from the cached stages"
        )
        try:
            client.set_flow_run_state(stale, Crashed(message=message), force=True)
        except Exception:  # best effort: a UI label must never stop the new run
            return None
    return run_id


def _rounds(run: AdaptationRun) -> AdaptFlowResult:
    logger = get_run_logger()
    review_timeout, max_rounds = run.request.review.timeout, run.request.review.max_rounds
    benchmark, language = run.benchmark, run.language
    store = ReviewStore(run.paths.review_dir)
    rounds: list[RoundRecord] = []
    variant = Path(".")
    run_url = _ui_url(f"runs/flow-run/{current_flow_run.id}")  # Prefect logs it once already ("View at")
    ids: dict[str, Any] = {
        "flow_run_id": str(current_flow_run.id),
        "report_artifact_key": f"{artifact_key(benchmark, language)}-failure-report",
    }
    for round_no in range(1, max_rounds + 1):
        reviewed, forget = apply_decisions(run, store)
        record = RoundRecord(round=round_no, stages=[], findings=0, retranslated_units=0, tasks_replayed=0)
        failures, variant = _one_round(run, reviewed, forget, record)
        rounds.append(record)
        store.save_queue(failures, str(current_flow_run.id))
        ids["report_artifact_id"], material_url = _publish(run, round_no, failures, variant, record.units_by_origin)
        notes = [f for f in failures.findings if f.severity is Severity.NOTE]
        open_findings = [f for f in failures.findings if f.severity is not Severity.NOTE]
        logger.info(f"round {round_no}: {len(open_findings)} open findings, {len(notes)} notes")
        if not open_findings:  # notes record a policy (values kept as they are): read at sign-off, no decision
            return _sign(run, variant, store, rounds, ids, run_url)
        if review_timeout <= 0:
            logger.warning("unattended run: review queue persisted; run `babelflow review` then rerun")
            return AdaptFlowResult(
                benchmark=benchmark,
                language=language,
                status="awaiting_review",
                rounds=rounds,
                open_findings=[f.id for f in failures.findings],
                variant_dir=variant,
                **ids,
            )
        if run_url:
            logger.info(f"review form (open the paused run, then Resume): {run_url}")
        if material_url:
            logger.info(f"review material (source and target of every group): {material_url}")
        decisions = ask_for_review(failures, round_no, review_timeout, material_url)
        if decisions is None:
            return AdaptFlowResult(
                benchmark=benchmark,
                language=language,
                status="awaiting_review",
                rounds=rounds,
                open_findings=[f.id for f in failures.findings],
                variant_dir=variant,
                timed_out=True,
                **ids,
            )
        store.append_many(decisions, failures)
    return AdaptFlowResult(
        benchmark=benchmark,
        language=language,
        status="rounds_exhausted",
        rounds=rounds,
        open_findings=[],
        variant_dir=variant,
        **ids,
    )


def _sign(
    run: AdaptationRun,
    variant: Path,
    store: ReviewStore,
    rounds: list[RoundRecord],
    ids: dict[str, Any],
    run_url: str | None,
) -> AdaptFlowResult:
    benchmark, language = run.benchmark, run.language
    result = AdaptFlowResult(
        benchmark=benchmark,
        language=language,
        status="awaiting_signoff",
        rounds=rounds,
        open_findings=[],
        variant_dir=variant,
        **ids,
    )
    review_timeout = run.request.review.timeout
    if review_timeout <= 0:
        return result
    # the stratified sample a reviewer reads and signs for, as `babelflow review --sign` draws it
    bench = Workbench.load(run)
    sample = sign_sample(bench)
    translator_id, tier = signing_tier(bench)
    material = create_markdown_artifact(
        key=f"{artifact_key(benchmark, language)}-signoff-sample",
        markdown=signoff_material_markdown(sample, benchmark, language, translator_id, tier),
        description=f"sign-off sample: {sample.sample_size} of {sample.lot_size} units",
    )
    material_url = _ui_url(f"artifacts/artifact/{material}")
    if run_url:
        get_run_logger().info(f"sign-off form (open the paused run, then Resume): {run_url}")
    if material_url:
        get_run_logger().info(f"sign-off sample ({sample.sample_size} units side by side): {material_url}")
    read = f"[the sample, source and target side by side]({material_url})" if material_url else "the sample artifact"
    form = signoff_form(
        f"**No open findings.** Translator {translator_id} ({tier}). Read {read}: "
        f"{sample.sample_size} of {sample.lot_size} units drawn by role and risk (ISO 2859-1 level II, "
        f"letter {sample.code_letter}). Correct a unit with `babelflow correct {benchmark} --lang {language} "
        '--id ID --text "…"`, then approve.'
    )
    try:
        with pause_named("AwaitingSignoff"):
            answer = pause_flow_run(
                wait_for_input=form, timeout=review_timeout, poll_interval=2, key=f"signoff-{len(rounds)}"
            )
    except FlowPauseTimeout:
        return result.model_copy(update={"timed_out": True})
    if not answer.approve:
        return result
    signer = Signer(reviewer=answer.reviewer, note=answer.note, flow_run_id=str(current_flow_run.id))
    sign_off(bench, store, sample, signer)
    return result.model_copy(update={"status": "signed"})


def _languages_run_name() -> str:
    parameters = current_flow_run.parameters
    return f"{AdaptRequest.model_validate(parameters['request']).benchmark} · {', '.join(parameters['languages'])}"


@flow(name="adapt-languages", flow_run_name=_languages_run_name)
def adapt_languages(
    request: AdaptRequest, languages: list[str], max_concurrency: int = 2
) -> State[list[AdaptFlowResult]]:
    """One adapt_language subflow per language (the request, in each language), at most `max_concurrency`
    at a time. Ends in the state of the language that waits longest (AwaitingReview over AwaitingSignoff
    over Signed), its message naming each language's state; read the results with `outcomes(state)`."""
    request = admitted_request(request, BabelflowSettings())  # a deployment's run: flows/pipeline/run_guard.py
    with ThreadPoolExecutor(max_workers=max_concurrency) as pool:
        futures = [
            pool.submit(adapt_language, request.for_language(language), return_state=True) for language in languages
        ]
        states = [f.result() for f in futures]
    results = [outcome(state) for state in states]  # a language whose run raised fails this flow too
    worst = max(states, key=lambda state: (state.is_failed(), state.name == "AwaitingSignoff"))
    message = "; ".join(f"{r.language}: {state.name}" for r, state in zip(results, states, strict=True))
    make = Failed if worst.is_failed() else Completed
    return make(name=worst.name, message=message, data=results)


def outcomes(state: State) -> list[AdaptFlowResult]:
    """The per-language results of an adapt-languages run called with return_state=True."""
    value = state.result(raise_on_failure=False)
    if isinstance(value, BaseException):
        raise value
    return list(value)
