"""A τ³ benchmark as the engines see it: files read here, runs done by the worker in τ³'s interpreter.

File methods (artifacts, artifact_path, load_artifact, fingerprints, task_ids, splits) read τ³'s
data folder directly. Runtime methods (tool_schemas, replays, trace, validate_artifacts) are one
worker request per batch (split in chunks only to report progress).
"""

from __future__ import annotations

import contextlib
import hashlib
import uuid
from collections.abc import Callable, Iterable
from functools import cache, cached_property
from pathlib import Path
from typing import Any

import orjson
from pydantic import ConfigDict

from babelflow.atomic_io import sha256_file, write_bytes_atomic
from babelflow.errors import BabelflowError
from babelflow.ir import Record
from babelflow.progress import report
from babelflow.variant import OVERLAY_NAME, CodeOverlay
from source_benchmarks.formats import source_folder
from source_benchmarks.protocol import ReplayOutcome, ToolCallObserver
from source_benchmarks.task_selection import FileBenchmark
from source_benchmarks.tau3.client import worker_for
from source_benchmarks.tau3.domains import task_folder, tau3_domain
from source_benchmarks.tau3.files import Tau3Files, task_functions, watch_sample
from source_benchmarks.tau3.messages import (
    BenchmarkRef,
    ModelAnswer,
    ModelCall,
    Operation,
    WorkerReply,
    WorkerRequest,
)
from source_benchmarks.tau3.runtime import require_runtime

_HARNESS_CODE = (
    "harness.py",
    "files.py",
    "domains.py",
    "worker.py",
    "mirrored_models.py",
    "setup_trace.py",
    "../tau_common/environment_factory.py",
    "../tau_common/localization.py",
    "../tau_common/replay.py",
    "../tau_common/fast_replay.py",
)  # what decides what the worker observes
CHUNK = 128  # tasks per request: a progress report between requests, one round trip each


@cache
def harness_digest() -> str:
    digest = hashlib.sha256()
    for name in _HARNESS_CODE:
        digest.update(sha256_file(Path(__file__).parent / name).encode())
    return digest.hexdigest()[:12]


class _Loose(Record):
    model_config = ConfigDict(extra="allow")


class Tau3Action(_Loose):
    name: str
    arguments: dict[str, Any] = {}
    requestor: str = "assistant"
    compare_args: list[str] | None = None


class Tau3Call(_Loose):
    env_type: str = "assistant"
    func_name: str


class Tau3State(_Loose):
    initialization_data: Any = None
    initialization_actions: list[Tau3Call] | None = None


class Tau3EnvAssertion(_Loose):
    env_type: str = "assistant"
    func_name: str
    arguments: dict[str, Any] = {}


class Tau3Criteria(_Loose):
    actions: list[Tau3Action] | None = None
    env_assertions: list[Tau3EnvAssertion] | None = None
    communicate_info: list[str] | None = None


class Tau3Task(_Loose):
    """What the main process reads of a τ³ task (τ³'s own Task model lives in the worker)."""

    id: str
    initial_state: Tau3State | None = None
    evaluation_criteria: Tau3Criteria | None = None


