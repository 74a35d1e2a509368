"""The project server's identity, auth string and front door, without booting Prefect (fast).
The live server's behaviour (401 without the string, CORS, Host, SIGTERM, decoys) is checked by
the bad-input drill's server checks (bench/drill_cases/server.py, tests/bench/test_drill_bad_input.py)."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import stat
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from babelflow.errors import BabelflowError
from babelflow.settings import BabelflowSettings


def test_auth_string_is_owner_only_stable_and_shared_by_racing_starters(tmp_path: Path) -> None:
    from flows.server.auth import auth_folder, auth_path, ensure_auth_string

    settings = BabelflowSettings(project_root=tmp_path)
    with ThreadPoolExecutor(8) as pool:
        strings = set(pool.map(lambda _: ensure_auth_string(settings), range(16)))
    assert len(strings) == 1 and len(strings.pop()) >= 32
    assert stat.S_IMODE(auth_path(settings).stat().st_mode) == 0o600
    assert stat.S_IMODE(auth_folder(settings).stat().st_mode) == 0o700
    assert [p.name for p in auth_folder(settings).iterdir()] == ["api-auth-string"]  # no draft left behind
    other = BabelflowSettings(project_root=tmp_path / "other")
    assert ensure_auth_string(other) != ensure_auth_string(settings)  # one per state folder


def test_an_auth_file_opened_to_others_is_closed_and_a_symlink_refused(tmp_path: Path) -> None:
    from flows.server.auth import auth_path, ensure_auth_string

    settings = BabelflowSettings(project_root=tmp_path)
    value = ensure_auth_string(settings)
    auth_path(settings).chmod(0o644)
    assert ensure_auth_string(settings) == value and stat.S_IMODE(auth_path(settings).stat().st_mode) == 0o600
    auth_path(settings).unlink()
    (tmp_path / "planted").write_text("x" * 40)
    auth_path(settings).symlink_to(tmp_path / "planted")
    with pytest.raises(BabelflowError) as caught:
        ensure_auth_string(settings)
    assert "api-auth-string" in str(caught.value.file) and caught.value.fix


def test_process_identity_reads_start_time_and_command_line() -> None:
    from flows.server.process import ProcessIdentity, identity_of, is_same_process

    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"], start_new_session=True)
    try:
        me = None
        while me is None or not me.command:
            me = identity_of(child.pid)
        assert me.command[-1] == "import time; time.sleep(30)" and me.start_ticks > 0
        assert is_same_process(me)
        assert not is_same_process(
            ProcessIdentity(pid=child.pid, start_ticks=me.start_ticks + 1, command=me.command)
        )  # pid reused
        assert not is_same_process(ProcessIdentity(pid=child.pid, start_ticks=me.start_ticks, command=["prefect"]))
    finally:
        child.kill()
        child.wait()
    assert identity_of(os.getpid()) is not None and not is_same_process(identity_of(os.getpid()))  # not a group leader


def test_a_stale_record_naming_another_process_is_discarded_and_the_process_left_alone(tmp_path: Path) -> None:
    from flows.server.local_server import launcher_command, stop_background
    from flows.server.server_record import ServerRecord, record_path

    settings = BabelflowSettings(project_root=tmp_path)
    decoy = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], start_new_session=True)
    try:
        home = settings.layout.prefect_home()
        home.mkdir(parents=True)
        record = ServerRecord(
            pid=decoy.pid,
            start_ticks=1,
            command=launcher_command(4999, settings),
            port=4999,
            api_url="http://127.0.0.1:4999/api",
            ui_url="http://127.0.0.1:4999",
            prefect_home=home,
            state_dir=settings.resolved_state_dir(),
            log=home / "server.log",
            started_at="2026-01-01T00:00:00+00:00",
        )
        record_path(settings).write_text(record.model_dump_json())
        stopped, said = stop_background(settings)
        assert stopped is None and "another process" in said
        assert decoy.poll() is None and not record_path(settings).exists()
    finally:
        decoy.kill()
        decoy.wait()


@pytest.mark.parametrize("port", [70000, 0, -1])
def test_a_port_outside_1_65535_is_an_error_not_a_traceback(port: int) -> None:
    from flows.server.local_server import check_port

    with pytest.raises(BabelflowError) as caught:
        check_port(port)
    assert caught.value.field == "--port" and caught.value.fix


def test_the_server_environment_holds_no_provider_key(monkeypatch, tmp_path: Path) -> None:
    from flows.server.local_server import server_environment

    for name in (
        "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
        "DASHSCOPE_API_KEY",
        "OPENAI_COMPATIBLE_API_KEY",
        "HF_TOKEN",
        "PREFECT_API_KEY",
        "PREFECT_API_AUTH_STRING",
        "GITHUB_TOKEN",
        "MY_SERVICE_SECRET",
        "OPENAI_BASE_URL",
        "HTTPS_PROXY",
    ):
        monkeypatch.setenv(name, "secret-value-123")
    env = server_environment(4999, tmp_path)
    assert "secret-value-123" not in env.values()
    assert (
        env["PREFECT_HOME"] == str(tmp_path)
        and env["PREFECT_UI_API_URL"] == "http://127.0.0.1:4999/api"
        and "PATH" in env
    )


def _asgi(
    guard, path: str, host: bytes, headers: list[tuple[bytes, bytes]] | None = None, kind: str = "http"
) -> tuple[int | None, bytes, bool]:
    """(status or websocket close code, body, reached Prefect's app) of one request through the guard."""
    sent: list[dict] = []
    scope = {"type": kind, "path": path, "headers": [(b"host", host), *(headers or [])]}

    async def receive():
        return {"type": "http.request", "body": b""}

    async def send(message):
        sent.append(message)

    asyncio.run(guard(scope, receive, send))
    inner = any(m.get("inner") for m in sent)
    status = next(
        (m.get("status") or m.get("code") for m in sent if m["type"] in ("http.response.start", "websocket.close")),
        None,
    )
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return status, body, inner


def test_the_front_door_checks_host_then_answers_identity_only_with_the_auth_string(tmp_path: Path) -> None:
    from flows.server.auth import basic_authorization
    from flows.server.launcher import IDENTITY_PATH, ProjectGuard, identity_proof

    async def prefect_app(scope, receive, send):
        await send({"type": "http.response.start", "status": 200, "headers": [], "inner": True})
        await send({"type": "http.response.body", "body": b"prefect"})

    guard = ProjectGuard(
        prefect_app, port=4999, authorization=basic_authorization("s3cret-string-0123456789"), state_dir=tmp_path
    )
    assert _asgi(guard, "/api/health", b"127.0.0.1:4999")[2] and _asgi(guard, "/api/health", b"localhost:4999")[2]
    for host in (b"attacker.example:4999", b"127.0.0.1:4998", b"127.0.0.1", b""):
        status, _, inner = _asgi(guard, "/api/health", host)
        assert status == 421 and not inner, host
    assert _asgi(guard, "/api/events/in", b"attacker.example:4999", kind="websocket")[0] == 1008
    # the identity answers a challenge with a proof made with the secret: the caller never sends the secret
    assert _asgi(guard, IDENTITY_PATH, b"127.0.0.1:4999")[0] == 400
    assert _asgi(guard, IDENTITY_PATH, b"127.0.0.1:4999", [(b"x-babelflow-challenge", b"not hex")])[0] == 400
    challenge = b"ab" * 32
    status, body, _ = _asgi(guard, IDENTITY_PATH, b"127.0.0.1:4999", [(b"x-babelflow-challenge", challenge)])
    answer = json.loads(body)
    proof = answer.pop("proof")
    assert status == 200 and answer["state_dir"] == str(tmp_path)
    key = basic_authorization("s3cret-string-0123456789").encode()
    assert proof == identity_proof(key, challenge, json.dumps(answer).encode())
    assert proof != identity_proof(basic_authorization("wrong").encode(), challenge, json.dumps(answer).encode())
    assert b"s3cret" not in body


def test_a_process_that_took_the_port_first_never_receives_the_auth_string(tmp_path: Path) -> None:
    """Issue 44: whoever binds the recorded port first (another user's process) is asked a challenge, never
    sent the secret, and is not taken for the project's server, whatever it answers."""
    import http.server
    import threading

    from flows.server.auth import ensure_auth_string
    from flows.server.local_server import any_free_port
    from flows.server.process import identity_of
    from flows.server.server_record import booting_record, names_this_project

    settings = BabelflowSettings(project_root=tmp_path)
    secret = ensure_auth_string(settings)
    seen: list[str] = []

    class Impostor(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            seen.append(str(self.headers))
            body = json.dumps(
                {"service": "babelflow-prefect-server", "state_dir": str(settings.resolved_state_dir()),
                 "pid": os.getpid(), "proof": "0" * 64}
            ).encode()  # fmt: skip
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args) -> None:
            pass

    port = any_free_port()
    server = http.server.HTTPServer(("127.0.0.1", port), Impostor)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        me = identity_of(os.getpid())
        assert me is not None
        record = booting_record(me, port, settings, tmp_path / "server.log")
        assert not names_this_project(record, settings)
    finally:
        server.shutdown()
    assert seen and not [h for h in seen if secret in h or base64.b64encode(secret.encode()).decode() in h]
    assert all("Authorization" not in h for h in seen)


def test_a_server_recorded_by_an_earlier_babelflow_is_ended_only_when_proc_confirms_it(tmp_path: Path) -> None:
    """Records from before identities name a plain, open `prefect server start`: `server --stop`
    (and the next `flow`) end it when its command, port and PREFECT_HOME match, and nothing else."""
    from flows.server.local_server import any_free_port, server_command, stop_background
    from flows.server.server_record import record_path

    settings = BabelflowSettings(project_root=tmp_path)
    home = settings.layout.prefect_home()
    home.mkdir(parents=True)
    port = any_free_port()
    env = {**os.environ, "PREFECT_HOME": str(home)}
    old = subprocess.Popen(
        server_command(port), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    other = subprocess.Popen(
        server_command(port + 1 if port < 65535 else port - 1),
        env={**env, "PREFECT_HOME": str(tmp_path)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        record_path(settings).write_text(f'{{"pid": {other.pid}, "port": {port}, "api_url": "x", "ready": true}}')
        assert stop_background(settings)[0] is None and other.poll() is None  # another port and home: left alone
        record_path(settings).write_text(f'{{"pid": {old.pid}, "port": {port}, "api_url": "x", "ready": true}}')
        stopped, said = stop_background(settings)
        assert stopped is None and "earlier babelflow" in said and old.wait(30) is not None
        assert other.poll() is None and not record_path(settings).exists()
    finally:
        for process in (old, other):
            process.kill()
            process.wait()


def test_a_foreground_server_is_refused_while_the_recorded_one_still_runs(tmp_path: Path) -> None:
    """A second server on the same database is never started, even while the first one boots."""
    from flows.server.local_server import any_free_port, run_foreground
    from flows.server.process import identity_of
    from flows.server.server_record import ServerRecord, booting_record, record_path

    settings = BabelflowSettings(project_root=tmp_path)
    booting = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], start_new_session=True)
    try:
        identity = None
        while identity is None or not identity.command:
            identity = identity_of(booting.pid)
        home = settings.layout.prefect_home()
        home.mkdir(parents=True)
        record = booting_record(identity, 4999, settings, home / "server.log")
        record_path(settings).write_text(record.model_dump_json())
        with pytest.raises(BabelflowError) as caught:
            run_foreground(settings, any_free_port(), lambda _: None)
        assert "already running or starting" in caught.value.message and booting.poll() is None
        assert ServerRecord.model_validate_json(record_path(settings).read_bytes()).pid == booting.pid  # untouched
    finally:
        booting.kill()
        booting.wait()


def test_a_port_taken_between_the_check_and_the_bind_is_retried_on_a_free_port(tmp_path, monkeypatch):
    """Two first runs at once both saw 4200 free; the one that lost the bind exited during start-up
    ("exited during start-up (code 3)", exit 2). It now starts again on a free port."""
    import socket

    from flows.server import local_server
    from flows.server.server_record import ServerRecord

    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    busy = taken.getsockname()[1]
    monkeypatch.setattr(local_server, "DEFAULT_PORT", busy)
    monkeypatch.setattr(
        local_server, "_port_free", lambda port: port != busy or not spawned
    )  # the race: free at the check
    spawned: list[int] = []

    class Exited:
        def poll(self):
            return 3

    class Booting:
        def poll(self):
            return None

    def spawn(settings, port, log):
        spawned.append(port)
        record = ServerRecord.model_construct(port=port)
        return (Exited() if port == busy else Booting()), record

    def wait_ready(settings, process, record):
        if process.poll() is not None:
            raise BabelflowError("The local Prefect server exited during start-up (code 3)")
        return record

    monkeypatch.setattr(local_server, "_spawn", spawn)
    monkeypatch.setattr(local_server, "_wait_ready", wait_ready)
    try:
        record = local_server.start_background(BabelflowSettings(project_root=tmp_path))
    finally:
        taken.close()
    assert spawned[0] == busy and record.port != busy and len(spawned) == 2


def _booting_record(settings: BabelflowSettings, process: subprocess.Popen):
    from flows.server.local_server import any_free_port
    from flows.server.process import ProcessIdentity, identity_of
    from flows.server.server_record import booting_record, write_record

    identity = None
    while process.poll() is None and (identity is None or not identity.command):
        identity = identity_of(process.pid)
    home = settings.layout.prefect_home()
    home.mkdir(parents=True, exist_ok=True)
    exited = ProcessIdentity(pid=process.pid, start_ticks=0, command=["exited"])  # as _spawn records an early exit
    # nothing answers at a free port: the server never names this project
    record = booting_record(identity or exited, any_free_port(), settings, home / "server.log")
    write_record(settings, record)
    return record


def test_a_server_that_exits_while_booting_is_reported_with_its_code_and_its_record_discarded(tmp_path: Path) -> None:
    from flows.server import local_server
    from flows.server.server_record import record_path

    settings = BabelflowSettings(project_root=tmp_path)
    exited = subprocess.Popen([sys.executable, "-c", "raise SystemExit(3)"], start_new_session=True)
    exited.wait()
    record = _booting_record(settings, exited)
    with pytest.raises(BabelflowError, match=r"exited during start-up \(code 3\)"):
        local_server._wait_ready(settings, exited, record)
    assert not record_path(settings).exists()


def test_a_server_that_never_answers_is_ended_and_its_record_discarded(tmp_path: Path, monkeypatch) -> None:
    """A launcher that stays up without naming this project is not adopted: its group is ended."""
    from flows.server import local_server
    from flows.server.server_record import record_path

    monkeypatch.setattr(local_server, "BOOT_TIMEOUT_S", 0.5)
    settings = BabelflowSettings(project_root=tmp_path)
    silent = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], start_new_session=True)
    try:
        record = _booting_record(settings, silent)
        with pytest.raises(BabelflowError, match="did not answer"):
            local_server._wait_ready(settings, silent, record)
        assert silent.wait(timeout=30) is not None and not record_path(settings).exists()
    finally:
        silent.kill()
        silent.wait()


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to give the state folder to another user")
def test_a_state_folder_of_another_user_is_refused_before_its_record_is_read(tmp_path: Path) -> None:
    """Issue 44: a server.json in a state folder another user owns could name any of this user's
    processes for `server --stop` to end; it is never read, and the refusal says whose folder it is."""
    from flows.server.server_record import read_record, record_path

    settings = BabelflowSettings(project_root=tmp_path)
    home = record_path(settings).parent
    home.mkdir(parents=True)
    record_path(settings).write_text("{}")
    os.chown(settings.resolved_state_dir(), 65534, 65534)  # nobody
    with pytest.raises(BabelflowError, match="another user") as refused:
        read_record(settings)
    assert "no process signalled" in refused.value.message
    os.chown(settings.resolved_state_dir(), 0, 0)
    settings.resolved_state_dir().chmod(0o777)
    with pytest.raises(BabelflowError, match="writable by others"):
        read_record(settings)
    settings.resolved_state_dir().chmod(0o700)
    assert read_record(settings) is None  # ours again: the (damaged) record is simply no server
