"""The project's own Prefect server: started in the background on first use, reused afterwards.

A flow run against Prefect's ephemeral API loses its UI the moment the command ends (and with it
any paused review form). `babelflow flow` therefore talks to one long-lived server per state
folder: its database and logs live in `<state>/prefect/`, its address and identity in
`server.json`, and `babelflow server --stop` ends it. `PREFECT_API_URL`, when the user sets it, wins.

The server (flows/server/launcher.py) requires this state folder's auth string, answers only as
127.0.0.1/localhost on its port, and inherits no provider key. A recorded server is adopted or
ended only when it is the recorded process (pid, start time, command line) and, to adopt, when it
names this state folder to a caller holding the auth string: a stale record naming some other
process is discarded, and that process is left alone.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType

from babelflow.errors import BabelflowError
from babelflow.run_lock import one_at_a_time
from babelflow.settings import PREFECT_OFFLINE_ENV, BabelflowSettings, without_secrets
from flows.server.auth import ensure_auth_string
from flows.server.process import ProcessIdentity, alive, end_group, identity_of, is_same_process
from flows.server.server_record import (
    ServerRecord,
    booting_record,
    discard_stale,
    is_ours,
    names_this_project,
    read_record,
    record_path,
    write_record,
)

DEFAULT_PORT = 4200
BOOT_TIMEOUT_S = 120.0  # a fresh SQLite database migrates on first boot (~8 s here, more under load)


def check_port(port: int) -> int:
    if not 1 <= port <= 65535:
        raise BabelflowError(
            f"Port {port} is not a TCP port", field="--port", fix="pass a port between 1 and 65535, e.g. --port 4200"
        )
    return port


def server_environment(port: int, prefect_home: Path) -> dict[str, str]:
    """The server's environment: no provider key or token (an allowlist), telemetry off, state in
    the project, the UI pointed at *this* API (without PREFECT_UI_API_URL it assumes port 4200)."""
    api = f"http://127.0.0.1:{port}/api"
    return {
        **without_secrets(dict(os.environ)),
        **PREFECT_OFFLINE_ENV,
        "PREFECT_HOME": str(prefect_home),
        "PREFECT_UI_API_URL": api,
        "PREFECT_SERVER_API_PORT": str(port),
    }


def server_command(port: int) -> list[str]:
    """Plain `prefect server start` (no auth string): only bench/'s throwaway servers in a temp home."""
    return [sys.executable, "-m", "prefect", "server", "start", "--host", "127.0.0.1", "--port", str(port)]


def launcher_command(port: int, settings: BabelflowSettings) -> list[str]:
    return [
        sys.executable,
        "-m",
        "flows.server.launcher",
        "--port",
        str(port),
        "--state",
        str(settings.resolved_state_dir()),
    ]


def healthy(api_url: str, timeout: float = 1.0) -> bool:
    try:
        with urllib.request.urlopen(f"{api_url}/health", timeout=timeout) as reply:
            return reply.status == 200
    except OSError:
        return False


def _port_free(port: int) -> bool:
    with socket.socket() as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def any_free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def _start_lock(settings: BabelflowSettings) -> Iterator[None]:
    """Two `babelflow flow` commands starting at once share one server instead of racing for a port."""
    with one_at_a_time(settings.layout.prefect_home() / "server.lock"):
        yield


def retire_legacy_server(settings: BabelflowSettings) -> int | None:
    """End the server a record from before identities named (a plain `prefect server start`, open
    to anyone), when /proc confirms it: that command on that port, leading its own group, with
    this PREFECT_HOME. Left running, it would share the database with the new, locked-down one."""
    try:
        raw = json.loads(record_path(settings).read_bytes())
    except (OSError, ValueError):
        return None
    if not isinstance(raw, dict) or "start_ticks" in raw:
        return None
    pid, port = raw.get("pid"), raw.get("port")
    if not isinstance(pid, int) or not isinstance(port, int):
        return None
    identity = identity_of(pid)
    if identity is None or identity.command != server_command(port) or not is_same_process(identity):
        return None
    try:
        environ = dict(
            item.split(b"=", 1) for item in Path(f"/proc/{pid}/environ").read_bytes().split(b"\0") if b"=" in item
        )
    except OSError:
        return None
    if environ.get(b"PREFECT_HOME", b"").decode() != str(settings.layout.prefect_home()):
        return None
    end_group(identity)
    record_path(settings).unlink(missing_ok=True)
    return pid


