"""The τ³ worker: `.venv-tau3/bin/python -m source_benchmarks.tau3.worker`, started by client.py.

Reads WorkerRequest lines on stdin, answers WorkerReply lines on stdout, until stdin closes or the
parent dies (babelflow.child_lifetime). The real stdout is kept for the protocol only: anything τ³
prints goes to stderr, which the client keeps the tail of for its error messages. An error in a
request is a reply naming the benchmark and the task, never a dead pipe; the worker goes on.

During a `run_trial` with a bridged model, the worker writes `model_call` lines (a reply that is
not the reply yet) and reads the parent's `model_answer` request for each, before the trial's reply:
the provider model, its keys and its token accounting stay in the parent.
"""

from __future__ import annotations

import importlib.util
import os
import platform
import sys
import time
import traceback
import types
from collections import OrderedDict
from importlib import metadata
from typing import IO, Any

from babelflow.child_lifetime import die_with_parent
from babelflow.errors import BabelflowError
from source_benchmarks.protocol import ChatReply
from source_benchmarks.tau3.messages import (
    BenchmarkRef,
    Hello,
    ModelCall,
    ReplayPair,
    TraceEntry,
    WorkerFailure,
    WorkerReply,
    WorkerRequest,
)

KEEP = 6  # benchmarks kept open (source + a few variants); each holds parsed tasks and DBs


class _NamedFailure(Exception):
    def __init__(self, task_id: str, cause: BaseException):
        super().__init__(str(cause))
        self.task_id, self.cause = task_id, cause


class Bridge:
    """The worker's side of a bridged model turn: a `model_call` line out, a `model_answer` line in."""

    def __init__(self, requests: IO[str], replies: IO[str]):
        self.requests, self.replies = requests, replies
        self.request_id = -1  # the request being answered

    def ask(self, call: ModelCall) -> ChatReply:
        self.replies.write(WorkerReply(id=self.request_id, model_call=call).model_dump_json() + "\n")
        self.replies.flush()
        line = self.requests.readline()
        if not line:
            raise BrokenPipeError("the parent closed the pipe during a model call")
        request = WorkerRequest.model_validate_json(line)
        answer = request.answer
        if request.op != "model_answer" or answer is None:
            raise BabelflowError(
                f"expected the parent's model answer, got {request.op!r}", fix="this is a babelflow bug: report it"
            )
        if answer.failure is not None:
            raise BabelflowError(f"the {call.role} model failed: {answer.failure}", field=f"{call.role} model")
        return ChatReply(answer.content, [(c.id, c.name, dict(c.arguments)) for c in answer.tool_calls])


