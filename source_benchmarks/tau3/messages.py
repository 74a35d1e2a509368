"""The worker protocol: one JSON line per request on the worker's stdin, one per reply on its stdout.

Both sides import this module (the main process under 3.11, the worker under τ³'s 3.12), so it
imports pydantic and babelflow's records only. Work is batched: one request covers every task of a
replay, so the pipe costs one round trip per batch, not per task.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from babelflow.ir import Record
from source_benchmarks.agent_runs import GoldScript, TrialRecord
from source_benchmarks.protocol import ReplayOutcome

Operation = Literal[
    "hello",
    "task_ids",
    "splits",
    "tasks",
    "tool_schemas",
    "replay_golden",
    "run_do_nothing",
    "replay_pairs",
    "trace",
    "validate",
    "model_schemas",
    "agent_prepare",
    "gold_script",
    "run_trial",
    "model_answer",
]
Segment = str | int


class BenchmarkRef(Record):
    """Which benchmark, with which data files and which variant overlay (a variant's own files)."""

    handle: str = Field(
        description="one adapter object in the main process: its own parsed tasks and DBs in the worker"
    )
    benchmark_id: str
    source_dir: str | None = Field(default=None, description="folder laid out like τ³'s domain folder's parent data/")
    overlay_path: str | None = Field(default=None, description="the variant's code overlay file, if any")
    plain_tool_output: bool = Field(
        default=False, description="tool results keep non-ASCII as text (a variant's); False: τ³'s own escaping"
    )


class EvaluationRef(Record):
    """Agents on a benchmark: the variant registered as a τ³ domain (None: the packaged source)."""

    language: str
    variant_root: str | None = None
    retrieval_variant: str = Field(description="banking_knowledge's retrieval configuration (τ³'s names)")
    agent_language_clause: str = Field(
        default="", description="the language pack's line for the agent's instruction (packs load in the parent)"
    )


class ModelSpec(Record):
    """A model for one side of a trial: scripted (built in the worker) or bridged to the parent's model."""

    kind: Literal["scripted", "bridged"]
    label: str
    script: GoldScript | None = None
    misbehaviour: str = "faithful"
    counterparts: dict[str, str] = Field(default_factory=dict)
    native_zero: int | None = None


class TrialRequest(Record):
    task_id: str
    trial: int
    agent: ModelSpec
    user: ModelSpec
    max_steps: int = 100
    max_errors: int = 10


class ModelCall(Record):
    """The worker asks the parent for one model turn (OpenAI message format); keys stay in the parent."""

    role: Literal["agent", "user"]
    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]] | None = None


class ModelToolCall(Record):
    id: str
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)


class ModelAnswer(Record):
    content: str | None = None
    tool_calls: list[ModelToolCall] = Field(default_factory=list)
    failure: str | None = Field(default=None, description="the parent's model raised: the trial stops")


class PreparedRegistration(Record):
    """What `agent_prepare` registered in τ³'s registry."""

    domain: str
    agent_name: str
    user_name: str
    task_ids: list[str]
    greeting: str | None = None


class WorkerRequest(Record):
    id: int
    op: Operation
    bench: BenchmarkRef | None = None
    task_ids: list[str] | None = None
    scored: bool = True
    db_sample: int = 12
    models: list[str] | None = Field(
        default=None, description="dotted τ³ models (module:Class) whose JSON schemas are wanted"
    )
    evaluation: EvaluationRef | None = None
    trial: TrialRequest | None = None
    answer: ModelAnswer | None = None
    verbose: bool = Field(default=False, description="τ³'s own logging on during this request (run_trial)")


class WorkerFailure(Record):
    """An error raised in the worker: an input error (exit 2 with its fix) or a crash (with its traceback)."""

    kind: Literal["input", "crash"]
    message: str
    file: str | None = None
    field: str | None = None
    fix: str | None = None
    task_id: str | None = None
    traceback: str | None = None


class ReplayPair(Record):
    golden: ReplayOutcome
    do_nothing: ReplayOutcome


class TraceEntry(Record):
    """One traced location: (artifact, path, is_key) and what the run did with it."""

    artifact: str
    path: list[Segment]
    is_key: bool
    kinds: dict[str, str]


class Hello(Record):
    python: str
    tau2_version: str
    pid: int


class WorkerReply(Record):
    id: int
    failure: WorkerFailure | None = None
    hello: Hello | None = None
    ids: list[str] | None = None
    splits: dict[str, list[str]] | None = None
    tasks: list[dict[str, Any]] | None = Field(default=None, description="tasks as τ³'s model dumps them (JSON)")
    schemas: list[dict[str, Any]] | None = None
    outcomes: list[ReplayOutcome] | None = None
    pairs: list[ReplayPair] | None = None
    trace: list[TraceEntry] | None = None
    problems: list[str] | None = None
    model_schemas: dict[str, dict[str, Any]] | None = None
    prepared: PreparedRegistration | None = None
    gold: GoldScript | None = None
    trial: TrialRecord | None = None
    model_call: ModelCall | None = Field(
        default=None, description="not the reply yet: the worker waits for a model_answer request"
    )
    seconds: float = 0.0
