"""The paused review of a flow round, as Prefect run-input forms that hold decisions only: one set of
fields per group of findings (numbered as in the review-material artifact, which holds the texts),
opened groups one finding each, and the final sign-off. Answers become review decisions.

Prefect draws a form from the model's JSON schema: a list becomes rows a reviewer can delete, an id
in a value becomes editable, `X | None` shows 'Property is type "None"'. So the forms are built per
round with one named field per group, plain strings and closed choices."""

from __future__ import annotations

from typing import Literal

from prefect.exceptions import FlowPauseTimeout
from prefect.flow_runs import pause_flow_run
from prefect.input import RunInput
from pydantic import BaseModel, Field, create_model

from babelflow.ir import PreserveReason
from flows.review.acceptance import MqmCategory, MqmSeverity, UnitVerdict
from flows.review.html_cells import joints
from flows.review.named_pause import pause_named
from flows.review.signoff import SignOffSample
from flows.review.store import ReviewDecision
from validators.finding_kinds import Route, suggested_route
from validators.findings import FailureSet, Finding, FindingGroup, count_line, group_findings

DECISIONS_OF_GROUP = ("skip", "confirm", "dismiss", "open")
DECISIONS_OF_FINDING = ("skip", "confirm", "dismiss")
OPENED_PAGE = 40  # findings per opened-group form
KEEP_AS = ("", *(reason.value for reason in PreserveReason))


class ReviewRow(BaseModel):
    """One decision read back from a form: a group (or, in the opened form, one finding)."""

    decision: Literal["skip", "confirm", "dismiss", "open"] = "skip"
    note: str = ""
    route: Route = "translation"
    preserve_reason: PreserveReason | None = None
    replacement: str | None = None


class ReviewForm(RunInput):
    """The paused review's decisions: built per round by `review_form` (one set of fields per group);
    nothing to delete, no id to edit, no field typed None."""

    reviewer: str = Field(default="", title="Your name", description="recorded with every decision")


class SignOffForm(RunInput):
    """The sign-off: one verdict per sampled unit (fields unit_N, unit_N_category, unit_N_severity, built
    per sample by `signoff_form`), counted against the plan's Ac/Re."""

    reviewer: str = Field(default="", title="Your name", description="recorded with the sign-off")
    read: bool = Field(
        default=False,
        title="I read every sampled unit and marked those that fail",
        description="unticked: nothing is decided (the run waits for a sign-off; the note is logged)",
    )
    note: str = Field(default="", title="Note", description="what you checked")


def summary_field(description: str, recorded: str) -> dict:
    """The form's summary (round, counts, the material's link) as the description of its first field, 'Your
    name'. Prefect's Resume modal renders a form's own description in a box that scrolls and so shrinks to
    0 px once the form is taller than the modal (measured at 1,280 x 900: 96 px of summary, 0 px shown), which
    every review form is; a field's description always shows."""
    return {"reviewer": (str, Field(default="", title="Your name", description=f"{description}\n\n{recorded}"))}


def unit_field(number: int) -> str:
    return f"unit_{number}"


def signoff_form(description: str, sample: SignOffSample) -> type[SignOffForm]:
    """The sign-off form with this sample's units, each side by side in its field's description
    (RunInput.with_initial_data would rebuild fields from their types alone and drop their titles)."""
    fields: dict = {}
    for number, unit in enumerate(sample.units, start=1):
        about = f"{unit.stratum} · {unit.role}\n\nsource: {unit.source[:400]}\n\ntarget: {unit.target[:400]}"
        fields[unit_field(number)] = (
            Literal["pass", "fail"],
            Field(default="pass", title=f"{number}. {unit.unit_key[:12]}", description=about),
        )
        fields[f"{unit_field(number)}_category"] = (
            Literal[("", *(c.value for c in MqmCategory))],
            Field(default="", title="MQM category if it fails"),
        )
        fields[f"{unit_field(number)}_severity"] = (
            Literal[("", *(s.value for s in MqmSeverity))],
            Field(default="", title="severity if it fails"),
        )
    fields |= summary_field(description, "Your name is recorded with the sign-off.")
    return create_model("SignOffForm", __base__=SignOffForm, **fields)


