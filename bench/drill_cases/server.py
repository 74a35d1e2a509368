"""Bad-input drill cases: server (issue 28). Each check starts the project's own server on a free
port in the project copy it is given, through the code `babelflow flow` uses, and stops it."""

from __future__ import annotations

import atexit
import base64
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from unittest import mock

from bench.drill_cases import Case, Check, CheckResult

ROOT = Path(__file__).resolve().parents[2]
# what a careless user's shell holds: every provider key babelflow reads, and a few others
FAKE_KEYS = {
    "OPENAI_API_KEY": "sk-drill-openai-000000",
    "ANTHROPIC_API_KEY": "sk-ant-drill-000000",
    "DASHSCOPE_API_KEY": "sk-drill-dashscope-0000",
    "OPENAI_COMPATIBLE_API_KEY": "drill-compatible-0000",
    "HF_TOKEN": "hf_drill_token_0000",
    "AWS_SECRET_ACCESS_KEY": "drill-aws-secret-0000",
}


def _settings(project: Path):
    from babelflow.settings import BabelflowSettings

    return BabelflowSettings(project_root=project)


class _Shared:
    """One project server for the checks that only send requests (auth, CORS, Host, environment):
    started the way `babelflow flow` starts it, in a project of its own, with a careless user's
    provider keys in the starting environment; stopped when the drill (or test session) ends.
    Booting one costs 15-40 s on a loaded machine: one for five checks keeps the drill short."""

    def __init__(self) -> None:
        self.project: Path | None = None
        self.record = None

    def get(self):
        if self.record is None:
            from flows.server.local_server import any_free_port, start_background

            self.project = Path(tempfile.mkdtemp(prefix="babelflow-drill-server-"))
            atexit.register(shutil.rmtree, self.project, True)
            with mock.patch.dict(os.environ, FAKE_KEYS):
                self.record = start_background(_settings(self.project), any_free_port())
            atexit.register(self.stop)  # registered after rmtree: runs before it
        return self.record, self.project

    def stop(self) -> None:
        from flows.server.local_server import stop_background

        if self.project is not None:
            stop_background(_settings(self.project))
            self.record = None


SHARED = _Shared()


@contextmanager
def shared_server(_project: Path) -> Iterator[tuple]:
    """(record, project) of the shared server; the check's own project copy is not needed."""
    yield SHARED.get()


def _seed(project: Path) -> None:
    """Start `project` from the shared server's migrated database (SQLite's online backup: a
    consistent copy of a live database), so its own server boots in seconds, not minutes. The auth
    folder is never copied: every project makes its own string."""
    import sqlite3

    _, source = SHARED.get()
    home, origin = _settings(project).layout.prefect_home(), _settings(source).layout.prefect_home()
    home.mkdir(parents=True, exist_ok=True)
    if (home / "prefect.db").exists():
        return
    with sqlite3.connect(origin / "prefect.db") as live, sqlite3.connect(home / "prefect.db") as copy:
        live.backup(copy)
    if (origin / "memo_store.toml").exists():  # block types already registered in that database
        shutil.copy2(origin / "memo_store.toml", home / "memo_store.toml")


@contextmanager
def project_server(project: Path) -> Iterator:
    """The project's own server started as `babelflow flow` starts it, stopped at the end."""
    from flows.server.local_server import any_free_port, start_background, stop_background

    settings = _settings(project)
    _seed(project)
    record = start_background(settings, any_free_port())
    try:
        yield record
    finally:
        stop_background(settings)


def _request(
    url: str, *, method: str = "GET", headers: dict[str, str] | None = None, body: bytes | None = None
) -> tuple[int, dict[str, str], bytes]:
    """(status, headers, body); a 503 (SQLite busy on a loaded machine) is retried like Prefect's client does."""
    for attempt in range(6):
        request = urllib.request.Request(url, data=body, method=method, headers=headers or {})
        try:
            with urllib.request.urlopen(request, timeout=30) as reply:
                return reply.status, {k.lower(): v for k, v in reply.headers.items()}, reply.read()
        except urllib.error.HTTPError as error:
            answer = error.code, {k.lower(): v for k, v in error.headers.items()}, error.read()
        if answer[0] != 503 or attempt == 5:
            return answer
        time.sleep(1 + attempt)
    raise AssertionError("unreachable")


def _auth(project: Path) -> dict[str, str]:
    from flows.server.auth import basic_authorization, read_auth_string

    return {"Authorization": basic_authorization(read_auth_string(_settings(project)))}


