"""What a validator agent and its model exchange, and what the agent keeps: the wire records.

A request carries whole tasks and units (``review_material``) with the probe findings about them; a
reply is a list of actions (ask, raise, uphold, dispute, done). ``AgentMemory`` is what an agent
remembers between runs; ``AgentReport`` what one run gives the merge.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol

from pydantic import Field

from babelflow.ir import Record
from validators.findings import Finding, Layer, Severity
from validators.review_material import TaskView, UnitView

if TYPE_CHECKING:
    from pydantic.main import IncEx


class ReviewAction(Record):
    kind: Literal["ask_field_pair", "ask_task_replay", "raise_finding", "uphold", "dispute", "done"]
    element_id: str | None = None
    task_id: str | None = None
    finding_id: str | None = None
    layer: Layer | None = None
    finding_kind: str | None = None
    severity: Severity = Severity.MAJOR
    reasoning: str = ""
    quote: str | None = Field(default=None, description="the words of the target the finding is about")


# spelled in two steps: mypy cannot match the nested literal against pydantic's recursive IncEx at once
_UNIT_BOOKKEEPING: IncEx = {"__all__": {"risk", "also"}}
_NOT_SENT: IncEx = {"tasks": {"__all__": {"fields": _UNIT_BOOKKEEPING}}, "units": _UNIT_BOOKKEEPING}


class AgentMemory(Record):
    """What one agent found about each item it read, by the item's key (``ValidatorAgent._key``)."""

    items: dict[str, list[Finding]] = Field(default_factory=dict)
    probe_findings: list[Finding] = Field(
        default_factory=list, description="what the probes had found when the agent last read (`--estimate` reuses)"
    )


def remembered_probe_findings(memory_dir: Path) -> list[Finding]:
    """The probe findings the agents were given when they last read this variant (none remembered: [])."""
    for path in sorted(memory_dir.glob("*.json")) if memory_dir.is_dir() else []:
        try:
            return AgentMemory.model_validate_json(path.read_bytes()).probe_findings
        except ValueError:  # an unreadable memory is forgotten, as `_load_memory` does
            continue
    return []


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
    batch: int = 1
    batches: int = 1
    tasks: list[TaskView] = Field(
        default_factory=list, description="whole tasks to read: every translated field with its source"
    )
    units: list[UnitView] = Field(
        default_factory=list, description="other translation units to read, with their IR context"
    )

    def wire(self) -> dict:
        """What the model is sent. Empty fields, the agent's own risk ordering and a unit's other
        occurrences (`also`: bookkeeping for the merge, up to hundreds of ids) are not: tokens the model
        would only pay to read."""
        payload = self.model_dump(mode="json", exclude_defaults=True, exclude=_NOT_SENT)
        return {**payload, "batch": self.batch, "batches": self.batches}


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
    tokens: int = Field(
        default=0, description="requests and replies as estimated by the agent (chars/4): what the budget counts"
    )
    tasks_read: int = 0
    units_read: int = 0
    disputed: dict[str, str] = Field(
        default_factory=dict, description="probe finding id -> why this agent thinks it is wrong (the reviewer decides)"
    )