def running_server(settings: BabelflowSettings) -> ServerRecord | None:
    """The server of this state folder, if the recorded process is ours and names this project."""
    record = read_record(settings)
    if record is not None and is_ours(record, settings) and names_this_project(record, settings):
        return record
    return None


def _answered(settings: BabelflowSettings, record: ServerRecord, booting: Callable[[], bool]) -> ServerRecord | None:
    """The record marked ready once the server names this project, polled while `booting()` holds and
    BOOT_TIMEOUT_S has not passed; None when it never answered."""
    deadline = time.monotonic() + BOOT_TIMEOUT_S
    while time.monotonic() < deadline and booting():
        if names_this_project(record, settings):
            ready = record.model_copy(update={"ready": True})
            write_record(settings, ready)
            return ready
        time.sleep(0.3)
    return None


def _adopt_or_end(settings: BabelflowSettings) -> ServerRecord | None:
    """Under the start lock: a recorded server of ours that does not answer yet was started by a
    run that was killed while it booted. Wait for it and adopt it, or end it: never a second
    server on the same database. A record naming another process is discarded."""
    retire_legacy_server(settings)
    record = read_record(settings)
    if record is None or not is_ours(record, settings):
        discard_stale(settings, record)
        return None
    if (ready := _answered(settings, record, booting=lambda: is_ours(record, settings))) is not None:
        return ready
    end_group(record)
    discard_stale(settings, record)
    return None


def use_server(record: ServerRecord, settings: BabelflowSettings) -> None:
    """Point this process's Prefect clients (and the processes it starts) at the project server."""
    os.environ["PREFECT_API_URL"] = record.api_url
    os.environ["PREFECT_API_AUTH_STRING"] = ensure_auth_string(settings)


def ensure_server(settings: BabelflowSettings) -> tuple[str, ServerRecord | None]:
    """(API URL, record of the background server or None when PREFECT_API_URL was set by the user).

    Sets PREFECT_API_URL and PREFECT_API_AUTH_STRING for this process (read by Prefect when it is
    first imported, so call this before importing the flows)."""
    user_api = os.environ.get("PREFECT_API_URL")
    if user_api:
        recorded = read_record(settings)
        if (
            recorded is not None
            and recorded.api_url == user_api.rstrip("/")
            and "PREFECT_API_AUTH_STRING" not in os.environ
        ):
            os.environ["PREFECT_API_AUTH_STRING"] = ensure_auth_string(settings)  # the user named this project's server
        return user_api, None
    with _start_lock(settings):
        record = running_server(settings) or _adopt_or_end(settings) or start_background(settings)
    use_server(record, settings)
    return record.api_url, record