def _csrf(api: str, auth: dict[str, str]) -> dict[str, str]:
    """Headers of a change request: the auth string plus a CSRF token Prefect issued for a client id."""
    status, _, body = _request(f"{api}/csrf-token?client=babelflow-drill", headers=auth)
    if status != 200:
        raise RuntimeError(f"csrf-token answered {status}")
    return {
        **auth,
        "Prefect-Csrf-Token": json.loads(body)["token"],
        "Prefect-Csrf-Client": "babelflow-drill",
        "Content-Type": "application/json",
    }


def unauthenticated_refused(project: Path) -> CheckResult:
    with shared_server(project) as (server, project):
        read = _request(
            f"{server.api_url}/flow_runs/filter",
            method="POST",
            body=b"{}",
            headers={"Content-Type": "application/json"},
        )[0]
        version = _request(f"{server.api_url}/version")[0]
        wrong = _request(f"{server.api_url}/version", headers={"Authorization": "Basic " + "d3Jvbmc="})[0]
    ok = read in (401, 403) and version == 401 and wrong == 401
    return CheckResult(ok, f"POST flow_runs/filter -> {read}, GET version -> {version}, wrong auth string -> {wrong}")


def authenticated_accepted(project: Path) -> CheckResult:
    with shared_server(project) as (server, project):
        auth = _auth(project)
        version = _request(f"{server.api_url}/version", headers=auth)[0]
        runs = _request(
            f"{server.api_url}/flow_runs/filter", method="POST", body=b"{}", headers=_csrf(server.api_url, auth)
        )[0]
    return CheckResult(
        version == 200 and runs == 200,
        f"with the project's auth string: GET version -> {version}, POST flow_runs/filter (CSRF token) -> {runs}",
    )


def cors_foreign_origin_refused(project: Path) -> CheckResult:
    with shared_server(project) as (server, project):

        def preflight(origin: str) -> tuple[int, str | None]:
            status, headers, _ = _request(
                f"{server.api_url}/flow_runs/filter",
                method="OPTIONS",
                headers={
                    "Origin": origin,
                    "Access-Control-Request-Method": "POST",
                    "Access-Control-Request-Headers": "authorization,content-type",
                },
            )
            return status, headers.get("access-control-allow-origin")

        foreign = preflight("http://attacker.example")
        own = preflight(server.ui_url)
        simple = _request(f"{server.api_url}/health", headers={"Origin": "http://attacker.example"})[1].get(
            "access-control-allow-origin"
        )
    ok = foreign[1] is None and simple is None and own[1] == server.ui_url
    return CheckResult(
        ok,
        f"preflight from attacker.example -> {foreign[0]}, allow-origin {foreign[1]}; "
        f"simple GET allow-origin {simple}; from the UI's origin -> allow-origin {own[1]}",
    )


def foreign_host_refused(project: Path) -> CheckResult:
    with shared_server(project) as (server, project):
        foreign = _request(f"{server.api_url}/health", headers={"Host": f"attacker.example:{server.port}"})[0]
        rebinding = _request(
            f"{server.api_url}/version", headers={"Host": f"attacker.example:{server.port}", **_auth(project)}
        )[0]
        other_port = _request(f"{server.api_url}/health", headers={"Host": "127.0.0.1:1"})[0]
        own = _request(f"{server.api_url}/health", headers={"Host": f"localhost:{server.port}"})[0]
    ok = foreign >= 400 and rebinding >= 400 and other_port >= 400 and own == 200
    return CheckResult(
        ok,
        f"Host attacker.example -> {foreign} (with auth {rebinding}), Host 127.0.0.1:1 -> {other_port}, "
        f"Host localhost:PORT -> {own}",
    )


def no_provider_key_in_server(project: Path) -> CheckResult:
    with shared_server(project) as (server, project):
        environ = Path(f"/proc/{server.pid}/environ").read_bytes()
    leaked = [name for name, value in FAKE_KEYS.items() if name.encode() in environ or value.encode() in environ]
    secret = _auth(project)["Authorization"].removeprefix("Basic ")
    auth_leak = b"AUTH_STRING" in environ or base64.b64decode(secret) in environ
    return CheckResult(
        not leaked and not auth_leak,
        f"server environ: {len(environ.split(chr(0).encode()))} variables, provider keys/tokens found: "
        f"{leaked or 'none'}, auth string in it: {auth_leak}",
    )


def _decoy() -> subprocess.Popen:
    # a process group leader like the real server, so a blind killpg would take it down
    return subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"], start_new_session=True)


