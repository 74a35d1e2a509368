"""The Prefect DAG: adapt_language (one language, looped review rounds) and adapt_languages.

Its stages are tasks (flows/pipeline/stage_tasks.py), its review rounds flows/pipeline/rounds.py.
Tasks are coarse — one per stage and one per validation layer — and cache on their real inputs
(source hashes, IR and profile hash, reviewed canonical entries, translator id, stage code
version). Results persist under the state folder, so an unchanged rerun executes nothing and a
fix reruns only what it touches. Failed work fails the flow: every future is resolved with
`.result()`, which raises.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from uuid import UUID

from prefect import flow, get_run_logger
from prefect.artifacts import create_markdown_artifact
from prefect.client.orchestration import get_client
from prefect.runtime import flow_run as current_flow_run
from prefect.states import Completed, Crashed, Failed, State

from babelflow.adapt_request import AdaptRequest
from babelflow.adaptation_run import AdaptationRun
from babelflow.errors import BabelflowError
from babelflow.run_lock import run_lock
from babelflow.settings import BabelflowSettings
from flows.components import owned_output
from flows.pipeline.evaluation_stage import (
    EvaluationConfig,
    check_evaluation,
    evaluation_config,
    evaluation_key,
)
from flows.pipeline.flow_results import AdaptFlowResult, final_state, outcome
from flows.pipeline.progress_views import prefect_progress
from flows.pipeline.rounds import artifact_key, review_rounds
from flows.pipeline.run_guard import admitted_request
from flows.pipeline.shared_run import shared_run
from flows.pipeline.stage_tasks import call_stage, evaluate_task
from flows.review.hand_edits import adopt_hand_edits
from flows.run_setup import resolve_run
from source_benchmarks import get_benchmark


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
        hand_edits = adopt_hand_edits(run).lines  # kept as corrections before a round rebuilds over them
        for line in hand_edits:
            get_run_logger().warning(line)
        result = review_rounds(run).model_copy(update={"hand_edits": hand_edits})
        if evaluation is not None and result.status in ("signed", "awaiting_signoff"):
            result = _evaluate(run, result, evaluation)
        return final_state(result)


def _evaluate(run: AdaptationRun, result: AdaptFlowResult, config: EvaluationConfig) -> AdaptFlowResult:
    """The evaluation stage on a variant with no open findings; cached on the variant and the specs."""
    variant = result.variant_dir
    outcome, cached = call_stage(
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


def _finished_or_raise(languages: list[str], states: list[State]) -> list[AdaptFlowResult]:
    """Every language's result; if one raised, an error naming each failure with its cause and fix, and how
    the others ended, so one language's error never hides the rest of the batch."""
    results: list[AdaptFlowResult] = []
    failed: list[str] = []
    for language, state in zip(languages, states, strict=True):
        try:
            results.append(outcome(state))
        except Exception as exc:  # noqa: BLE001 - reported whole below, with the others' states
            failed.append(f"{language}: {exc.render() if isinstance(exc, BabelflowError) else repr(exc)}")
    if not failed:
        return results
    others = "; ".join(f"{r.language}: {r.status}" for r in results) or "none"
    raise BabelflowError(
        f"{len(failed)} of {len(languages)} languages failed:\n" + "\n".join(failed) + f"\nthe others ended: {others}",
        field="--lang",
        fix="fix what each failure names, then rerun the flow; the languages that ended resume from their cache",
    )


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
    results = _finished_or_raise(languages, states)  # a language whose run raised fails this flow too
    worst = max(states, key=lambda state: (state.is_failed(), state.name == "AwaitingSignoff"))
    message = "; ".join(f"{r.language}: {state.name}" for r, state in zip(results, states, strict=True))
    make = Failed if worst.is_failed() else Completed
    return make(name=worst.name, message=message, data=results)
