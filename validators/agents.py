"""Validator agents: each reads the translation itself and reviews the probes' evidence, in isolation.

An agent is sent, batch by batch, every task as a whole (its translated fields side by side with
the source) and every other translation unit, each with its IR context (``review_material``),
plus the probe findings touching them. It can ask for more (a source/target field pair, a
side-by-side task replay) before raising its own findings, with reasons and quotes, or upholding
the probes'. A per-run token budget decides how much it reads: all tasks first, then units by
risk; what the budget leaves out is stated in the report. Agents never see one another's
reports; the merge happens afterwards. Backends implement `ReviewModel` (``model_backends``; the
back-translation agent in ``backtranslation`` needs no model); tests use scripted fakes. With no
model configured the agent only records that fact.
"""

from __future__ import annotations

import hashlib
import json
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, Protocol

from babelflow.atomic_io import write_bytes_atomic
from babelflow.llm.costs import estimate_tokens
from validators.agent_exchange import AgentMemory, AgentReport, Answer, ReviewAction, ReviewModel, ReviewRequest
from validators.context import ValidationContext
from validators.finding_kinds import REVIEWER_JUDGEMENT, declare_kind, finding_kind, is_declared
from validators.findings import Finding, Hit, Layer, Severity, found
from validators.probes.behavior import replay_pairs_of
from validators.review_material import ReviewMaterial, ReviewPlan, TaskView, UnitView, plan_review

if TYPE_CHECKING:
    pass

MEANING_CHANGED = declare_kind(
    "meaning_changed",
    Layer.FIDELITY,
    Severity.MAJOR,
    frozenset(),
    "the translation asks or states something else (a reviewer's reading)",
)


@dataclass
class Conversation:
    """What one batch's conversation found, disputed and cost."""

    batch: Batch
    findings: dict[str, Finding] = field(default_factory=dict)
    disputed: dict[str, str] = field(default_factory=dict)
    turns: int = 0
    tokens: int = 0


@dataclass(frozen=True)
class Batch:
    """The tasks and units one conversation reads: batch `number` of `of`."""

    tasks: list[TaskView]
    units: list[UnitView]
    number: int
    of: int


FINDINGS_PER_REQUEST = 100  # probe findings one request carries besides its tasks and units


def _with_findings(batches: list, probe_findings: list[Finding]) -> tuple[list, list[list[Finding]]]:
    """Each batch with the probe findings about what it holds; the findings about nothing any batch
    holds (preserved values, whole files, tasks left out) in chunks, the first with batch 1, the
    rest as batches of their own: no request carries thousands of findings."""
    batches = list(batches) or [([], [])]  # the probe findings are reviewed even when there is nothing else to read
    shown: list[list[Finding]] = []
    placed: set[str] = set()
    for tasks, units in batches:
        ids = {i for u in units for i in (u.unit_id, *u.also)} | {f.unit_id for t in tasks for f in t.fields}
        task_ids = {t.task_id for t in tasks}
        mine = [f for f in probe_findings if f.element_id in ids or (f.element_id is None and f.task_id in task_ids)]
        shown.append(mine[:FINDINGS_PER_REQUEST])
        placed |= {f.id for f in mine[:FINDINGS_PER_REQUEST]}
    rest = [f for f in probe_findings if f.id not in placed]
    chunks = [rest[i : i + FINDINGS_PER_REQUEST] for i in range(0, len(rest), FINDINGS_PER_REQUEST)]
    if chunks:
        shown[0] = shown[0] + chunks[0]
        for chunk in chunks[1:]:
            batches.append(([], []))
            shown.append(chunk)
    return batches, shown


NOT_CONFIGURED = "model-backed review not configured: only the deterministic probes ran"


class Reviewer(Protocol):
    """What validation runs: a model-backed `ValidatorAgent` or an offline agent (back-translation)."""

    validator_id: str

    def review(self, ctx: ValidationContext, probe_findings: list[Finding]) -> AgentReport: ...