class Tau3Benchmark(Tau3Files, FileBenchmark):
    """One τ³ domain (tau2-bench 1.x) run by the worker; `source_dir` mirrors τ³'s data/ folder."""

    data_prefix = "data"  # a variant's files live under <variant>/data/, like τ³'s own data folder
    packaged_origin = "package"

    def __init__(
        self,
        benchmark_id: str,
        source_dir: Path | None = None,
        overlay: CodeOverlay | None = None,
        overlay_path: Path | None = None,
    ):
        self.spec = tau3_domain(benchmark_id)
        self.runtime = require_runtime()
        self.id = benchmark_id
        self.root = self.runtime.source_root
        self.data_dir = self.runtime.data_dir
        self.code_dir = self.runtime.source_root / "src" / "tau2"
        self.source_dir = source_folder(source_dir, "τ³'s data/ (tau2/domains/<domain>/...)")
        self.overlay = overlay
        # resolved here: the worker runs in .venv-tau3/, where a relative path names another file (or none)
        overlay_file = Path(overlay_path).resolve() if overlay is not None and overlay_path is not None else None
        self._ref = BenchmarkRef(
            handle=uuid.uuid4().hex,
            benchmark_id=benchmark_id,
            source_dir=str(self.source_dir) if self.source_dir else None,
            overlay_path=str(overlay_file) if overlay_file is not None else None,
        )

    @property
    def source_version(self) -> str:
        """τ³'s version and our harness code's: the analysis caches are keyed by it (a change in how
        the worker runs τ³ is a change of what the trace and the replays observe)."""
        return f"tau2=={self.runtime.tau2_version} (τ³; harness {harness_digest()})"

    # ---- tasks (read here) -------------------------------------------------------------------

    @cached_property
    def _tasks(self) -> dict[str, Any]:
        return self.read_tasks(Tau3Task)

    # ---- runs (in the worker) ----------------------------------------------------------------

    @property
    def plain_tool_output(self) -> bool:
        return self._ref.plain_tool_output

    @plain_tool_output.setter
    def plain_tool_output(self, plain: bool) -> None:
        """Tool results with non-ASCII as text (a variant's) or τ³'s own escaping; the worker keeps
        one harness per setting."""
        self._ref = self._ref.model_copy(update={"plain_tool_output": plain})

    def _call(
        self,
        op: Operation,
        task_ids: list[str] | None = None,
        on_model_call: Callable[[ModelCall], ModelAnswer] | None = None,
        **fields: Any,
    ) -> WorkerReply:
        what = f"{op} of {self.id}" + (f" ({self.source_dir})" if self.source_dir else "")
        reply = worker_for(self.runtime).call(
            WorkerRequest(id=0, op=op, bench=self._ref, task_ids=task_ids, **fields), what, on_model_call
        )
        failure = reply.failure
        if failure is not None:
            where = f"{self.id}" + (f", task {failure.task_id}" if failure.task_id else "")
            if failure.kind == "input":
                raise BabelflowError(
                    f"{where}: {failure.message}", file=failure.file, field=failure.field, fix=failure.fix
                )
            raise BabelflowError(
                f"{where}: τ³ raised {failure.message} during {op}\n{failure.traceback or ''}".rstrip(),
                field=f"task {failure.task_id}" if failure.task_id else None,
                fix="the task must run in τ³'s own code unchanged; if the source benchmark fails too, report it",
            )
        return reply

    def _chunks(self, op: Operation, ids: list[str], label: str, **fields: Any) -> list[WorkerReply]:
        replies = []
        report(label, 0, len(ids))
        for start in range(0, len(ids), CHUNK):
            replies.append(self._call(op, ids[start : start + CHUNK], **fields))
            report(label, min(start + CHUNK, len(ids)), len(ids))
        return replies

    def _ids(self, task_ids: Iterable[str] | None) -> list[str]:
        ids = list(task_ids) if task_ids is not None else self.task_ids()
        for task_id in ids:
            self.task(task_id)  # an unknown id is the caller's error, named here
        return ids

    # ---- answers that depend on the files only, kept across processes ---------------------------
    # A warm analysis or validation asks τ³ only for these two; kept by content (τ³'s version, every
    # artifact's sha256, the overlay, our harness code), so an unchanged benchmark needs no worker.

    def _memo_path(self, what: str) -> Path:
        digest = hashlib.sha256(f"{what}\0{self.id}\0{self.runtime.tau2_version}".encode())
        # each file by path, size and modification time (a differential trial opens hundreds of
        # scratch benchmarks: hashing 823 banking files each time cost more than the memo saved)
        for spec in self.artifacts():
            path = self.artifact_path(spec)
            stat = path.stat()
            digest.update(f"{spec.path}\0{path}\0{stat.st_size}\0{stat.st_mtime_ns}\0".encode())
        digest.update(harness_digest().encode())
        if self._ref.overlay_path:
            digest.update(sha256_file(Path(self._ref.overlay_path)).encode())
        return self.runtime.env_dir / "babelflow-memo" / f"{self.id}-{what}-{digest.hexdigest()[:32]}.json"

    def _remembered(self, what: str, compute: Any) -> Any:
        path = self._memo_path(what)
        with contextlib.suppress(OSError, ValueError):
            return orjson.loads(path.read_bytes())
        value = compute()
        with contextlib.suppress(OSError):  # a read-only environment folder only costs the memo
            path.parent.mkdir(parents=True, exist_ok=True)
            write_bytes_atomic(path, orjson.dumps(value))
        return value

    def task_functions(self, task_id: str) -> set[str]:
        return task_functions(self.task(task_id))

    def watched_tasks(self, limit: int) -> set[str]:
        """Task ids whose replays together reach most tools (differential trials replay these)."""
        return watch_sample([self.task(task_id) for task_id in self.task_ids(None)], limit)

    def tool_schemas(self) -> list[dict[str, Any]]:
        return self._remembered("tool_schemas", lambda: self._call("tool_schemas").schemas or [])

    def replay_golden(
        self,
        task_ids: Iterable[str] | None = None,
        observer: ToolCallObserver | None = None,
        scored: bool = True,
        label: str = "golden replays",
    ) -> list[ReplayOutcome]:
        outcomes = [
            o
            for reply in self._chunks("replay_golden", self._ids(task_ids), label, scored=scored)
            for o in reply.outcomes or []
        ]
        if observer is not None:  # the worker ran them; the observer sees each call as it would have
            for outcome in outcomes:
                for record in outcome.tool_calls:
                    observer(outcome.task_id, record)
        return outcomes

    def run_do_nothing(self, task_ids: Iterable[str] | None = None) -> list[ReplayOutcome]:
        return [
            o
            for reply in self._chunks("run_do_nothing", self._ids(task_ids), "do-nothing replays")
            for o in reply.outcomes or []
        ]

    def replay_pairs(
        self, task_ids: Iterable[str] | None = None, observer: ToolCallObserver | None = None, label: str = "replays"
    ) -> list[tuple[ReplayOutcome, ReplayOutcome]]:
        pairs = [
            (p.golden, p.do_nothing)
            for reply in self._chunks("replay_pairs", self._ids(task_ids), label)
            for p in reply.pairs or []
        ]
        if observer is not None:
            for golden, _ in pairs:
                for record in golden.tool_calls:
                    observer(golden.task_id, record)
        return pairs

    def trace(
        self, task_ids: Iterable[str] | None = None, label: str = "analysis: traced replays", db_sample: int = 12
    ) -> dict:
        """{(artifact, path, is_key): {kind: detail}}: the τ² tracer run on τ³ in the worker."""
        ids = self._ids(task_ids)
        if task_folder(self.spec):  # banking's DB is small (0.3 MB): watching every task's DB costs ~6 s, and
            db_sample = len(ids)  # its tables are read by 48 discoverable tools, most of them by few tasks
        report(label, 0, len(ids))
        entries = self._call("trace", ids, db_sample=db_sample).trace or []
        report(label, len(ids), len(ids))
        return {(e.artifact, tuple(e.path), e.is_key): e.kinds for e in entries}

    def validate_artifacts(self) -> list[str]:
        """Load every artifact with τ³'s own models (in the worker); nothing or a clear error."""
        _ = self._tasks
        return self._remembered("validate", lambda: self._call("validate").problems or [])


def open_tau3(
    benchmark_id: str,
    source_dir: Path | None = None,
    overlay: CodeOverlay | None = None,
    variant_root: Path | None = None,
) -> Tau3Benchmark:
    overlay_path = variant_root / OVERLAY_NAME if variant_root is not None and overlay is not None else None
    return Tau3Benchmark(benchmark_id, source_dir=source_dir, overlay=overlay, overlay_path=overlay_path)
