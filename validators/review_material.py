"""What a validator agent reads: the translation itself, not only the probes' findings.

Two kinds of item, each with its IR context (artifact, role, type, the canonical terms and
glossary terms it mentions with their renderings in this variant, the tokens that must stay
byte-identical):

* a **task** as a whole: every translated field of one task (instructions, criteria, assertions)
  side by side with its source, so the agent can ask "does it still ask for the same thing, with
  the same facts?" (BabelArena §3.2);
* a **unit**: every other translated text (policy, DB prose, guidelines), one view per distinct
  (source, target) pair, the fields sharing it listed so it is reviewed once.

``plan_review`` orders them for a token budget: all tasks first (a task's wording is what the
user simulator acts on), then units by risk (probe findings on the field, protected tokens,
canonical terms, numbers, an unusual length ratio, a target equal to its source), and cuts where
the budget ends; what is left out is counted, never silently dropped.
"""

from __future__ import annotations

import math
import re
from functools import cached_property

from pydantic import Field

from babelflow.ir import Record, TranslationType
from babelflow.llm.costs import estimate_tokens
from validators.context import ValidationContext
from validators.findings import Finding
from validators.task_ids import list_positions

# the prompt and the JSON envelope of one request, besides its items (measured on review.v2: ~900)
REQUEST_OVERHEAD_TOKENS = 1000
# follow-up turns (answers to the agent's questions) and replies, kept aside from the budget
REPLY_RESERVE = 0.25


class UnitView(Record):
    unit_id: str = Field(description="the IR element id an agent names in element_id")
    also: list[str] = Field(
        default_factory=list, description="other fields with the same source and target (reviewed once)"
    )
    artifact: str
    role: str
    type: str
    task_id: str | None = None
    source: str
    target: str
    canonical_terms: dict[str, str] = Field(
        default_factory=dict, description="source term -> its rendering in this variant"
    )
    glossary: dict[str, str] = Field(default_factory=dict, description="language-pack term -> required rendering")
    protected_tokens: list[str] = Field(default_factory=list, description="must appear byte-identical in the target")
    risk: float = 0.0


class TaskView(Record):
    task_id: str
    fields: list[UnitView]


class ReviewPlan(Record):
    """The batches one agent will send, and what the budget left out."""

    batches: list[tuple[list[TaskView], list[UnitView]]]
    tasks_total: int
    units_total: int
    tasks_left_out: int = 0
    units_left_out: int = 0
    estimated_tokens: int = 0

    @property
    def sampled(self) -> bool:
        return bool(self.tasks_left_out or self.units_left_out)

    def coverage(self) -> str:
        reviewed_tasks, reviewed_units = self.tasks_total - self.tasks_left_out, self.units_total - self.units_left_out
        return (
            f"{reviewed_tasks}/{self.tasks_total} tasks, {reviewed_units}/{self.units_total} units "
            f"in {len(self.batches)} batch(es)"
        )


