"""The project's own Prefect server: started in the background on first use, reused afterwards.

A flow run against Prefect's ephemeral API loses its UI the moment the command ends (and with it
any paused review form). `babelflow flow` therefore talks to one long-lived server per state
folder: its database and logs live in `<state>/prefect/`, its address in `server.json`, and
`babelflow server --stop` ends it. `PREFECT_API_URL`, when the user sets it, wins.
"""

from __future__ import annotations

import fcntl
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from babelflow.atomic_io import write_bytes_atomic
from babelflow.errors import BabelflowError
from babelflow.ir import Record
from babelflow.settings import PREFECT_OFFLINE_ENV, BabelflowSettings

DEFAULT_PORT = 4200
BOOT_TIMEOUT_S = 120.0  # a fresh SQLite database migrates on first boot (~8 s here, more under load)


class ServerRecord(Record):
    pid: int
    port: int
    api_url: str
    ui_url: str
    prefect_home: Path
    log: Path
    started_at: str
    ready: bool = True  # False while booting: a starter killed then leaves a record the next run adopts


def record_path(settings: BabelflowSettings) -> Path:
    return settings.layout.prefect_home() / "server.json"


def server_environment(port: int, prefect_home: Path) -> dict[str, str]:
    """The server's environment: telemetry off, state in the project, the UI pointed at *this* API.

    Without PREFECT_UI_API_URL the UI assumes port 4200 whatever `--port` says."""
    api = f"http://127.0.0.1:{port}/api"
    env = {**os.environ, **PREFECT_OFFLINE_ENV, "PREFECT_HOME": str(prefect_home), "PREFECT_UI_API_URL": api, "PREFECT_SERVER_API_PORT": str(port)}
    env.pop("PREFECT_API_URL", None)  # the server is the API; a client setting here points it at itself or elsewhere
    return env


def server_command(port: int) -> list[str]:
    return [sys.executable, "-m", "prefect", "server", "start", "--host", "127.0.0.1", "--port", str(port)]


def healthy(api_url: str, timeout: float = 1.0) -> bool:
    try:
        with urllib.request.urlopen(f"{api_url}/health", timeout=timeout) as reply:
            return reply.status == 200
    except OSError:
        return False


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


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
    path = settings.layout.prefect_home() / "server.lock"
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def _read_record(settings: BabelflowSettings) -> ServerRecord | None:
    path = record_path(settings)
    if not path.exists():
        return None
    try:
        return ServerRecord.model_validate_json(path.read_bytes())
    except ValueError:
        return None  # a damaged record is treated as no server; a new one overwrites it


def running_server(settings: BabelflowSettings) -> ServerRecord | None:
    """The background server of this state folder, if its process lives and its API answers."""
    record = _read_record(settings)
    if record is not None and _alive(record.pid) and healthy(record.api_url):
        return record
    return None


def _adopt_or_end(settings: BabelflowSettings) -> ServerRecord | None:
    """Under the start lock: a recorded server that lives but does not answer yet was started by a
    run that was killed while it booted. Wait for it and adopt it, or end it: never a second
    server on the same database."""
    record = _read_record(settings)
    if record is None or not _alive(record.pid):
        return None
    deadline = time.monotonic() + BOOT_TIMEOUT_S
    while time.monotonic() < deadline and _alive(record.pid):
        if healthy(record.api_url):
            record = record.model_copy(update={"ready": True})
            write_bytes_atomic(record_path(settings), record.model_dump_json(indent=2).encode())
            return record
        time.sleep(0.3)
    _end(record.pid)
    return None


def _end(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + 20
    while _alive(pid) and time.monotonic() < deadline:
        try:
            os.waitpid(pid, os.WNOHANG)  # reap it if this process happens to be its parent
        except ChildProcessError:
            pass
        time.sleep(0.2)
    if _alive(pid):
        os.killpg(pid, signal.SIGKILL)


def ensure_server(settings: BabelflowSettings) -> tuple[str, ServerRecord | None]:
    """(API URL, record of the background server or None when PREFECT_API_URL was set by the user).

    Sets PREFECT_API_URL for this process so every Prefect client call goes to that server."""
    user_api = os.environ.get("PREFECT_API_URL")
    if user_api:
        return user_api, None
    with _start_lock(settings):
        record = running_server(settings) or _adopt_or_end(settings) or start_background(settings)
    os.environ["PREFECT_API_URL"] = record.api_url
    return record.api_url, record


def start_background(settings: BabelflowSettings, port: int | None = None) -> ServerRecord:
    home = Path(os.environ.get("PREFECT_HOME") or settings.layout.prefect_home())
    home.mkdir(parents=True, exist_ok=True)
    port = port or (DEFAULT_PORT if _port_free(DEFAULT_PORT) else any_free_port())
    log = home / "server.log"
    with open(log, "ab") as out:
        # its own session: the server outlives this command (and a Ctrl-C in it)
        process = subprocess.Popen(server_command(port), env=server_environment(port, home), stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
    api = f"http://127.0.0.1:{port}/api"
    booting = ServerRecord(
        pid=process.pid, port=port, api_url=api, ui_url=f"http://127.0.0.1:{port}", prefect_home=home, log=log,
        started_at=datetime.now(UTC).isoformat(timespec="seconds"), ready=False,
    )
    write_bytes_atomic(record_path(settings), booting.model_dump_json(indent=2).encode())  # before it answers: see _adopt_or_end
    deadline = time.monotonic() + BOOT_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise BabelflowError(
                f"The local Prefect server exited during start-up (code {process.returncode})",
                file=log,
                fix="read the log's last lines; or run `babelflow server --port N` in another terminal and set PREFECT_API_URL",
            )
        if healthy(api):
            time.sleep(1.0)  # a server that lost the port to another one exits at once: never adopt the other
            if process.poll() is not None:
                port = any_free_port()
                return start_background(settings, port)
            record = booting.model_copy(update={"ready": True})
            write_bytes_atomic(record_path(settings), record.model_dump_json(indent=2).encode())
            return record
        time.sleep(0.3)
    process.terminate()
    raise BabelflowError(f"The local Prefect server did not answer at {api} within {BOOT_TIMEOUT_S:.0f} s", file=log, fix="read the log; the machine may be overloaded")


def stop_background(settings: BabelflowSettings) -> ServerRecord | None:
    """End this state folder's background server (its whole process group), answering or still
    booting; None if none ran."""
    path = record_path(settings)
    record = _read_record(settings)
    if record is None or not _alive(record.pid):
        path.unlink(missing_ok=True)
        return None
    _end(record.pid)
    path.unlink(missing_ok=True)
    return record


def ui_base(api_url: str) -> str:
    """The UI's address for a local server's API URL (Prefect serves both from one port)."""
    return api_url.rstrip("/").removesuffix("/api")
