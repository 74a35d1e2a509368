"""The paused review of a flow round, as Prefect run-input forms: one row per group of findings,
opened groups one finding a row, and the final sign-off. Answers become review decisions."""

from __future__ import annotations

from typing import Literal

from prefect import get_run_logger
from prefect.exceptions import FlowPauseTimeout
from prefect.flow_runs import pause_flow_run
from prefect.input import RunInput
from pydantic import BaseModel, Field

from babelflow.ir import PreserveReason
from flows.review_store import ReviewDecision
from validators.finding_kinds import Route, suggested_route
from validators.findings import FailureSet, group_findings


class FindingDecision(BaseModel):
    finding_id: str
    summary: str = Field(default="", description="what was found (read-only)")
    decision: Literal["confirm", "dismiss", "skip"] = "skip"
    note: str = ""
    route: Route = "translation"
    preserve_reason: PreserveReason | None = Field(
        default=None, description="analysis route: the type the field should have had"
    )
    replacement: str | None = None


class GroupDecision(BaseModel):
    """One decision for every finding of a group; `open` lists the group's findings one by one next."""

    group_id: str
    summary: str = Field(default="", description="what repeats, how often, and an example (read-only)")
    findings: int = Field(default=1, description="how many findings the decision applies to (read-only)")
    decision: Literal["confirm", "dismiss", "skip", "open"] = "skip"
    note: str = ""
    route: Route = "translation"
    preserve_reason: PreserveReason | None = Field(
        default=None, description="analysis route: the type the field should have had"
    )
    replacement: str | None = Field(
        default=None, description="your translation; only for a group of one finding (open larger groups)"
    )


class ReviewForm(RunInput):
    reviewer: str = Field(description="your name, recorded with every decision")
    groups: list[GroupDecision]


class OpenedGroupsForm(RunInput):
    reviewer: str = Field(description="your name, recorded with every decision")
    decisions: list[FindingDecision]


class SignOffForm(RunInput):
    reviewer: str
    spot_checked_tasks: list[str] = Field(description="tasks offered for the final end-to-end spot check")
    approve: bool = False
    note: str = ""


def ask_for_review(failures: FailureSet, round_no: int, review_timeout: int) -> list[ReviewDecision] | None:
    """The paused review: one row per group of findings; groups marked `open` come back one finding
    a row in a second form. None when nobody answered in time."""
    groups = group_findings(failures.findings)
    by_group = {g.id: g for g in groups}
    by_finding = {f.id: f for f in failures.findings}
    form = ReviewForm.with_initial_data(
        description=f"Round {round_no}: {len(failures.findings)} findings in {len(groups)} groups, "
        "most severe first (details in the failure-report artifact). "
        "One decision per group; choose `open` to decide a group's findings one by one.",
        reviewer="",
        groups=[
            GroupDecision(
                group_id=g.id, summary=g.summary, findings=len(g.finding_ids), route=suggested_route(g.layer, g.kind)
            )
            for g in groups
        ],
    )
    try:
        answer = pause_flow_run(wait_for_input=form, timeout=review_timeout, poll_interval=2, key=f"review-{round_no}")
    except FlowPauseTimeout:
        return None
    reviewer = answer.reviewer or "anonymous"
    decisions: list[ReviewDecision] = []
    opened: list[str] = []
    for item in answer.groups:
        group = by_group.get(item.group_id)
        if group is None or item.decision == "skip":
            continue
        if item.decision == "open":
            opened += group.finding_ids
            continue
        if item.replacement and len(group.finding_ids) > 1:
            get_run_logger().warning(
                f"{group.id}: a replacement text applies to one finding; "
                f"open the group of {len(group.finding_ids)} to give it"
            )
        replacement = item.replacement if len(group.finding_ids) == 1 else None
        for finding_id in group.finding_ids:
            decisions.append(
                ReviewDecision(
                    finding_id=finding_id,
                    decision=item.decision,
                    reviewer=reviewer,
                    note=item.note or f"group {group.id}",
                    route=item.route,
                    preserve_reason=item.preserve_reason,
                    replacement=replacement,
                )
            )
    if opened:
        detail = OpenedGroupsForm.with_initial_data(
            description=f"Round {round_no}: the {len(opened)} findings of the groups you opened.",
            reviewer=reviewer,
            decisions=[
                FindingDecision(
                    finding_id=f,
                    summary=(
                        f"[{by_finding[f].layer.value}/{by_finding[f].kind}] "
                        f"{by_finding[f].artifact} {by_finding[f].location}: {by_finding[f].message}"
                    ),
                    route=suggested_route(by_finding[f].layer, by_finding[f].kind),
                )
                for f in opened
            ],
        )
        try:
            answer_detail = pause_flow_run(
                wait_for_input=detail, timeout=review_timeout, poll_interval=2, key=f"review-{round_no}-opened"
            )
        except FlowPauseTimeout:
            return decisions  # the group decisions stand; the opened findings stay open
        for row in answer_detail.decisions:
            if row.decision != "skip" and row.finding_id in by_finding:
                decisions.append(
                    ReviewDecision(
                        finding_id=row.finding_id,
                        decision=row.decision,
                        reviewer=answer_detail.reviewer or reviewer,
                        note=row.note,
                        route=row.route,
                        preserve_reason=row.preserve_reason,
                        replacement=row.replacement,
                    )
                )
    return decisions
