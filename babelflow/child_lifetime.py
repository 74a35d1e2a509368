"""A helper process that ends when the process that started it ends, SIGKILL included.

Issue 28: the code-trial process ran on for ~22 s after its parent was SIGKILLed, still patching
and rerunning the benchmark's code for nobody. Two mechanisms, because each has a gap:

* Linux `prctl(PR_SET_PDEATHSIG, SIGTERM)`, set by the child first thing (not in a preexec_fn,
  which may deadlock a parent with threads). It fires at once, and it fires when the parent
  *thread* that started the child ends (here the thread waiting on it), but it misses a parent
  that died before it was set.
* A pipe whose only write end the parent holds: a thread in the child reads it, and end-of-file
  means the parent is gone (the kernel closes a dead process's descriptors, even a zombie's).
  It covers that race, and platforms without prctl.

SIGTERM ends the child through SystemExit, so its `finally` blocks (temporary folders) still run;
if that does not happen within a grace period, the watchdog ends the process outright.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass

PIPE_ENV = "BABELFLOW_PARENT_PIPE"
PR_SET_PDEATHSIG = 1  # linux/prctl.h
GRACE_SECONDS = 3.0  # after SIGTERM, time for `finally` blocks before the process is ended outright


@dataclass(frozen=True)
class ParentLink:
    """What `subprocess` needs to start a child tied to this process: the env and pass_fds."""

    env: dict[str, str]
    pass_fds: tuple[int, ...]


@contextlib.contextmanager
def parent_link() -> Iterator[ParentLink]:
    """For the parent: start the child inside this block (env and pass_fds from the link). The
    write end stays open here until the block ends; it is not inheritable, so no other child
    started by `subprocess` keeps it open."""
    read_end, write_end = os.pipe()
    try:
        yield ParentLink(env={PIPE_ENV: str(read_end)}, pass_fds=(read_end,))
    finally:
        os.close(read_end)
        os.close(write_end)


def die_with_parent() -> None:
    """For the child, first thing in main(): end this process when the parent that started it
    (through `parent_link`) ends. A no-op in a process started without a link."""
    pipe = os.environ.pop(PIPE_ENV, None)  # popped: a process this one starts is not tied to our parent
    if pipe is None:
        return
    signal.signal(signal.SIGTERM, _exit_on_sigterm)
    armed = _set_parent_death_signal()
    threading.Thread(target=_watch_pipe, args=(int(pipe), armed), name="parent-watchdog", daemon=True).start()


_stopping = threading.Event()  # a SIGTERM arrived: the main thread is already unwinding


def _exit_on_sigterm(signum: int, frame: object) -> None:
    # the kernel sends the death signal again each time the child is handed to another of the dying
    # parent's threads: ignored from now on, so none cuts the `finally` blocks short or lands after
    # the interpreter restored the default action (the watchdog's deadline still ends the process)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    _stopping.set()
    raise SystemExit(128 + signum)  # unwinds the main thread: `finally` blocks remove temp folders


def _set_parent_death_signal() -> bool:
    """Armed? Best effort: the pipe watchdog remains either way."""
    libc_name = ctypes.util.find_library("c") if sys.platform.startswith("linux") else None
    if libc_name is None:
        return False
    return ctypes.CDLL(libc_name, use_errno=True).prctl(PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0) == 0


def _watch_pipe(fd: int, armed: bool) -> None:
    while True:
        try:
            if os.read(fd, 1) == b"":  # end of file: the parent's write end is closed
                break
        except InterruptedError:
            continue
        except OSError:
            break
    # with the death signal armed, the kernel's SIGTERM is on its way (unless the parent died before
    # it was armed): a second one from here could land after exit restored the default action
    if not _stopping.wait(0.5 if armed else 0):
        with contextlib.suppress(OSError):  # stderr may be a pipe nobody reads any more
            sys.stderr.write(f"babelflow helper process {os.getpid()}: the process that started it ended; stopping\n")
            sys.stderr.flush()
        os.kill(os.getpid(), signal.SIGTERM)
    time.sleep(GRACE_SECONDS)  # for the main thread's `finally` blocks; then end whatever it is doing
    os._exit(128 + signal.SIGTERM)
