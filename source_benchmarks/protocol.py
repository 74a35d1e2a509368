"""The small protocol every source benchmark adapter implements, and the records it returns."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import Field

from babelflow.ir import ArtifactFingerprint, ArtifactFormat, ArtifactRole, Record


class FlatReading(Record):
    """A list the harness reads only through one list of each item, concatenated (VitaBench's evaluator reads
    `expected_states` as the state rubrics of every state, in order, each once): a variant that merges or
    splits its items changes nothing read while that concatenation stays the same length."""

    path: tuple[str, ...] = Field(description="the list's path below a record of the file ('*' for any key or index)")
    items: str = Field(description="the key of each item's list that is read")
    distinct: bool = Field(default=False, description="each text read once (repeats dropped)")


class ArtifactSpec(Record):
    """One file of a benchmark: where it lives relative to the benchmark root and how to read it."""

    path: str = Field(description="relative to the benchmark root, e.g. data/tau2/domains/retail/db.json")
    format: ArtifactFormat
    role: ArtifactRole
    data_model: str | None = Field(default=None, description="dotted path of the pydantic model that loads it")
    translatable: bool = Field(default=True, description="False for files kept as-is (task splits)")
    group: str | None = Field(
        default=None,
        description="files that are one logical artifact (τ³ banking: one task per file): their shared pattern, e.g. "
        "data/tau2/domains/banking_knowledge/tasks/*.json; "
        "analysis types and tries a field once per group, not per file",
    )
    holds_list: bool | None = Field(
        default=None, description="the file is a list of records (tasks.json); None: decided by the role"
    )
    embeds_environment: bool = Field(
        default=False,
        description="each task carries the environment its tools read (VitaBench): its fields are the DB's too",
    )
    keys_are_text: bool = Field(
        default=False,
        description="keys of the objects its data model does not describe are text (VitaBench: `职业` → "
        "`occupation` between its releases): each key is an IR element, typed by what the code does with it",
    )
    read_flat: tuple[FlatReading, ...] = Field(
        default=(), description="lists the harness reads only as the concatenation of one list of their items"
    )

    @property
    def logical_path(self) -> str:
        """The artifact as the analysis keys it: the group's pattern, or the file."""
        return self.group or self.path


class ToolCallRecord(Record):
    """One executed tool call and what the environment answered."""

    name: str
    requestor: Literal["user", "assistant"]
    arguments: dict[str, Any]
    output: str
    error: bool
    is_write: bool = False


class ReplayOutcome(Record):
    """What happened when a fixed trajectory (golden or do-nothing) ran and was scored."""

    task_id: str
    trajectory: Literal["golden", "do_nothing"]
    replayable: bool
    reward: float | None = None
    reward_breakdown: dict[str, float] = Field(default_factory=dict)
    tool_calls: list[ToolCallRecord] = Field(default_factory=list)
    final_db_sha256: str | None = None
    final_user_db_sha256: str | None = None
    evaluator_error: str | None = None
    note: str | None = None

    @property
    def tool_error_sequence(self) -> list[str]:
        return [f"{call.name}: {call.output}" for call in self.tool_calls if call.error]


def parity_signature(golden: ReplayOutcome, nothing: ReplayOutcome) -> tuple:
    """What must stay equal for a task when a text changes (differential and code trials, parity
    benches): (golden reward, do-nothing reward, golden tool-error sequence, golden evaluator ran,
    do-nothing evaluator ran, golden and do-nothing end in the same DB)."""
    return (
        golden.reward,
        nothing.reward,
        tuple(call.error for call in golden.tool_calls),
        golden.evaluator_error is None,
        nothing.evaluator_error is None,
        golden.final_db_sha256 == nothing.final_db_sha256,
    )


ToolCallObserver = Callable[[str, ToolCallRecord], None]


@runtime_checkable
class SourceBenchmark(Protocol):
    """What babelflow needs from a benchmark. Adapters drive the benchmark's own code."""

    id: str
    root: Path

    @property
    def source_version(self) -> str: ...

    def artifacts(self) -> list[ArtifactSpec]: ...

    def artifact_path(self, spec: ArtifactSpec) -> Path: ...

    def load_artifact(self, spec: ArtifactSpec) -> Any: ...

    def fingerprints(self) -> list[ArtifactFingerprint]: ...

    def task_ids(self, split: str | None = None) -> list[str]: ...

    def task(self, task_id: str) -> Any: ...

    def tool_schemas(self) -> list[dict[str, Any]]: ...

    def replay_golden(
        self,
        task_ids: Iterable[str] | None = None,
        observer: ToolCallObserver | None = None,
        scored: bool = True,
        label: str = ...,
    ) -> list[ReplayOutcome]: ...

    def run_do_nothing(self, task_ids: Iterable[str] | None = None) -> list[ReplayOutcome]: ...

    def validate_artifacts(self) -> list[str]: ...