class ValidatorAgent:
    """``budget``: tokens (estimated) this agent may spend on one run, 0 = no limit; ``batch_size``:
    fields per request (a task counts its fields); ``read_content`` False restores the probe-only
    review (what the agent saw before it could read the translation); ``remember`` True: a task or
    unit this agent already read unchanged (same texts, same context) in an earlier pass is not
    sent again, and what the agent found about it then is reported again (an agent that lives
    across the review rounds of one run, like the ablation's); ``parallel``: conversations held at once
    (their batches are independent; the provider's shared limiter still caps the requests in flight);
    ``memory_file``: with ``remember``, where that memory is kept between runs (the flow's review rounds,
    a rerun after a correction)."""

    def __init__(
        self,
        validator_id: str,
        model: ReviewModel | None = None,
        max_turns: int = 4,
        *,
        batch_size: int = 20,
        budget: int = 0,
        read_content: bool = True,
        remember: bool = False,
        parallel: int = 1,
        memory_file: Path | None = None,
    ):
        self.validator_id = validator_id
        self.model = model
        self.max_turns = max_turns
        self.batch_size = batch_size
        self.budget = budget
        self.read_content = read_content
        self.remember = remember
        self.parallel = max(1, parallel)
        self.memory_file = memory_file
        self._memory: dict[str, list[Finding]] = {}  # item content key -> what this agent found about it
        self._replaying = threading.Lock()  # a harness replays one task at a time

    def review(self, ctx: ValidationContext, probe_findings: list[Finding]) -> AgentReport:
        if self.model is None:
            return AgentReport(validator_id=self.validator_id, model_id=None, findings=[], turns=0, note=NOT_CONFIGURED)
        material = ReviewMaterial(ctx, probe_findings)
        findings: dict[str, Finding] = {}
        about = self._about(probe_findings)
        to_read, remembered = self._recall(material, findings, about)
        plan = (
            plan_review(to_read, batch_size=self.batch_size, budget=self.budget)
            if self.read_content
            else ReviewPlan(batches=[], tasks_total=0, units_total=0)
        )
        batches, shown = _with_findings(plan.batches, probe_findings)
        conversations = self._converse_all(ctx, material, list(zip(batches, shown, strict=True)))
        disputed: dict[str, str] = {}
        turns = spent = read_tasks = read_units = 0
        for talk in conversations:  # in batch order, whatever order they finished in: the report is reproducible
            findings |= talk.findings
            disputed |= talk.disputed
            turns, spent = turns + talk.turns, spent + talk.tokens
            read_tasks, read_units = read_tasks + len(talk.batch.tasks), read_units + len(talk.batch.units)
        note = ""
        if plan.tasks_total or plan.units_total:
            note = f"read {read_tasks}/{plan.tasks_total} tasks and {read_units}/{plan.units_total} units"
            if read_tasks < plan.tasks_total or read_units < plan.units_total:
                note += f" (budget {self.budget:,} tokens: all tasks first, then units by risk)"
        if remembered:
            note = "; ".join(
                filter(None, [note, f"{remembered} item(s) unchanged since this agent read them, not sent again"])
            )
        if self.remember:
            self._memorise(plan, findings, about, probe_findings)
        if disputed:  # a dispute is the agent's word against a probe's: it goes to the reviewer, it removes nothing
            note = "; ".join(filter(None, [note, *(f"disputes {fid}: {why}" for fid, why in sorted(disputed.items()))]))
        return AgentReport(
            validator_id=self.validator_id,
            model_id=self.model.model_id,
            findings=list(findings.values()),
            turns=turns,
            note=note,
            tokens=spent,
            tasks_read=read_tasks,
            units_read=read_units,
            disputed=disputed,
        )

    def _key(self, item: TaskView | UnitView, about: dict[str, list[str]]) -> str:
        """An item read once is read again only when something the agent would be sent about it
        changed: its texts and context, the probe findings about it, or the model and prompt."""
        ids, task_id = self._ids(item)
        probes = sorted({f for i in (*sorted(ids), task_id or "") for f in about.get(i, [])})
        model_id = self.model.model_id if self.model is not None else ""
        content = "\n".join([model_id, item.model_dump_json(exclude={"risk"}), *probes])
        return hashlib.blake2b(content.encode(), digest_size=16).hexdigest()

    @staticmethod
    def _about(probe_findings: list[Finding]) -> dict[str, list[str]]:
        """element id (or task id, for findings about a whole task) -> the probe findings about it."""
        about: dict[str, list[str]] = {}
        for f in probe_findings:
            key = f.element_id or (f.task_id if f.element_id is None else None)
            if key:
                about.setdefault(key, []).append(f.id)
        return about

    @staticmethod
    def _ids(item: TaskView | UnitView) -> tuple[set[str], str | None]:
        if isinstance(item, TaskView):
            return {f.unit_id for f in item.fields}, item.task_id
        return {item.unit_id, *item.also}, None

    def _recall(self, material: ReviewMaterial, findings: dict[str, Finding], about: dict[str, list[str]]):
        """(what to read, how many items were remembered); remembered items' findings go to ``findings``."""
        tasks, units = material.items
        if not self.remember:
            return material, 0
        self._load_memory()
        if not self._memory:
            return material, 0
        fresh_tasks: list[TaskView] = []
        fresh_units: list[UnitView] = []
        items: list[TaskView | UnitView] = [*tasks, *units]
        for item in items:  # each item's key once: it hashes the item whole
            remembered = self._memory.get(self._key(item, about))
            if remembered is None:
                if isinstance(item, TaskView):
                    fresh_tasks.append(item)
                else:
                    fresh_units.append(item)
                continue
            for finding in remembered:
                findings[finding.id] = finding
        return SimpleNamespace(items=(fresh_tasks, fresh_units)), len(tasks) + len(units) - len(fresh_tasks) - len(
            fresh_units
        )

    def _memorise(
        self, plan: ReviewPlan, findings: dict[str, Finding], about: dict[str, list[str]], probe_findings: list[Finding]
    ) -> None:
        for tasks, units in plan.batches:
            items: list[TaskView | UnitView] = [*tasks, *units]
            for item in items:
                ids, task_id = self._ids(item)
                self._memory[self._key(item, about)] = [
                    f
                    for f in findings.values()
                    if f.element_id in ids or (f.element_id is None and task_id is not None and f.task_id == task_id)
                ]
        if self.memory_file is not None:
            memory = AgentMemory(items=self._memory, probe_findings=probe_findings)
            write_bytes_atomic(self.memory_file, memory.model_dump_json(exclude_defaults=True).encode())

    def _load_memory(self) -> None:
        """What this agent read in an earlier run of the same variant (a review round is a new process)."""
        if self.memory_file is None or self._memory or not self.memory_file.is_file():
            return
        try:
            self._memory = AgentMemory.model_validate_json(self.memory_file.read_bytes()).items
        except ValueError:  # a damaged memory is read again in full, never trusted
            self._memory = {}

    def _converse_all(
        self, ctx: ValidationContext, material: ReviewMaterial, planned: list[tuple[tuple[list, list], list[Finding]]]
    ) -> list[Conversation]:
        """Every batch's conversation, ``parallel`` at a time, in batch order. With a budget, a batch
        starts only while the finished ones have spent less than it (the rest is reported as not read)."""
        spent = 0
        guard = threading.Lock()

        def converse(number: int) -> Conversation | None:
            nonlocal spent
            (tasks, units), relevant = planned[number - 1]
            with guard:
                if self.budget and spent >= self.budget:
                    return None
            talk = Conversation(Batch(tasks=tasks, units=units, number=number, of=len(planned)))
            self._conversation(ctx, material, relevant, talk)
            with guard:
                spent += talk.tokens
            return talk

        numbers = range(1, len(planned) + 1)
        if self.parallel == 1 or len(planned) == 1:
            done = [converse(n) for n in numbers]
        else:
            with ThreadPoolExecutor(self.parallel, thread_name_prefix=self.validator_id) as pool:
                done = list(pool.map(converse, numbers))
        return [talk for talk in done if talk is not None]

    def _conversation(
        self, ctx: ValidationContext, material: ReviewMaterial, probe_findings: list[Finding], talk: Conversation
    ) -> None:
        """One batch: up to ``max_turns`` turns of questions and answers, recorded in ``talk``."""
        model = self.model
        if model is None:  # review() reports "not configured" before any conversation
            raise RuntimeError(f"validator {self.validator_id} has no model to converse with")
        by_id = {f.id: f for f in probe_findings}
        answers: list[Answer] = []
        spent = turn = 0
        for turn in range(1, self.max_turns + 1):
            request = ReviewRequest(
                validator_id=self.validator_id,
                benchmark=ctx.ir.benchmark,
                language=ctx.language,
                turn=turn,
                probe_findings=probe_findings,
                answers=answers,
                batch=talk.batch.number,
                batches=talk.batch.of,
                tasks=talk.batch.tasks,
                units=talk.batch.units,
            )
            reply = model.review(request)
            spent += estimate_tokens(json.dumps(request.wire(), ensure_ascii=False)) + estimate_tokens(
                reply.model_dump_json(exclude_defaults=True)
            )
            answers = []
            finished = False
            for action in reply.actions:
                if action.kind == "ask_field_pair":
                    answers.append(Answer(question=action, content=self._field_pair(ctx, action.element_id)))
                elif action.kind == "ask_task_replay":
                    with self._replaying:
                        replay = self._task_replay(ctx, action.task_id)
                    answers.append(Answer(question=action, content=replay))
                elif action.kind == "uphold" and action.finding_id in by_id:
                    upheld = by_id[action.finding_id].model_copy(deep=True)
                    upheld.validators = [self.validator_id]
                    for evidence in upheld.evidence:
                        evidence.validator_id, evidence.reasoning = (
                            self.validator_id,
                            action.reasoning or evidence.reasoning,
                        )
                    talk.findings[upheld.id] = upheld
                elif action.kind == "raise_finding":
                    raised = self._raised(ctx, action, material)
                    talk.findings[raised.id] = raised
                elif action.kind == "dispute" and action.finding_id in by_id:
                    talk.disputed[action.finding_id] = action.reasoning or "no reason given"
                elif action.kind == "done":
                    finished = True
            if finished:
                break
        talk.turns, talk.tokens = turn, spent

    def _raised(self, ctx: ValidationContext, action: ReviewAction, material: ReviewMaterial | None = None) -> Finding:
        element = ctx.ir.by_id().get(action.element_id or "") if action.element_id else None
        task_id = action.task_id or (
            material.task_of(element) if material is not None and element is not None else None
        )
        layer = action.layer or Layer.FIDELITY
        # a model may name a kind nobody declared: it is kept as the pattern, not as a new category
        declared = action.finding_kind if action.finding_kind and is_declared(layer, action.finding_kind) else None
        hit = Hit(
            severity=action.severity,
            artifact=element.artifact if element else "<task>",
            location=element.role if element else f"task {task_id}",
            message=action.reasoning,
            element_id=element.id if element else None,
            task_id=task_id,
            source=element.source_text if element else None,
            target=ctx.target_text(element) if element else None,
            reasoning=action.reasoning,
            detail={"quote": action.quote} if action.quote else {},
            pattern=None if declared else action.finding_kind,
        )
        return found(finding_kind(layer, declared or REVIEWER_JUDGEMENT), self.validator_id, hit)

    @staticmethod
    def _field_pair(ctx: ValidationContext, element_id: str | None) -> dict[str, str]:
        element = ctx.ir.by_id().get(element_id or "")
        if element is None:
            return {"error": f"no IR element {element_id}"}
        return {
            "artifact": element.artifact,
            "role": element.role,
            "type": element.translation_type.value,
            "source": element.source_text,
            "target": str(ctx.target_text(element)),
        }

    @staticmethod
    def _task_replay(ctx: ValidationContext, task_id: str | None) -> dict[str, str]:
        variant = ctx.harness
        if variant is None or task_id not in ctx.source.task_ids(None):
            return {"error": f"cannot replay task {task_id}"}
        (sg, sn), (tg, tn) = (
            replay_pairs_of(ctx.source, [task_id], "replay: source")[task_id],
            replay_pairs_of(variant, [task_id], "replay: variant")[task_id],
        )
        return {
            "source_golden_reward": str(sg.reward),
            "target_golden_reward": str(tg.reward),
            "source_do_nothing_reward": str(sn.reward),
            "target_do_nothing_reward": str(tn.reward),
            "source_tool_errors": " | ".join(sg.tool_error_sequence),
            "target_tool_errors": " | ".join(tg.tool_error_sequence),
        }
