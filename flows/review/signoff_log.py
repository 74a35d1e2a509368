"""Every sign-off decision in babelflow's own append-only log (review/<benchmark>/<lang>/signoff_log.jsonl):
who judged the sample, the counts, signed, rejected or deferred, and for a rejection its plan. A rejected
sample's failing units stay in the review queue as findings until their text changes (a correction, an
import, a retranslation); a stratum that failed more often than the lot may is to be read in full.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import Field

from babelflow.append_log import append_records, read_records
from babelflow.errors import BabelflowError
from babelflow.ir import Record
from flows.review.acceptance import MqmCategory, MqmSeverity, SampleOutcome, UnitVerdict, decide
from flows.review.signoff import Signer, SignOffSample, sign_off
from flows.review.store import ReviewStore
from validators.finding_kinds import SAMPLE_UNIT_FAILED, Layer, Severity
from validators.findings import Evidence, FailureSet, Finding, finding_id

if TYPE_CHECKING:
    from flows.review.workbench import Workbench

SIGNOFF_LOG = "signoff_log.jsonl"
_SEVERITY = {
    MqmSeverity.MINOR: Severity.MINOR,
    MqmSeverity.MAJOR: Severity.MAJOR,
    MqmSeverity.CRITICAL: Severity.CRITICAL,
}


class RejectedUnit(Record):
    unit_key: str
    stratum: str
    element_ids: list[str]
    source: str
    target: str = Field(description="the text judged: the unit stays queued while it reads so")
    category: MqmCategory
    severity: MqmSeverity
    note: str = ""


class StratumStep(Record):
    """What a rejection asks of one stratum: read it in full when its sample failed more often than the
    lot may (Re of n), else correct the failing units."""

    stratum: str
    sampled: int
    failing: int
    action: Literal["full_review", "correct_units"]


class SignoffDecision(Record):
    benchmark: str
    language: str
    decision: Literal["signed", "rejected", "deferred"]
    reviewer: str
    note: str = ""
    at: str
    flow_run_id: str | None = None
    outcome: SampleOutcome | None = None
    rejected_units: list[RejectedUnit] = Field(default_factory=list)
    plan: list[StratumStep] = Field(default_factory=list)


def rejection_plan(outcome: SampleOutcome) -> list[StratumStep]:
    rate = outcome.plan.reject / max(outcome.plan.sample_size, 1)
    return [
        StratumStep(
            stratum=stratum,
            sampled=count.sampled,
            failing=count.failing,
            action="full_review" if count.failing / count.sampled >= rate else "correct_units",
        )
        for stratum, count in outcome.by_stratum.items()
        if count.failing
    ]


def signoff_decision(
    bench: Workbench,
    sample: SignOffSample,
    verdicts: list[UnitVerdict],
    outcome: SampleOutcome,
    reviewer: str,
    note: str = "",
    flow_run_id: str | None = None,
) -> SignoffDecision:
    """The decision the count made, with the failing units as they read now (a rejection)."""
    by_key = {u.unit_key: u for u in sample.units}
    rejected = []
    if not outcome.accepted:
        for verdict in verdicts:
            if verdict.verdict != "fail" or verdict.unit_key not in by_key:
                continue
            unit = by_key[verdict.unit_key]
            assert verdict.category is not None and verdict.severity is not None  # UnitVerdict validates a failure
            rejected.append(
                RejectedUnit(
                    unit_key=unit.unit_key,
                    stratum=unit.stratum,
                    element_ids=bench.find(unit.unit_key).element_ids,
                    source=unit.source,
                    target=unit.target,
                    category=verdict.category,
                    severity=verdict.severity,
                    note=verdict.note,
                )
            )
    return SignoffDecision(
        benchmark=bench.run.benchmark,
        language=bench.language,
        decision="signed" if outcome.accepted else "rejected",
        reviewer=reviewer,
        note=note,
        at=datetime.now(UTC).isoformat(timespec="seconds"),
        flow_run_id=flow_run_id,
        outcome=outcome,
        rejected_units=rejected,
        plan=[] if outcome.accepted else rejection_plan(outcome),
    )


def deferred(bench: Workbench, signer: Signer) -> SignoffDecision:
    """A sign-off form answered without reading the sample: nothing decided, the note kept."""
    return SignoffDecision(
        benchmark=bench.run.benchmark,
        language=bench.language,
        decision="deferred",
        reviewer=signer.reviewer,
        note=signer.note,
        at=datetime.now(UTC).isoformat(timespec="seconds"),
        flow_run_id=signer.flow_run_id,
    )


class SignoffLog:
    """Append-only, one fsynced line per decision; a torn last line (a killed write) is skipped."""

    def __init__(self, review_dir: Path):
        self.path = Path(review_dir) / SIGNOFF_LOG

    def entries(self) -> list[SignoffDecision]:
        return read_records(
            self.path,
            SignoffDecision,
            "Sign-off log is corrupt",
            "restore the line from backup; the log is append-only",
        )

    def append(self, decision: SignoffDecision) -> None:
        append_records(self.path, [decision])

    def last_rejection(self) -> SignoffDecision | None:
        """The latest rejection, unless a sign-off came after it."""
        for entry in reversed(self.entries()):
            if entry.decision == "signed":
                return None
            if entry.decision == "rejected":
                return entry
        return None


def conclude(
    bench: Workbench, store: ReviewStore, sample: SignOffSample, verdicts: list[UnitVerdict], signer: Signer
) -> SignoffDecision:
    """Count the verdicts against the sample's plan and act on it: accepted, the variant is signed (its
    files pinned); rejected, the failing units join the review queue. Either way the log records it."""
    assert sample.plan is not None  # every sample drawn since the plan exists carries it
    outcome = decide(sample.plan, verdicts, {u.unit_key: u.stratum for u in sample.units})
    decision = signoff_decision(bench, sample, verdicts, outcome, signer.reviewer, signer.note, signer.flow_run_id)
    if outcome.accepted:
        sign_off(bench, store, sample, signer, verdicts, outcome)
    else:
        queue = store.queue() or FailureSet(
            benchmark=bench.run.benchmark, language=bench.language, findings=[], validators=[]
        )
        kept = [f for f in queue.findings if f.kind != SAMPLE_UNIT_FAILED.name]
        queued = queue.model_copy(update={"findings": kept + rejected_unit_findings(bench, decision)})
        store.save_queue(queued, signer.flow_run_id or store.flow_run_id())
    SignoffLog(store.folder).append(decision)
    return decision


def outstanding(bench: Workbench, rejection: SignoffDecision) -> list[RejectedUnit]:
    """The rejected units whose text still reads as judged."""
    units = []
    for unit in rejection.rejected_units:
        try:
            now = bench.find(unit.unit_key).target
        except BabelflowError:  # the unit is gone (its field retyped): nothing left to correct
            continue
        if now == unit.target:
            units.append(unit)
    return units


def rejected_unit_findings(bench: Workbench, rejection: SignoffDecision) -> list[Finding]:
    """One review finding per failing unit still as judged, at its first field, MQM severity kept."""
    elements = bench.elements
    plan = {step.stratum: step.action for step in rejection.plan}
    findings = []
    for unit in outstanding(bench, rejection):
        element = elements.get(unit.element_ids[0]) if unit.element_ids else None
        artifact = element.artifact if element is not None else f"unit {unit.unit_key}"
        location = element.role if element is not None else unit.stratum
        field = unit.element_ids[0] if unit.element_ids else unit.unit_key
        key = (field, Layer.FIDELITY.value, SAMPLE_UNIT_FAILED.name)
        said = (
            f"failed in the sign-off sample by {rejection.reviewer} ({rejection.at}): {unit.category.value},"
            f" {unit.severity.value}"
            + (f": {unit.note}" if unit.note else "")
            + f"; stratum {unit.stratum}: {plan.get(unit.stratum, 'correct_units').replace('_', ' ')}"
        )
        findings.append(
            Finding(
                id=finding_id(key),
                layer=Layer.FIDELITY,
                kind=SAMPLE_UNIT_FAILED.name,
                severity=_SEVERITY[unit.severity],
                artifact=artifact,
                location=location,
                element_id=unit.element_ids[0] if unit.element_ids else None,
                message=said,
                validators=["signoff"],
                evidence=[
                    Evidence(
                        validator_id="signoff",
                        reasoning=said,
                        source=unit.source,
                        target=unit.target,
                        detail={"unit": unit.unit_key, "fields": str(len(unit.element_ids))},
                    )
                ],
            )
        )
    return findings
