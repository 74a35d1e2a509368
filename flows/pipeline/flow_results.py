"""What a flow run ends with: per-round records, the language's AdaptFlowResult, and the named final state
that carries it (AwaitingReview, AwaitingSignoff, Signed, ...)."""

from __future__ import annotations

from contextlib import nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from prefect.states import Completed, Failed, State
from pydantic import Field

from babelflow.ir import Record

if TYPE_CHECKING:
    from babelflow.settings import BabelflowSettings
    from flows.review.signoff_log import SignoffDecision


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
    doubtful_terms: int = Field(default=0, description="term renderings the terms stage found doubtful")
    term_decisions: int = Field(default=0, description="term decisions recorded at the terms stage of this round")
    units_by_origin: dict[str, int] = Field(
        default_factory=dict,
        description="who made the variant's translation units (translator id, memory, canonical map, reviewed)",
    )


FlowStatus = Literal["signed", "signoff_rejected", "awaiting_review", "awaiting_signoff", "rounds_exhausted"]


class AdaptFlowResult(Record):
    benchmark: str
    language: str
    status: FlowStatus
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
    "signoff_rejected": (Failed, "SignoffRejected"),
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
        "SignoffRejected": f"{where}: the sign-off sample was rejected; {len(result.open_findings)} failing unit(s)"
        f" queued: babelflow units {result.benchmark} --lang {result.language} --failing, correct them, then rerun",
    }
    return make(name=name, message=messages[name], data=result)


def mark_run_state(settings: BabelflowSettings, flow_run_id: str | None, decision: SignoffDecision) -> str | None:
    """A sign-off decided in the terminal shows on the flow run that waited for it: Signed (Completed type)
    or SignoffRejected (Failed type), set on the project's Prefect server when one runs. Returns the line
    to show (None: no run or no server to tell)."""
    from uuid import UUID  # noqa: PLC0415

    from prefect._internal.result_records import ResultRecord, ResultRecordMetadata  # noqa: PLC0415
    from prefect.client.orchestration import get_client  # noqa: PLC0415
    from prefect.settings import (  # noqa: PLC0415
        PREFECT_API_AUTH_STRING,
        PREFECT_API_URL,
        get_current_settings,
        temporary_settings,
    )

    from flows.server.auth import ensure_auth_string  # noqa: PLC0415
    from flows.server.local_server import running_server  # noqa: PLC0415

    if not flow_run_id:
        return None
    server = running_server(settings)
    if server is None and not get_current_settings().api.url:  # an API from the environment or a Prefect profile
        return f"flow run {flow_run_id} keeps its state (no Prefect server runs: `babelflow server`)"
    # the project's server, even when this process read Prefect's settings before it looked for one
    api = (
        temporary_settings({PREFECT_API_URL: server.api_url, PREFECT_API_AUTH_STRING: ensure_auth_string(settings)})
        if server is not None
        else nullcontext()
    )
    signed = decision.decision == "signed"
    make, name = (Completed, "Signed") if signed else (Failed, "SignoffRejected")
    reason = decision.outcome.reason if decision.outcome else ""
    message = f"{decision.benchmark} {decision.language}: " + (
        f"signed by {decision.reviewer} in the terminal ({reason})"
        if signed
        else f"sign-off rejected by {decision.reviewer} in the terminal: {reason}"
    )
    try:
        with api, get_client(sync_client=True) as client:
            current = client.read_flow_run(UUID(flow_run_id)).state
            # the run's persisted result stays with it: Prefect refuses a COMPLETED state that drops it
            data = None
            if current is not None and isinstance(current.data, ResultRecordMetadata):
                data = ResultRecord(metadata=current.data, result=None)
                data.mark_persisted()
            new_state: State = make(name=name, message=message, data=data)
            answer = client.set_flow_run_state(UUID(flow_run_id), new_state, force=True)
    except Exception as exc:  # the decision is recorded either way; the UI label is best effort
        return f"flow run {flow_run_id} keeps its state ({type(exc).__name__}: {exc})"
    if answer.status.value != "ACCEPT":
        return f"flow run {flow_run_id} keeps its state (the server answered {answer.status.value}: {answer.details})"
    return f"flow run {flow_run_id} now reads {name}"


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


def outcomes(state: State) -> list[AdaptFlowResult]:
    """The per-language results of an adapt-languages run called with return_state=True."""
    value = state.result(raise_on_failure=False)
    if isinstance(value, BaseException):
        raise value
    return list(value)