class Worker:
    def __init__(self, bridge: Bridge | None = None) -> None:
        self._open: OrderedDict[tuple, object] = OrderedDict()
        self._runs: dict[tuple, object] = {}  # agent runs registered in τ³ (a registry entry is never removed)
        self.bridge = bridge

    @staticmethod
    def _key(ref: BenchmarkRef) -> tuple:
        return (ref.handle, ref.benchmark_id, ref.source_dir, ref.overlay_path, ref.plain_tool_output)

    def harness(self, ref: BenchmarkRef):
        from source_benchmarks.tau3.harness import open_harness

        key = self._key(ref)
        found = self._open.get(key)
        if found is None:
            found = self._open[key] = open_harness(
                ref.benchmark_id, ref.source_dir, ref.overlay_path, ref.plain_tool_output
            )
            while len(self._open) > KEEP:
                self._open.popitem(last=False)
        self._open.move_to_end(key)
        return found

    def agent_runs(self, request: WorkerRequest):
        """The benchmark registered for agent runs (once per benchmark and evaluation settings)."""
        from source_benchmarks.tau3.trials import register

        if request.bench is None or request.evaluation is None:
            raise BabelflowError(
                f"{request.op} needs a benchmark and evaluation settings", fix="this is a babelflow bug: report it"
            )
        key = (self._key(request.bench), request.evaluation.model_dump_json())
        runs = self._runs.get(key)
        if runs is None:
            # kept out of the harness cache's eviction: τ³'s registry holds the domain for good
            runs = self._runs[key] = register(self.harness(request.bench), request.evaluation)
        return runs

    def _agent_op(self, request: WorkerRequest, reply: WorkerReply) -> None:
        runs: Any = self.agent_runs(request)
        if request.op == "agent_prepare":
            reply.prepared = runs.registration
        elif request.op == "gold_script":
            task_id = (request.task_ids or [""])[0]
            try:
                reply.gold = runs.gold_script(task_id)
            except Exception as exc:
                raise _NamedFailure(task_id, exc) from exc
        elif request.op == "run_trial" and request.trial is not None:
            from loguru import logger

            if request.verbose:  # to the worker's stderr, which the client echoes while verbose
                logger.enable("tau2")
            try:
                reply.trial = runs.run_trial(request.trial, self.bridge.ask if self.bridge else None)
            except Exception as exc:
                raise _NamedFailure(request.trial.task_id, exc) from exc
            finally:
                logger.disable("tau2")  # replays stay quiet: formatting τ³'s DEBUG lines dominates them

    @staticmethod
    def _each(ids: list[str], run) -> list:
        """Run per task so a failure names its task (one request still carries the whole batch)."""
        results = []
        for task_id in ids:
            try:
                results.extend(run([task_id]))
            except Exception as exc:
                raise _NamedFailure(task_id, exc) from exc
        return results

    def handle(self, request: WorkerRequest) -> WorkerReply:
        reply = WorkerReply(id=request.id)
        if request.op == "hello":  # also imports τ³ (~7-13 s, litellm): the worker is ready once it answers
            import tau2.environment.environment  # noqa: F401

            reply.hello = Hello(
                python=platform.python_version(), tau2_version=metadata.version("tau2"), pid=os.getpid()
            )
            return reply
        if request.op == "model_schemas":
            from source_benchmarks.tau_common.environment_factory import import_object

            reply.model_schemas = {dotted: import_object(dotted).model_json_schema() for dotted in request.models or []}
            return reply
        if request.op in ("agent_prepare", "gold_script", "run_trial"):
            self._agent_op(request, reply)
            return reply
        if request.bench is None:
            raise BabelflowError(
                f"worker request {request.op!r} names no benchmark", fix="this is a babelflow bug: report it"
            )
        bench = self.harness(request.bench)
        ids = request.task_ids if request.task_ids is not None else bench.task_ids(None)
        if request.op == "task_ids":
            reply.ids = bench.task_ids(None)
        elif request.op == "splits":
            reply.splits = bench.splits()
        elif request.op == "tasks":
            reply.tasks = [bench.task(task_id).model_dump(mode="json") for task_id in ids]
        elif request.op == "tool_schemas":
            reply.schemas = bench.tool_schemas()
        elif request.op == "replay_golden":
            reply.outcomes = self._each(ids, lambda one: bench.replay_golden(one, scored=request.scored))
        elif request.op == "run_do_nothing":
            reply.outcomes = self._each(ids, bench.run_do_nothing)
        elif request.op == "replay_pairs":
            reply.pairs = [ReplayPair(golden=g, do_nothing=n) for g, n in self._each(ids, bench.replay_pairs)]
        elif request.op == "trace":
            observed = bench.trace(ids, db_sample=request.db_sample)
            reply.trace = [
                TraceEntry(artifact=a, path=list(p), is_key=k, kinds=kinds) for (a, p, k), kinds in observed.items()
            ]
        elif request.op == "validate":
            reply.problems = bench.validate_artifacts()
        return reply

    def answer(self, line: str) -> WorkerReply:
        started = time.perf_counter()
        request_id = -1
        try:
            request = WorkerRequest.model_validate_json(line)
            request_id = request.id
            if self.bridge is not None:
                self.bridge.request_id = request_id
            reply = self.handle(request)
        except _NamedFailure as failure:
            reply = WorkerReply(id=request_id, failure=_failure(failure.cause, failure.task_id))
        except Exception as exc:
            reply = WorkerReply(id=request_id, failure=_failure(exc, None))
        reply.seconds = round(time.perf_counter() - started, 3)
        return reply


def _failure(exc: BaseException, task_id: str | None) -> WorkerFailure:
    if isinstance(exc, BabelflowError):
        return WorkerFailure(
            kind="input", message=exc.message, file=exc.file, field=exc.field, fix=exc.fix, task_id=task_id
        )
    return WorkerFailure(
        kind="crash", message=f"{type(exc).__name__}: {exc}", task_id=task_id, traceback=traceback.format_exc(limit=12)
    )


def serve(requests: IO[str], replies: IO[str]) -> None:
    worker = Worker(Bridge(requests, replies))
    while line := requests.readline():  # readline, not iteration: a bridged model call reads the pipe too
        if line.strip():
            replies.write(worker.answer(line).model_dump_json() + "\n")
            replies.flush()


def skip_package_exports() -> None:
    """Import τ³'s modules without running `tau2/__init__.py`: it only re-exports the runner, the
    registry and the LLM agents for convenience, and importing them imports litellm (~10 s of the
    worker's start). The modules the worker uses import what they need themselves."""
    spec = importlib.util.find_spec("tau2")
    if spec is None or spec.submodule_search_locations is None or "tau2" in sys.modules:
        return
    package = types.ModuleType("tau2")
    package.__path__ = list(spec.submodule_search_locations)
    package.__file__, package.__spec__ = spec.origin, spec
    sys.modules["tau2"] = package


def main() -> None:
    die_with_parent()
    skip_package_exports()
    protocol = os.fdopen(os.dup(sys.stdout.fileno()), "w", encoding="utf-8")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # τ³'s prints must not reach the protocol pipe
    sys.stdout = sys.stderr
    try:
        serve(sys.stdin, protocol)
    except (BrokenPipeError, KeyboardInterrupt):  # the parent went away: nothing to answer
        pass


if __name__ == "__main__":
    main()
