"""The main process's side of the τ³ worker: start it once, keep it alive, one request at a time.

The worker runs in τ³'s own interpreter (.venv-tau3, Python 3.12) with this checkout on its
PYTHONPATH: the τ² adapter's code drives τ³'s `tau2` there. It is tied to this process
(babelflow.child_lifetime: it ends when we end, SIGKILL included) and is started on first use
(importing τ³ takes ~7-13 s, mostly litellm, which τ³'s `tau2/__init__` imports), then reused by
every benchmark, source and variants alike.

A worker that dies mid-request is an error naming the benchmark, the operation and the worker's
last lines of stderr; the next request starts a new worker.
"""

from __future__ import annotations

import atexit
import collections
import contextlib
import os
import subprocess
import sys
import threading
from collections.abc import Callable
from typing import IO

from babelflow.child_lifetime import parent_link
from babelflow.errors import BabelflowError
from source_benchmarks.tau3.messages import ModelAnswer, ModelCall, WorkerReply, WorkerRequest
from source_benchmarks.tau3.runtime import INSTALL_COMMAND, PROJECT_ROOT, Tau3Runtime

MODULE = "source_benchmarks.tau3.worker"
STDERR_TAIL = 40  # lines of the worker's stderr kept for error messages


class Tau3Worker:
    """One worker process and the pipe to it."""

    def __init__(self, runtime: Tau3Runtime):
        self.runtime = runtime
        self._lock = threading.Lock()
        self._process: subprocess.Popen[str] | None = None
        self._link: contextlib.ExitStack | None = None
        self._stderr: collections.deque[str] = collections.deque(maxlen=STDERR_TAIL)
        self._next_id = 0
        self.echo = False  # also copy the worker's stderr to ours (`--verbose`: τ³'s own logging)

    def _environment(self, extra: dict[str, str]) -> dict[str, str]:
        env = {
            key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")
        }
        env.update(
            PYTHONPATH=str(PROJECT_ROOT),  # babelflow's own modules, run from this checkout (none installed there)
            TAU2_DATA_DIR=str(self.runtime.data_dir),
            LITELLM_LOCAL_MODEL_COST_MAP="True",  # no network fetch at import
            DO_NOT_TRACK="1",
            PYTHONUTF8="1",  # τ³ opens its files without an encoding
            PYTHONDONTWRITEBYTECODE="1",  # the checkout's __pycache__ stays the 3.11 interpreter's
        )
        env.update(extra)
        return env

    def _start(self) -> subprocess.Popen[str]:
        """Start the worker from a thread of its own that lives as long as the worker (it drains the
        worker's stderr): the kernel's parent-death signal fires when the *thread* that started a
        child ends, and the first caller may be a flow's language thread that ends long before the
        other languages are done with the worker (en-XA's request died with exit 143 when es ended)."""
        stack = contextlib.ExitStack()
        link = stack.enter_context(parent_link())
        started: list[subprocess.Popen[str] | OSError] = []
        ready = threading.Event()
        self._stderr.clear()

        def parent_thread() -> None:
            try:
                started.append(
                    subprocess.Popen(
                        [str(self.runtime.python), "-m", MODULE],
                        stdin=subprocess.PIPE,
                        stdout=subprocess.PIPE,
                        stderr=subprocess.PIPE,
                        text=True,
                        encoding="utf-8",
                        env=self._environment(link.env),
                        pass_fds=link.pass_fds,
                        cwd=self.runtime.env_dir,  # τ³ loads a .env from its working folder: none of the user's
                    )
                )
            except OSError as exc:
                started.append(exc)
            finally:
                ready.set()
            if isinstance(started[0], subprocess.Popen):
                self._drain(started[0].stderr)

        threading.Thread(target=parent_thread, name="tau3-worker-parent", daemon=True).start()
        ready.wait()
        process = started[0]
        if isinstance(process, OSError):
            stack.close()
            raise BabelflowError(
                f"cannot start the τ³ worker ({self.runtime.python}): {process}", fix=f"reinstall τ³: {INSTALL_COMMAND}"
            ) from process
        self._process, self._link = process, stack
        return process

    def _drain(self, stream: IO[str] | None) -> None:
        if stream is None:
            return
        for line in stream:
            self._stderr.append(line.rstrip("\n"))
            if self.echo:
                sys.stderr.write(line)

    def call(
        self, request: WorkerRequest, what: str, on_model_call: Callable[[ModelCall], ModelAnswer] | None = None
    ) -> WorkerReply:
        """Send one request and wait for its reply; `what` names the benchmark (and op) in errors.
        A bridged trial's model turns arrive first (`model_call` lines): `on_model_call` answers each."""
        with self._lock:
            process = self._process if self._process is not None and self._process.poll() is None else self._start()
            self._next_id += 1
            request.id = self._next_id
            line = self._exchange(process, request, what)
            reply = WorkerReply.model_validate_json(line)
            while reply.model_call is not None and reply.id == request.id:
                try:
                    answer = (
                        on_model_call(reply.model_call)
                        if on_model_call is not None
                        else ModelAnswer(failure="this request has no model to answer with")
                    )
                except BaseException:  # the worker waits for an answer it will not get: end it, not desync the pipe
                    process.kill()
                    process.wait()
                    self._forget()
                    raise
                line = self._exchange(process, WorkerRequest(id=request.id, op="model_answer", answer=answer), what)
                reply = WorkerReply.model_validate_json(line)
        if reply.id != request.id:
            raise BabelflowError(
                f"the τ³ worker answered request {reply.id} to request {request.id} ({what})",
                fix="this is a babelflow bug: report it",
            )
        return reply

    def _exchange(self, process: subprocess.Popen[str], request: WorkerRequest, what: str) -> str:
        """One line out, one line in; a dead worker is an error with its exit code and last words."""
        assert process.stdin is not None and process.stdout is not None
        try:
            process.stdin.write(request.model_dump_json() + "\n")
            process.stdin.flush()
            line = process.stdout.readline()
        except (BrokenPipeError, OSError):
            line = ""
        if not line:  # the worker died: its exit code and last words, not a hung pipe
            code = process.wait()
            self._forget()
            tail = "\n".join(list(self._stderr)[-12:])
            raise BabelflowError(
                f"the τ³ worker ended (exit code {code}) during {what}"
                + (f"; its last output:\n{tail}" if tail else ""),
                fix=f"check the τ³ install ({INSTALL_COMMAND}); the next command starts a new worker",
            )
        return line

    def _forget(self) -> None:
        self._process = None
        if self._link is not None:
            self._link.close()
            self._link = None

    def stop(self) -> None:
        """Close the worker's stdin (it exits) and wait for it briefly."""
        with self._lock:
            process = self._process
            if process is not None:
                with contextlib.suppress(OSError):
                    if process.stdin is not None:
                        process.stdin.close()
                try:
                    process.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
            self._forget()

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None


_WORKERS: dict[str, Tau3Worker] = {}
_WORKERS_LOCK = threading.Lock()


def worker_for(runtime: Tau3Runtime) -> Tau3Worker:
    """The process's worker for this runtime (one per τ³ environment)."""
    with _WORKERS_LOCK:
        key = str(runtime.env_dir)
        worker = _WORKERS.get(key)
        if worker is None:
            worker = _WORKERS[key] = Tau3Worker(runtime)
        return worker


@atexit.register
def _stop_all() -> None:
    for worker in list(_WORKERS.values()):
        worker.stop()