def _spawn(settings: BabelflowSettings, port: int, log: Path | None) -> tuple[subprocess.Popen, ServerRecord]:
    """Start the launcher in its own session (it outlives this command and a Ctrl-C in it) and
    record it as booting, before it answers: see _adopt_or_end."""
    ensure_auth_string(settings)
    home = settings.layout.prefect_home()
    home.chmod(0o700)  # its database holds every run, log and review form: the owner's only, as the API is
    command = launcher_command(port, settings)
    out = open(log, "ab") if log else None
    try:
        process = subprocess.Popen(
            command,
            env=server_environment(port, home),
            stdout=out,
            stderr=subprocess.STDOUT if out else None,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    finally:
        if out:
            out.close()
    identity = _identity_after_exec(process, command)
    record = booting_record(identity, port, settings, log or home / "server.log")
    write_record(settings, record)
    return process, record


def _identity_after_exec(process: subprocess.Popen, command: list[str]) -> ProcessIdentity:
    """The child's identity once exec has filled /proc/<pid>/cmdline (empty for a moment after Popen)."""
    deadline = time.monotonic() + 5.0
    while time.monotonic() < deadline and process.poll() is None:
        identity = identity_of(process.pid)
        if identity is not None and identity.command == command:
            return identity
        time.sleep(0.01)
    return ProcessIdentity(pid=process.pid, start_ticks=0, command=command)  # exited: its exit code says why


def _wait_ready(settings: BabelflowSettings, process: subprocess.Popen, record: ServerRecord) -> ServerRecord:
    if (ready := _answered(settings, record, booting=lambda: process.poll() is None)) is not None:
        return ready
    if process.poll() is not None:
        discard_stale(settings, record)
        raise BabelflowError(
            f"The local Prefect server exited during start-up (code {process.returncode})",
            file=record.log,
            fix="read the log's last lines; or run `babelflow server --port N` in another terminal",
        )
    end_group(record)
    discard_stale(settings, record)
    raise BabelflowError(
        f"The local Prefect server did not answer at {record.api_url} within {BOOT_TIMEOUT_S:.0f} s",
        file=record.log,
        fix="read the log; the machine may be overloaded",
    )


START_ATTEMPTS = 3


def start_background(settings: BabelflowSettings, port: int | None = None) -> ServerRecord:
    settings.layout.prefect_home().mkdir(parents=True, exist_ok=True)
    for attempt in range(1, START_ATTEMPTS + 1):
        chosen = port or (DEFAULT_PORT if _port_free(DEFAULT_PORT) else any_free_port())
        process, record = _spawn(settings, chosen, settings.layout.prefect_home() / "server.log")
        try:
            return _wait_ready(settings, process, record)
        except BabelflowError:
            # another project's server bound the port between our check and our bind (two first runs at
            # once): ours exits during start-up while the port is taken; start again on a free port
            if process.poll() is None or _port_free(chosen) or attempt == START_ATTEMPTS:
                raise
            port = any_free_port()
    raise AssertionError("unreachable")


def spawn_for_test(settings: BabelflowSettings, port: int) -> tuple[subprocess.Popen, ServerRecord]:
    """A server left booting, as a `babelflow flow` killed during start-up leaves it (tests)."""
    settings.layout.prefect_home().mkdir(parents=True, exist_ok=True)
    return _spawn(settings, port, settings.layout.prefect_home() / "server.log")


def stop_background(settings: BabelflowSettings) -> tuple[ServerRecord | None, str]:
    """End this state folder's server (its whole process group), answering or still booting.

    Returns (the record of the server ended, or None; what was done, one line)."""
    if legacy := retire_legacy_server(settings):
        return None, f"stopped the server of an earlier babelflow (pid {legacy}, no auth string)"
    record = read_record(settings)
    if record is None:
        record_path(settings).unlink(missing_ok=True)  # a damaged record
        return None, "no server was recorded for this project"
    if not is_ours(record, settings):
        discard_stale(settings, record)
        gone = "has exited" if not alive(record.pid) else "is another process now (left running)"
        return None, f"the recorded server (pid {record.pid}) {gone}: record discarded"
    end_group(record)
    discard_stale(settings, record)
    return record, f"stopped the server at {record.ui_url} (pid {record.pid})"


class _Stopped(Exception):
    def __init__(self, signum: int):
        self.signum = signum


def run_foreground(settings: BabelflowSettings, port: int, announce: Callable[[ServerRecord], None]) -> int:
    """Run the project server attached to this terminal (its output here) until it exits or this
    process gets SIGINT/SIGTERM/SIGHUP, which end the server's whole process group first."""
    check_port(port)
    if not _port_free(port):
        raise BabelflowError(
            f"Port {port} on 127.0.0.1 is already in use", field="--port", fix="pass another port, e.g. --port 4300"
        )

    def stop(signum: int, _frame: FrameType | None) -> None:
        raise _Stopped(signum)

    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    record: ServerRecord | None = None
    try:
        with _start_lock(settings):
            retire_legacy_server(settings)
            if (recorded := read_record(settings)) is not None and is_ours(recorded, settings):
                raise BabelflowError(
                    f"This project's server (pid {recorded.pid}) is already running or starting at {recorded.ui_url}",
                    file=record_path(settings),
                    fix="open that address, or stop it first with `babelflow server --stop`",
                )
            process, record = _spawn(settings, port, None)
            record = _wait_ready(settings, process, record)
        announce(record)
        return process.wait()
    except _Stopped as stopped:
        return 128 + stopped.signum
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if record is not None:
            end_group(record)
            discard_stale(settings, record)


def ui_base(api_url: str) -> str:
    """The UI's address for a local server's API URL (Prefect serves both from one port)."""
    return api_url.rstrip("/").removesuffix("/api")
