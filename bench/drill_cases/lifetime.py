"""What happens to the code-trial process when the process that started it is SIGKILLed (issue 28,
item 13: it ran on for ~22 s). Shared by the bad-input drill's check and
tests/analyzers/test_code_trial_lifetime.py.

This process makes itself a child subreaper (Linux), so the orphaned child is reparented here and
its exit status can be read: 143 is the SIGTERM it gets when its parent dies, turned into
SystemExit (its temporary folders removed); 0 would mean it ran the trials to the end for nobody.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from babelflow.ir import Record

ROOT = Path(__file__).resolve().parents[2]
CHILD_MODULE = "source_benchmarks.tau_common.code_trials"
PR_SET_CHILD_SUBREAPER = 36  # linux/prctl.h

# a parent that runs tau2-mock's code trials on its two control tokens, each under six keys: ~7 s
# of trials on an idle machine. With the two keys alone the child ended ~2.3 s after it started, so
# a kill at 1.5 s could meet it already exiting (CI: killed by the default SIGTERM action, -15)
PARENT_SCRIPT = """
import tau2.user.base as base
from source_benchmarks.tau_common.code_perturbation import CodeLiteral
from source_benchmarks.tau_common.code_trials import CodeTrialRequest, run_code_trials
where = dict(artifact="user/base.py", file=base.__file__, qualname="<module>")
literals = [
    CodeLiteral(key=f"{key}{copy}", name=name, text=text, **where)
    for key, name, text in (("stop", "STOP", "###STOP###"), ("scope", "OUT_OF_SCOPE", "###OUT-OF-SCOPE###"))
    for copy in range(6)
]
keys = [literal.key for literal in literals]
run_code_trials(CodeTrialRequest(benchmark_id="tau2-mock", literals=literals, open_keys=keys, conversation_keys=keys))
"""


class ChildFate(Record):
    child_pid: int
    ran_before_kill: float  # seconds the child had been seen running when its parent was killed
    gone: bool  # False: still running `timeout` seconds after the kill (then SIGKILLed here)
    exit_code: int | None  # its exit status when this process reaped it (negative: killed by that signal)
    seconds_after_kill: float


def _prctl(option: int, value: int) -> bool:
    name = ctypes.util.find_library("c")
    return bool(name) and sys.platform.startswith("linux") and ctypes.CDLL(name).prctl(option, value, 0, 0, 0) == 0


def _children(parent: int, marker: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])  # after "(comm)": state, ppid
        if ppid == parent and marker.encode() in cmdline:
            found.append(int(entry.name))
    return found


def _running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"  # a zombie has ended; only its exit status waits to be read


def _reap(pid: int, timeout: float) -> tuple[bool, int | None]:
    """(ended, exit code) of `pid` within `timeout` s; the code only if it is our (adopted) child."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done == pid:
                return True, os.waitstatus_to_exitcode(status)
        except ChildProcessError:  # adopted by someone else, or already reaped
            if not _running(pid):
                return True, None
        if time.monotonic() >= deadline:
            return False, None
        time.sleep(0.02)


def kill_code_trial_parent(run_for: float = 1.5, timeout: float = 10.0) -> ChildFate:
    """Start a parent running real code trials, SIGKILL it once its child has run `run_for` s,
    and report what became of the child."""
    return kill_parent(PARENT_SCRIPT, CHILD_MODULE, run_for, timeout)


def kill_parent(script: str, marker: str, run_for: float, timeout: float) -> ChildFate:
    """Run `script` as a parent, wait for its child (the process whose command line holds
    `marker`), SIGKILL the parent once the child has run `run_for` s, and report the child's fate."""
    if not _prctl(PR_SET_CHILD_SUBREAPER, 1):
        raise RuntimeError("needs Linux (PR_SET_CHILD_SUBREAPER) to read the orphan's exit status")
    child = 0
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "DO_NOT_TRACK": "1", "PYTHONPATH": str(ROOT)}
    parent = subprocess.Popen(
        [sys.executable, "-c", script], cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 60
        while not (found := _children(parent.pid, marker)):
            if parent.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(
                    f"the parent ended (exit {parent.returncode}) or timed out before starting its child"
                )
            time.sleep(0.02)
        child, seen = found[0], time.monotonic()
        time.sleep(run_for)
        parent.send_signal(signal.SIGKILL)
        parent.wait()
        killed = time.monotonic()
        gone, code = _reap(child, timeout)
        after = round(time.monotonic() - killed, 2)
        return ChildFate(
            child_pid=child,
            ran_before_kill=round(killed - seen, 2),
            gone=gone,
            exit_code=code,
            seconds_after_kill=after,
        )
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait()
        if child and _running(child):  # never leave it behind, whatever happened
            with contextlib.suppress(ProcessLookupError):
                os.kill(child, signal.SIGKILL)
            _reap(child, 5)
        _prctl(PR_SET_CHILD_SUBREAPER, 0)