class TracedBenchmark(Protocol):
    """A benchmark whose replays can be traced per text location (family.traced_replay)."""

    def trace(self, task_ids: Iterable[str] | None = None, label: str = ...) -> dict: ...

    def replay_pairs(
        self, task_ids: Iterable[str] | None = None, *, label: str = ...
    ) -> list[tuple[ReplayOutcome, ReplayOutcome]]:
        """(golden, do-nothing) per task, the fastest way the benchmark has to run both."""
        ...

    def task_functions(self, task_id: str) -> set[str]: ...

    def watched_tasks(self, limit: int) -> set[str]: ...


class CodeTrialBenchmark(TracedBenchmark, Protocol):
    """A traced benchmark whose code texts can each be perturbed alone and replayed (family.code_trials)."""

    def code_trials(
        self,
        literals: list[CodeLiteral],
        open_keys: list[str],
        conversation_keys: list[str],
        replay_tasks: dict[str, list[str]],
    ) -> list[CodeTrialResult]: ...


# ---- perturbation trials (code and data typed together: family.perturbation) ------------------------


class DataFileFacts(Record):
    """How a benchmark reads the texts of one data file, for the analysis that types them by shape and trial."""

    model: str | None = Field(default=None, description="'module:qualname' of the pydantic model the file loads into")
    model_path: tuple[str, ...] = Field(default=(), description="where the file sits in that model (an included file)")
    reparsed: bool = Field(default=False, description="formatted and re-parsed at run time: an escape changes meaning")
    messages: bool = Field(default=False, description="its texts are messages: prose, never one canonical value")
    read_by_tasks: bool = Field(default=True, description="False: no task's environment or checks ever read it")
    unread_keys: tuple[str, ...] = Field(default=(), description="leaves under these keys never reach a task")


class ComposedText(Record):
    """A text of a task its benchmark composes at import time from other tasks, located at their module."""

    qualname: str = Field(description="'<task class>.<attribute>', e.g. UserTask3.PROMPT")
    text: str


class TaskCode(Record):
    """A class whose literals a task's checks and ground truth hold."""

    artifact: str = Field(description="the Python artifact (ArtifactSpec.path) that defines it")
    qualname: str


@runtime_checkable
class PerturbedBenchmark(Protocol):
    """A benchmark whose code and data texts are typed together by a perturbation trial
    (family.perturbation): what the analysis reads from it beyond the SourceBenchmark protocol.
    The trial's perturbed copies open through its family's `open_variant`."""

    text_attributes: frozenset[str]  # class attributes of a task that hold text (PROMPT, GOAL, ...)

    def data_file(self, spec: ArtifactSpec) -> DataFileFacts: ...

    def python_module(self, spec: ArtifactSpec) -> ModuleType: ...

    def tool_functions(self, spec: ArtifactSpec) -> list[str]: ...

    def docstring_pieces(self, doc: str) -> list[str]: ...

    def composed_texts(self, spec: ArtifactSpec) -> list[ComposedText]: ...

    def task_code(self, task_id: str) -> list[TaskCode]: ...


# ---- code trials (analysis evidence for code texts) -------------------------------------------------


class CodeLiteral(Record):
    """A code text of the IR, where the scanner found it."""

    key: str  # the IR element id
    artifact: str  # e.g. agent/llm_agent.py or domains/mock/tools.py
    file: str  # absolute path of the module's source as the benchmark resolves it
    qualname: str  # <module>, a class, or a function's qualified name
    name: str | None = None  # the assigned name, for constants
    text: str


class CodeTrialResult(Record):
    key: str
    changed: str | None = Field(description="what changed when the text alone was perturbed; None: nothing")
    linked: list[str] = Field(
        default_factory=list, description="with these equal texts perturbed too, the outcome came back"
    )
    shown: bool = Field(
        default=False, description="unchanged outcome, but the perturbed text reached a tool result the model reads"
    )
    found: bool = True


# ---- agent evaluation: one chat turn of the agent or user simulator --------------------------------


@dataclass
class ChatReply:
    content: str | None
    tool_calls: list[tuple[str, str, dict]] = field(default_factory=list)  # (id, name, arguments)


class ChatModel(Protocol):
    """One chat-completions turn with tools, in OpenAI's message format."""

    label: str

    def chat(self, messages: list[dict], tools: list[dict] | None) -> ChatReply: ...
