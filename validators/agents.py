"""Validator agents: each reviews the probes' evidence on all four layers, in isolation.

An agent sees the probe findings and can ask for more (a source/target field pair, a side-by-side
task replay) before raising its own findings or upholding the probes'. Agents never see one
another's reports; the merge happens afterwards. Backends implement `ReviewModel`; tests use a
scripted fake. With no model configured the agent only records that fact.
"""

from __future__ import annotations

from typing import Literal, Protocol

from pydantic import Field

from babelflow.ir import Record
from validators.context import ValidationContext
from validators.findings import Finding, Layer, Severity, make_finding


class ReviewAction(Record):
    kind: Literal["ask_field_pair", "ask_task_replay", "raise_finding", "uphold", "dispute", "done"]
    element_id: str | None = None
    task_id: str | None = None
    finding_id: str | None = None
    layer: Layer | None = None
    finding_kind: str | None = None
    severity: Severity = Severity.MAJOR
    reasoning: str = ""


class Answer(Record):
    question: ReviewAction
    content: dict[str, str]


class ReviewRequest(Record):
    validator_id: str
    benchmark: str
    language: str
    turn: int
    probe_findings: list[Finding]
    answers: list[Answer] = Field(default_factory=list)


class ReviewReply(Record):
    actions: list[ReviewAction]


class ReviewModel(Protocol):
    model_id: str

    def review(self, request: ReviewRequest) -> ReviewReply: ...


class AgentReport(Record):
    validator_id: str
    model_id: str | None
    findings: list[Finding]
    turns: int
    note: str = ""


class ValidatorAgent:
    def __init__(self, validator_id: str, model: ReviewModel | None = None, max_turns: int = 4):
        self.validator_id = validator_id
        self.model = model
        self.max_turns = max_turns

    def review(self, ctx: ValidationContext, probe_findings: list[Finding]) -> AgentReport:
        if self.model is None:
            return AgentReport(validator_id=self.validator_id, model_id=None, findings=[], turns=0, note="model-backed review not configured: only the deterministic probes ran")
        by_id = {f.id: f for f in probe_findings}
        findings: dict[str, Finding] = {}
        answers: list[Answer] = []
        turn = 0
        for turn in range(1, self.max_turns + 1):
            reply = self.model.review(
                ReviewRequest(validator_id=self.validator_id, benchmark=ctx.ir.benchmark, language=ctx.language, turn=turn, probe_findings=probe_findings, answers=answers)
            )
            answers = []
            finished = False
            for action in reply.actions:
                if action.kind == "ask_field_pair":
                    answers.append(Answer(question=action, content=self._field_pair(ctx, action.element_id)))
                elif action.kind == "ask_task_replay":
                    answers.append(Answer(question=action, content=self._task_replay(ctx, action.task_id)))
                elif action.kind == "uphold" and action.finding_id in by_id:
                    upheld = by_id[action.finding_id].model_copy(deep=True)
                    upheld.validators = [self.validator_id]
                    for evidence in upheld.evidence:
                        evidence.validator_id, evidence.reasoning = self.validator_id, action.reasoning or evidence.reasoning
                    findings[upheld.id] = upheld
                elif action.kind == "raise_finding":
                    findings.update({f.id: f for f in [self._raised(ctx, action)]})
                elif action.kind == "done":
                    finished = True
            if finished:
                break
        return AgentReport(validator_id=self.validator_id, model_id=self.model.model_id, findings=list(findings.values()), turns=turn)

    def _raised(self, ctx: ValidationContext, action: ReviewAction) -> Finding:
        element = ctx.ir.by_id().get(action.element_id or "") if action.element_id else None
        return make_finding(
            self.validator_id,
            action.layer or Layer.FIDELITY,
            action.finding_kind or "reviewer_judgement",
            action.severity,
            element.artifact if element else "<task>",
            element.role if element else f"task {action.task_id}",
            action.reasoning,
            element_id=element.id if element else None,
            task_id=action.task_id,
            source=element.source_text if element else None,
            target=ctx.target_text(element) if element else None,
            reasoning=action.reasoning,
        )

    @staticmethod
    def _field_pair(ctx: ValidationContext, element_id: str | None) -> dict[str, str]:
        element = ctx.ir.by_id().get(element_id or "")
        if element is None:
            return {"error": f"no IR element {element_id}"}
        return {"artifact": element.artifact, "role": element.role, "type": element.translation_type.value, "source": element.source_text, "target": str(ctx.target_text(element))}

    @staticmethod
    def _task_replay(ctx: ValidationContext, task_id: str | None) -> dict[str, str]:
        from validators.probes.behavior import replay_pairs_of

        variant = getattr(ctx, "variant_bench", None)
        if variant is None or task_id not in ctx.source.task_ids(None):
            return {"error": f"cannot replay task {task_id}"}
        (sg, sn), (tg, tn) = replay_pairs_of(ctx.source, [task_id], "replay: source")[task_id], replay_pairs_of(variant, [task_id], "replay: variant")[task_id]
        return {
            "source_golden_reward": str(sg.reward),
            "target_golden_reward": str(tg.reward),
            "source_do_nothing_reward": str(sn.reward),
            "target_do_nothing_reward": str(tn.reward),
            "source_tool_errors": " | ".join(sg.tool_error_sequence),
            "target_tool_errors": " | ".join(tg.tool_error_sequence),
        }