def form_verdicts(answer: SignOffForm, sample: SignOffSample) -> list[UnitVerdict]:
    """The form's verdicts; a failing unit without its category or severity is counted major accuracy
    (the usual reading of an unlabelled failure), said in its note."""
    verdicts = []
    for number, unit in enumerate(sample.units, start=1):
        values = answer.model_dump()
        if values.get(unit_field(number), "pass") != "fail":
            verdicts.append(UnitVerdict(unit_key=unit.unit_key, verdict="pass"))
            continue
        category = values.get(f"{unit_field(number)}_category") or ""
        severity = values.get(f"{unit_field(number)}_severity") or ""
        verdicts.append(
            UnitVerdict(
                unit_key=unit.unit_key,
                verdict="fail",
                category=MqmCategory(category or "accuracy"),
                severity=MqmSeverity(severity or "major"),
                note="" if category and severity else "category/severity not given in the form: read as major accuracy",
            )
        )
    return verdicts


def _row_fields(prefix: str, title: str, about: str, decisions: tuple[str, ...], route: Route, one: bool) -> dict:
    """A group's (or a finding's) fields: the decision, a note, the route, the kept type (analysis
    route) and, for a single finding, the replacement text."""
    fields: dict = {
        prefix: (
            Literal[decisions],
            Field(default="skip", title=title, description=about),
        ),
        f"{prefix}_note": (str, Field(default="", title="note", description="why (logged with the decision)")),
        f"{prefix}_route": (
            Route,
            Field(
                default=route,
                title="route if confirmed",
                description="translation: retranslate, or use your replacement; analysis: keep the source text",
            ),
        ),
    }
    fields[f"{prefix}_keep_as"] = (
        Literal[KEEP_AS],
        Field(default="", title="keep as", description="analysis route only: why the field stays as it is"),
    )
    if one and route == "translation":
        fields[f"{prefix}_replacement"] = (
            str,
            Field(default="", title="replacement", description="your translation of the whole unit (optional)"),
        )
    return fields


def group_field(number: int) -> str:
    """The form field of the number-th group (1-based, as the review material numbers them)."""
    return f"group_{number}"


def finding_field(number: int) -> str:
    return f"finding_{number}"


def review_form(
    groups: list[FindingGroup], description: str, by_id: dict[str, Finding] | None = None
) -> type[ReviewForm]:
    """One row per group; `by_id` (the findings) lets a row say that confirming applies a proposed repair."""
    by_id = by_id or {}
    fields: dict = {}
    for number, group in enumerate(groups, start=1):
        count = len(group.finding_ids)
        title = f"{number}. {group.layer.value}/{group.kind} · {group.severity.value} · {count} finding(s)"
        about = group.summary + ("" if count == 1 else " · `open` decides its findings one by one")
        if any(by_id[f].fixes for f in group.finding_ids if f in by_id):
            about += " · confirm applies the proposed fix to each field (shown in the review material)"
        route = suggested_route(group.layer, group.kind)
        fields |= _row_fields(group_field(number), title, about, DECISIONS_OF_GROUP, route, count == 1)
    fields = summary_field(description, "Your name is recorded with every decision.") | fields
    return create_model("ReviewForm", __base__=ReviewForm, **fields)


def opened_form(findings: list[Finding], description: str) -> type[ReviewForm]:
    fields: dict = {}
    for number, finding in enumerate(findings, start=1):
        title = f"{number}. {finding.layer.value}/{finding.kind} · {finding.id}"
        about = f"{joints(finding.artifact)} {joints(finding.location)}: {finding.message}"
        route = suggested_route(finding.layer, finding.kind)
        fields |= _row_fields(finding_field(number), title, about, DECISIONS_OF_FINDING, route, True)
    fields = summary_field(description, "Your name is recorded with every decision.") | fields
    return create_model("OpenedGroupsForm", __base__=ReviewForm, **fields)