class ReviewMaterial:
    """Task and unit views of one variant, built from one agent's own context (no sharing)."""

    def __init__(self, ctx: ValidationContext, probe_findings: list[Finding]):
        self.ctx = ctx
        self.flagged = {f.element_id for f in probe_findings if f.element_id}

    @cached_property
    def renderings(self) -> dict[str, str]:
        """Source term -> rendering: the canonical map when babelflow made the variant, else the
        policy the consistency probe infers from the variant's own DB and tasks."""
        if self.ctx.canonical_map is not None:
            return {
                e.source: e.target
                for e in self.ctx.canonical_map.entries
                if e.review_state != "rejected" and e.source != e.target
            }
        return {s: t for s, t in self.ctx.policy.renderings.items() if s != t}

    @cached_property
    def _term_pattern(self) -> re.Pattern | None:
        terms = sorted((t for t in self.renderings if len(t) > 2), key=len, reverse=True)
        return re.compile(r"(?<!\w)(" + "|".join(map(re.escape, terms)) + r")(?!\w)") if terms else None

    @cached_property
    def glossary(self) -> list:
        pack = self.ctx.pack
        return pack.glossary_for(self.ctx.ir.benchmark) if pack is not None else []

    @cached_property
    def _task_ids(self) -> dict[tuple[str, int], str]:
        """(tasks artifact, index in its list) -> task id, for benchmarks that keep tasks in a list."""
        return list_positions(self.ctx)

    def task_of(self, element) -> str | None:
        path = getattr(element.locator, "path", ())
        return self._task_ids.get((element.artifact, path[0])) if path and isinstance(path[0], int) else None

    def _code_texts(self):
        """(element, source, target) of the code texts a babelflow variant carries in its overlay
        (docstrings whole, as the overlay stores them; the element is one of their parts)."""
        overlay = self.ctx.overlay
        if overlay is None:
            return
        # keyed with the module too: AgentDojo's task modules of several versions share qualnames (UserTask0.PROMPT)
        code = {
            self.ctx.code_key(e): e
            for e in self.ctx.ir.elements
            if e.locator.kind == "python_literal" and e.translation_type is not TranslationType.PRESERVE
        }
        for text in overlay.texts:
            element = code.get((text.module, text.qualname, text.role, text.occurrence))
            if element is not None and text.target.strip() and text.source.strip():
                yield element, text.source, text.target

    def view(self, element, target: str, source: str | None = None) -> UnitView:
        source = element.source_text if source is None else source
        terms = (
            {m.group(1): self.renderings[m.group(1)] for m in self._term_pattern.finditer(source)}
            if self._term_pattern
            else {}
        )
        glossary = {g.source: g.target for g in self.glossary if g.source.lower() in source.lower()}
        view = UnitView(
            unit_id=element.id,
            artifact=element.artifact,
            role=element.role,
            type=element.translation_type.value,
            task_id=self.task_of(element),
            source=source,
            target=target,
            canonical_terms=terms,
            glossary=glossary,
            protected_tokens=list(element.inline_tokens),
        )
        view.risk = self.risk(view)
        return view

    def risk(self, view: UnitView) -> float:
        """Higher first: where a model translator most often changes meaning or breaks a token."""
        ratio = (len(view.target) + 1) / (len(view.source) + 1)
        return round(
            3.0 * (view.unit_id in self.flagged)
            + min(len(view.protected_tokens), 3)
            + 1.0 * bool(view.canonical_terms or view.glossary)
            + 1.0 * any(c.isdigit() for c in view.source)
            + min(abs(math.log(ratio)), 2.0)
            + 1.0 * (view.target == view.source and any(c.isalpha() for c in view.source)),
            3,
        )

    @cached_property
    def items(self) -> tuple[list[TaskView], list[UnitView]]:
        tasks: dict[str, list[UnitView]] = {}
        units: dict[tuple[str, str], UnitView] = {}
        for element in self.ctx.ir.elements:
            if element.translation_type is TranslationType.PRESERVE or not element.source_text.strip():
                continue
            target = self.ctx.target_text(element)
            if target is None:  # code text lives in the overlay; a field that cannot be located is integrity's finding
                continue
            task_id = self.task_of(element)
            if task_id is not None:
                tasks.setdefault(task_id, []).append(self.view(element, target))
                continue
            key = (element.source_text, target)
            if key in units:
                units[key].also.append(element.id)
                units[key].risk += 3.0 * (element.id in self.flagged and units[key].unit_id not in self.flagged)
            else:
                units[key] = self.view(element, target)
        for element, source, target in self._code_texts():
            key = (source, target)
            if key in units:
                units[key].also.append(element.id)
            else:
                units[key] = self.view(element, target, source)
        ordered_units = sorted(units.values(), key=lambda u: (-u.risk, u.artifact, u.unit_id))
        return [TaskView(task_id=t, fields=f) for t, f in tasks.items()], ordered_units


def _instruction(role: str) -> bool:
    """What the user simulator acts on: its instructions (tau2: user_scenario.*, a ticket)."""
    return "instructions" in role or "user_scenario" in role or role.endswith("ticket")


def item_tokens(item: TaskView | UnitView) -> int:
    return estimate_tokens(item.model_dump_json(exclude_defaults=True))


def plan_review(material: ReviewMaterial, *, batch_size: int, budget: int) -> ReviewPlan:
    """Batches of at most ``batch_size`` fields (a task counts its fields), all tasks first, then
    units by risk, until ``budget`` tokens (0: no limit) minus a reserve for follow-up turns."""
    tasks, units = material.items
    limit = budget * (1 - REPLY_RESERVE) if budget else math.inf
    if sum(item_tokens(t) for t in tasks) > limit:
        # not even every task whole fits: every task's instructions first, its other fields
        # (criteria, assertions) compete with the units by risk
        trimmed = [
            TaskView(task_id=t.task_id, fields=[f for f in t.fields if _instruction(f.role)] or t.fields) for t in tasks
        ]
        kept = {f.unit_id for t in trimmed for f in t.fields}
        rest = [f for t in tasks for f in t.fields if f.unit_id not in kept]
        tasks, units = trimmed, sorted([*units, *rest], key=lambda u: (-u.risk, u.artifact, u.unit_id))
    batches: list[tuple[list[TaskView], list[UnitView]]] = []
    current: tuple[list[TaskView], list[UnitView]] = ([], [])
    size = spent = 0
    left_tasks = left_units = 0
    items: list[TaskView | UnitView] = [*tasks, *units]
    for item in items:
        fields = len(item.fields) if isinstance(item, TaskView) else 1
        cost = item_tokens(item) + (REQUEST_OVERHEAD_TOKENS if size == 0 or size + fields > batch_size else 0)
        if spent + cost > limit:
            left_tasks += isinstance(item, TaskView)
            left_units += isinstance(item, UnitView)
            continue
        if size and size + fields > batch_size:
            batches.append(current)
            current, size = ([], []), 0
        if isinstance(item, TaskView):
            current[0].append(item)
        else:
            current[1].append(item)
        size += fields
        spent += cost
    if size:
        batches.append(current)
    return ReviewPlan(
        batches=batches,
        tasks_total=len(tasks),
        units_total=len(units),
        tasks_left_out=left_tasks,
        units_left_out=left_units,
        estimated_tokens=spent,
    )
