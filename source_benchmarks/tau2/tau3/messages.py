"""The worker protocol: one JSON line per request on the worker's stdin, one per reply on its stdout.

Both sides import this module (the main process under 3.11, the worker under τ³'s 3.12), so it
imports pydantic and babelflow's records only. Work is batched: one request covers every task of a
replay, so the pipe costs one round trip per batch, not per task.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from babelflow.ir import Record
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
    seconds: float = 0.0
