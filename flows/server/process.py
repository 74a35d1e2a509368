"""Who a pid is: its start time and command line from /proc, and ending its process group.

A pid alone names whatever process got that number last; (pid, start time) names one process for
the life of the machine, and the command line says it is our launcher for this state folder."""

from __future__ import annotations

import os
import signal
import time

from babelflow.ir import Record


class ProcessIdentity(Record):
    pid: int
    start_ticks: int  # field 22 of /proc/<pid>/stat: clock ticks after boot
    command: list[str]


def start_ticks(pid: int) -> int | None:
    try:
        raw = open(f"/proc/{pid}/stat", "rb").read().decode("utf-8", "replace")
    except OSError:
        return None
    # the command name (field 2) is in parentheses and may hold spaces or ')': split after the last one
    fields = raw[raw.rfind(")") + 2 :].split()
    try:
        return int(fields[19])  # field 22 overall; fields[0] is field 3
    except (IndexError, ValueError):
        return None


def command_line(pid: int) -> list[str] | None:
    try:
        raw = open(f"/proc/{pid}/cmdline", "rb").read()
    except OSError:
        return None
    return [part.decode("utf-8", "surrogateescape") for part in raw.split(b"\0")[:-1]] if raw else None


def identity_of(pid: int) -> ProcessIdentity | None:
    ticks, command = start_ticks(pid), command_line(pid)
    if ticks is None or command is None:
        return None
    return ProcessIdentity(pid=pid, start_ticks=ticks, command=command)


def is_same_process(expected: ProcessIdentity) -> bool:
    """The recorded process still runs: same pid, same start time, same command line, and it leads
    its own process group (we started it with a new session), so ending the group ends only it."""
    current = identity_of(expected.pid)
    if current is None or (current.start_ticks, current.command) != (expected.start_ticks, expected.command):
        return False
    try:
        return os.getpgid(expected.pid) == expected.pid
    except ProcessLookupError:
        return False


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return not _is_zombie(pid)


def end_group(identity: ProcessIdentity, grace_s: float = 20.0) -> None:
    """SIGTERM the group the recorded process leads, SIGKILL after `grace_s`; only if it is still
    the recorded process. Returns once it has exited (and is reaped, when this process is its parent)."""
    if not is_same_process(identity):
        return
    os.killpg(identity.pid, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline:
        if _gone(identity):
            return
        time.sleep(0.1)
    if start_ticks(identity.pid) == identity.start_ticks and not _is_zombie(identity.pid):
        os.killpg(identity.pid, signal.SIGKILL)
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and not _gone(identity):
            time.sleep(0.1)


def _gone(identity: ProcessIdentity) -> bool:
    """Exited: no such pid, another process under it, or a zombie (reaped here if ours). While it
    exits its cmdline reads empty but /proc/<pid>/stat stays, so the start time decides."""
    _reap(identity.pid)
    if start_ticks(identity.pid) != identity.start_ticks:
        return True
    if _is_zombie(identity.pid):
        # a leader shows Z while its other threads still exit: when it is our child, wait for the lot
        try:
            os.waitpid(identity.pid, 0)
        except ChildProcessError:
            pass
        return True
    return False


def _reap(pid: int) -> None:
    try:
        os.waitpid(pid, os.WNOHANG)  # when this process happens to be its parent
    except ChildProcessError:
        pass


def _is_zombie(pid: int) -> bool:
    try:
        raw = open(f"/proc/{pid}/stat", "rb").read().decode("utf-8", "replace")
    except OSError:
        return True
    return raw[raw.rfind(")") + 2 :].split()[:1] == ["Z"]