def read_row(answer: BaseModel, prefix: str) -> ReviewRow:
    values = answer.model_dump()
    reason = values.get(f"{prefix}_keep_as") or None
    return ReviewRow(
        decision=values.get(prefix, "skip"),
        note=values.get(f"{prefix}_note", ""),
        route=values.get(f"{prefix}_route", "translation"),
        preserve_reason=PreserveReason(reason) if reason else None,
        replacement=values.get(f"{prefix}_replacement") or None,
    )


def answer_for(groups: list[FindingGroup], reviewer: str, decisions: dict[str, str], note: str = "") -> dict:
    """The run input that decides groups by id (`{group_id: decision}`), as the form would send it:
    for API callers and tests."""
    answer: dict = {"reviewer": reviewer}
    for number, group in enumerate(groups, start=1):
        if group.id in decisions:
            answer[group_field(number)] = decisions[group.id]
            answer[f"{group_field(number)}_note"] = note
    return answer


def ask_for_review(
    failures: FailureSet, round_no: int, review_timeout: int, material_url: str | None = None
) -> list[ReviewDecision] | None:
    """The paused review: one set of fields per group of findings (numbered as in the review material
    at `material_url`); groups marked `open` come back one finding each in a second form. None when
    nobody answered in time."""
    groups = group_findings(failures.findings)
    by_finding = {f.id: f for f in failures.findings}
    read = (
        f"Read each group's source and target first: [review material, round {round_no}]({material_url})."
        if material_url
        else "Read each group's source and target in the review-material artifact of this run."
    )
    form = review_form(
        groups,
        f"**Round {round_no}: {count_line(failures.findings, groups)}** Most severe first. "
        f"{read} One decision per group; `open` decides a group's findings one by one.",
        by_finding,
    )
    try:
        with pause_named("AwaitingReview"):
            answer = pause_flow_run(
                wait_for_input=form, timeout=review_timeout, poll_interval=2, key=f"review-{round_no}"
            )
    except FlowPauseTimeout:
        return None
    reviewer = answer.reviewer or "anonymous"
    decisions: list[ReviewDecision] = []
    opened: list[str] = []
    for number, group in enumerate(groups, start=1):
        row = read_row(answer, group_field(number))
        if row.decision == "skip":
            continue
        if row.decision == "open":
            opened += group.finding_ids
            continue
        decision: Literal["confirm", "dismiss"] = "confirm" if row.decision == "confirm" else "dismiss"
        replacement = row.replacement if len(group.finding_ids) == 1 else None
        for finding_id in group.finding_ids:
            decisions.append(
                ReviewDecision(
                    finding_id=finding_id,
                    decision=decision,
                    reviewer=reviewer,
                    note=row.note or f"group {group.id}",
                    route=row.route,
                    preserve_reason=row.preserve_reason,
                    replacement=replacement,
                )
            )
    # opened findings come in pages: Prefect stores a form's schema as one run input, which a form of
    # 600 findings' fields exceeds ("Run input schema not found" on resume)
    findings = [by_finding[f] for f in opened]
    pages = [findings[i : i + OPENED_PAGE] for i in range(0, len(findings), OPENED_PAGE)]
    for page_no, page in enumerate(pages, start=1):
        detail = opened_form(
            page,
            f"Round {round_no}: the {len(opened)} findings of the groups you opened, page {page_no} of "
            f"{len(pages)}. {read}",
        )
        key = f"review-{round_no}-opened" + (f"-{page_no}" if page_no > 1 else "")
        try:
            with pause_named("AwaitingReview"):
                answer_detail = pause_flow_run(wait_for_input=detail, timeout=review_timeout, poll_interval=2, key=key)
        except FlowPauseTimeout:
            return decisions  # the decisions so far stand; the unanswered findings stay open
        for number, finding in enumerate(page, start=1):
            row = read_row(answer_detail, finding_field(number))
            if row.decision in ("confirm", "dismiss"):
                decisions.append(
                    ReviewDecision(
                        finding_id=finding.id,
                        decision="confirm" if row.decision == "confirm" else "dismiss",
                        reviewer=answer_detail.reviewer or reviewer,
                        note=row.note,
                        route=row.route,
                        preserve_reason=row.preserve_reason,
                        replacement=row.replacement,
                    )
                )
    return decisions