def _stale_record(project: Path, pid: int, port: int) -> None:
    """server.json as a server that has since died leaves it, its pid now the decoy's."""
    from flows.server.local_server import ServerRecord, launcher_command, record_path

    settings = _settings(project)
    record = ServerRecord(
        pid=pid,
        start_ticks=1,
        command=launcher_command(port, settings),
        port=port,
        api_url=f"http://127.0.0.1:{port}/api",
        ui_url=f"http://127.0.0.1:{port}",
        prefect_home=settings.layout.prefect_home(),
        state_dir=settings.resolved_state_dir(),
        log=settings.layout.prefect_home() / "server.log",
        started_at="2026-01-01T00:00:00+00:00",
        ready=True,
    )
    record_path(settings).parent.mkdir(parents=True, exist_ok=True)
    record_path(settings).write_text(record.model_dump_json())


def _cli_env(project: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_")}
    return {
        **env,
        "BABELFLOW_PROJECT_ROOT": str(project),
        "DO_NOT_TRACK": "1",
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
        "COLUMNS": "200",
    }


def _server_stop(project: Path) -> subprocess.CompletedProcess[str]:
    """`babelflow server --stop` run in `project`, as its user types it."""
    return subprocess.run(
        [sys.executable, "-m", "flows.cli.app", "server", "--stop"],
        cwd=ROOT,
        env=_cli_env(project),
        capture_output=True,
        text=True,
        timeout=120,
    )


def decoy_survives_stop(project: Path) -> CheckResult:
    from flows.server.local_server import any_free_port, record_path

    decoy = _decoy()
    try:
        _stale_record(project, decoy.pid, any_free_port())
        stop = _server_stop(project)
        alive = decoy.poll() is None
        gone = not record_path(_settings(project)).exists()
    finally:
        decoy.kill()
        decoy.wait()
    said = " ".join((stop.stdout + stop.stderr).split())
    return CheckResult(
        alive and gone and stop.returncode == 0,
        f"decoy alive: {alive}, stale record discarded: {gone}, exit {stop.returncode}: {said}",
    )


def decoy_survives_adoption(project: Path) -> CheckResult:
    """`babelflow flow` finds its server through ensure_server: a stale record naming a decoy must
    be discarded and a new server started, the decoy untouched."""
    from flows.server.local_server import any_free_port, ensure_server, stop_background

    settings = _settings(project)
    _seed(project)
    decoy = _decoy()
    started = None
    try:
        _stale_record(project, decoy.pid, any_free_port())
        with mock.patch.dict(os.environ, {}), mock.patch("flows.server.local_server.DEFAULT_PORT", any_free_port()):
            os.environ.pop("PREFECT_API_URL", None)
            _, started = ensure_server(settings)
        alive = decoy.poll() is None
    finally:
        stop_background(settings)
        decoy.kill()
        decoy.wait()
    new = started is not None and started.pid != decoy.pid
    return CheckResult(
        alive and new, f"decoy alive: {alive}, new server started: {new} (pid {started.pid if started else '-'})"
    )


def sigterm_ends_foreground_server(project: Path) -> CheckResult:
    from flows.server.local_server import any_free_port, record_path

    port = any_free_port()
    _seed(project)
    cli = subprocess.Popen(
        [sys.executable, "-m", "flows.cli.app", "server", "--port", str(port)],
        cwd=ROOT,
        env=_cli_env(project),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    record = record_path(_settings(project))
    server_pid = None
    try:
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline and cli.poll() is None:
            if record.exists() and json.loads(record.read_text()).get("ready"):
                server_pid = json.loads(record.read_text())["pid"]
                break
            time.sleep(0.3)
        if server_pid is None:
            return CheckResult(False, f"the foreground server never became ready (exit {cli.poll()})")
        cli.send_signal(signal.SIGTERM)  # to the CLI process only, as `kill PID` does
        code = cli.wait(60)
        time.sleep(0.5)
        listening = _listening(port)
        server_alive = Path(f"/proc/{server_pid}").exists()
    finally:
        if cli.poll() is None:
            os.killpg(cli.pid, signal.SIGKILL)
    ok = not listening and not server_alive
    return CheckResult(
        ok,
        f"after SIGTERM: CLI exit {code}, port {port} listening: {listening}, "
        f"server pid {server_pid} alive: {server_alive}",
    )


def _listening(port: int) -> bool:
    import socket

    with socket.socket() as sock:
        sock.settimeout(1)
        return sock.connect_ex(("127.0.0.1", port)) == 0


def served_run_outside_project_refused(project: Path) -> CheckResult:
    """A deployment served from this project (`python -m flows.pipeline.deployment`, on the shared server)
    gets runs whose parameters name a folder outside the project and a collector endpoint for the
    OpenAI key: both flow runs fail before any work, and nothing appears outside."""
    outside = project.parent / f"{project.name}-elsewhere"
    server, home = SHARED.get()
    headers = _csrf(server.api_url, _auth(home))
    # the served process reaches the shared server as any client given its URL and auth string
    client = {"PREFECT_API_URL": server.api_url, "PREFECT_API_AUTH_STRING": _read_secret(home)}
    served = subprocess.Popen(
        [sys.executable, "-m", "flows.pipeline.deployment", "--limit", "2"],
        cwd=ROOT,
        env={**_cli_env(project), **client, "OPENAI_API_KEY": FAKE_KEYS["OPENAI_API_KEY"]},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    asks = {
        "out": {"out": str(outside / "variant")},
        "translator": {"translator": "openai:gpt-4o-mini@https://collector.attacker.example/v1"},
    }
    runs: dict[str, tuple[str, str]] = {}
    try:
        deployment = _wait_for_deployment(server.api_url, headers, served)
        created = {}
        for field, asked in asks.items():
            body = json.dumps({"parameters": {"benchmark": "tau2-mock", "language": "en-XA", **asked}}).encode()
            url = f"{server.api_url}/deployments/{deployment}/create_flow_run"
            status, _, reply = _request(url, method="POST", headers=headers, body=body)
            if status in (409, 422):  # a schema the deployment enforces: refused before any run exists
                runs[field] = (f"refused by the API ({status})", "")
            else:
                created[field] = json.loads(reply)["id"]
        for field, run_id in created.items():
            runs[field] = _final_state(server.api_url, headers, run_id)
    finally:
        os.killpg(served.pid, signal.SIGTERM)
        served.wait(60)
    refused = {
        field: state == "FAILED" and f"field: {field}" in message or state.startswith("refused")
        for field, (state, message) in runs.items()
    }
    ok = len(refused) == len(asks) and all(refused.values()) and not outside.exists()
    said = "; ".join(f"{f}: {s} ({m.splitlines()[0][:60] if m else ''})" for f, (s, m) in runs.items())
    return CheckResult(ok, f"{said}; {outside.name} created: {outside.exists()}")


def _read_secret(project: Path) -> str:
    from flows.server.auth import read_auth_string

    return read_auth_string(_settings(project))


def _wait_for_deployment(api: str, headers: dict[str, str], served: subprocess.Popen) -> str:
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline and served.poll() is None:
        status, _, body = _request(f"{api}/deployments/name/adapt-language/babelflow", headers=headers)
        if status == 200:
            return json.loads(body)["id"]
        time.sleep(1)
    raise RuntimeError(f"the served deployment never registered (serve exit {served.poll()})")


def _final_state(api: str, headers: dict[str, str], run_id: str) -> tuple[str, str]:
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        _, _, body = _request(f"{api}/flow_runs/{run_id}", headers=headers)
        state = json.loads(body).get("state") or {}
        if state.get("type") in ("COMPLETED", "FAILED", "CRASHED", "CANCELLED"):
            return state["type"], state.get("message") or ""
        time.sleep(1)
    return "TIMEOUT", ""


CASES: list[Case] = [
    Case("server --port 70000", lambda p: ["server", "--port", "70000"], "--port", watch=("adapted", ".babelflow")),
    Case("server --port 0", lambda p: ["server", "--port", "0"], "--port", watch=("adapted", ".babelflow")),
    Case("server --port -1", lambda p: ["server", "--port=-1"], "--port", watch=("adapted", ".babelflow")),
]
CHECKS: list[Check] = [
    Check("server: unauthenticated API request refused", unauthenticated_refused),
    Check("server: request with the project's auth string accepted", authenticated_accepted),
    Check("server: CORS preflight from another origin refused", cors_foreign_origin_refused),
    Check("server: foreign Host header refused", foreign_host_refused),
    Check("server: no provider key in the server's environment", no_provider_key_in_server),
    Check("server: decoy pid in server.json survives `server --stop`", decoy_survives_stop),
    Check("server: decoy pid in server.json survives `flow`'s adoption", decoy_survives_adoption),
    Check("server: SIGTERM to foreground `babelflow server` leaves nothing listening", sigterm_ends_foreground_server),
    Check("server: served run naming a foreign folder/endpoint refused", served_run_outside_project_refused),
]
