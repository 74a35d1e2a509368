"""The record of a project's Prefect server (`<state>/prefect/server.json`) and who it belongs to.

A recorded server is ours while the recorded process (pid, start time, command line) is alive for this state
folder; it names this project when it answers the identity path's challenge with a proof only the holder of
the auth string can make (the secret itself is never sent to a server before it has proved it is ours). A record
whose process is gone or is another process now is discarded, never signalled.
"""

from __future__ import annotations

import hmac
import json
import secrets
import urllib.request
from datetime import UTC, datetime
from pathlib import Path

from babelflow.atomic_io import write_bytes_atomic
from babelflow.errors import BabelflowError
from babelflow.ownership import foreign_folder_problem
from babelflow.settings import BabelflowSettings
from flows.server.auth import basic_authorization, ensure_auth_string
from flows.server.launcher import IDENTITY_PATH, identity_proof
from flows.server.process import ProcessIdentity, is_same_process


def record_path(settings: BabelflowSettings) -> Path:
    return settings.layout.prefect_home() / "server.json"


class ServerRecord(ProcessIdentity):
    port: int
    api_url: str
    ui_url: str
    prefect_home: Path
    state_dir: Path
    log: Path
    started_at: str
    ready: bool = True  # False while booting: a starter killed then leaves a record the next run adopts


def booting_record(identity: ProcessIdentity, port: int, settings: BabelflowSettings, log: Path) -> ServerRecord:
    """The record of a server just started on `port`, not ready until it names this project."""
    return ServerRecord(
        **identity.model_dump(),
        port=port,
        api_url=f"http://127.0.0.1:{port}/api",
        ui_url=f"http://127.0.0.1:{port}",
        prefect_home=settings.layout.prefect_home(),
        state_dir=settings.resolved_state_dir(),
        log=log,
        started_at=datetime.now(UTC).isoformat(timespec="seconds"),
        ready=False,
    )


def names_this_project(record: ServerRecord, settings: BabelflowSettings, timeout: float = 2.0) -> bool:
    """The server at the record's port proves it holds this project's auth string (answering a fresh
    challenge, the secret never sent) and serves this state folder from the recorded process."""
    challenge = secrets.token_hex(32)
    request = urllib.request.Request(f"{record.ui_url}{IDENTITY_PATH}", headers={"X-Babelflow-Challenge": challenge})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as reply:
            raw = json.loads(reply.read())
    except (OSError, ValueError):
        return False
    if not isinstance(raw, dict) or not isinstance(raw.get("proof"), str):
        return False
    answer = {k: v for k, v in raw.items() if k != "proof"}
    key = basic_authorization(ensure_auth_string(settings)).encode()
    expected = identity_proof(key, challenge.encode(), json.dumps(answer).encode())
    return (
        hmac.compare_digest(raw["proof"], expected)
        and answer.get("state_dir") == str(settings.resolved_state_dir())
        and answer.get("pid") == record.pid
    )


def read_record(settings: BabelflowSettings) -> ServerRecord | None:
    """The recorded server, read only from a state folder that is this user's alone: a record another user
    could write would name any process for `server --stop` to end (issue 44)."""
    path = record_path(settings)
    for folder in (settings.resolved_state_dir(), path.parent):
        problem = foreign_folder_problem(folder)
        if problem:
            raise BabelflowError(
                f"The state folder is not yours alone: {problem}; no server record was read and no process signalled",
                file=path,
                fix="run babelflow in a project folder of your own (or set BABELFLOW_STATE_DIR to one), or"
                f" `chmod go-w {folder}` if it is yours",
            )
    if not path.exists():
        return None
    try:
        return ServerRecord.model_validate_json(path.read_bytes())
    except ValueError:
        return None  # a damaged (or pre-identity) record is treated as no server; a new one overwrites it


def write_record(settings: BabelflowSettings, record: ServerRecord) -> None:
    write_bytes_atomic(record_path(settings), record.model_dump_json(indent=2).encode())


def is_ours(record: ServerRecord, settings: BabelflowSettings) -> bool:
    """The recorded process is still the one we started, for this state folder."""
    return record.state_dir == settings.resolved_state_dir() and is_same_process(
        ProcessIdentity(pid=record.pid, start_ticks=record.start_ticks, command=record.command)
    )


def discard_stale(settings: BabelflowSettings, record: ServerRecord | None) -> None:
    """Forget a record whose process is gone or is another process now; never signal it."""
    current = read_record(settings) if record is not None else None
    if (
        record is not None
        and current is not None
        and (current.pid, current.start_ticks) == (record.pid, record.start_ticks)
    ):
        record_path(settings).unlink(missing_ok=True)
