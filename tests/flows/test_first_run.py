"""A newcomer's first run: the README's main-job command path in a fresh project root.

No `.babelflow/` exists beforehand and no Prefect variable is set (nothing of `.ci/run` may
prepare the folder); the command must create its state, start the project's background Prefect
server, leave the run visible there after it ends, and stop it on `babelflow server --stop`."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

BABELFLOW = [sys.executable, "-m", "flows.cli.app"]
ROOT = Path(__file__).resolve().parents[2]


def _clean_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PREFECT_", "BABELFLOW_"))}
    env["PYTHONPATH"] = str(ROOT)  # the checkout's packages, as the editable install provides
    return env


def _get(url: str, headers: dict[str, str] | None = None) -> dict:
    with urllib.request.urlopen(urllib.request.Request(url, headers=headers or {}), timeout=5) as reply:
        return json.loads(reply.read())


def _auth(project: Path) -> dict[str, str]:
    """The project server wants its auth string (flows/server/auth.py) on every API call."""
    import base64

    secret = (project / ".babelflow" / "prefect" / "auth" / "api-auth-string").read_bytes()
    return {"Authorization": "Basic " + base64.b64encode(secret).decode()}


@pytest.mark.slow
def test_main_job_in_a_fresh_project_root(tmp_path: Path) -> None:
    project = tmp_path / "fresh"
    project.mkdir()
    assert not (project / ".babelflow").exists()
    env = _clean_env()
    try:
        run = subprocess.run(
            [*BABELFLOW, "flow", "tau2-mock", "--lang", "en-XA"],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-4000:]
        record = json.loads((project / ".babelflow" / "prefect" / "server.json").read_text())
        ui, api = record["ui_url"], record["api_url"]
        assert (project / "adapted" / "tau2-mock" / "en-XA" / "babelflow_manifest.json").exists()
        # the CLI printed where to look, and those addresses answer after the command ended
        printed = run.stdout + run.stderr
        # results and the next step go to stdout, one line with the exact command
        assert "next (en-XA): read the sample and sign: babelflow review tau2-mock --lang en-XA --sign" in run.stdout
        run_id = printed.split(f"{ui}/runs/flow-run/")[1].split()[0]
        flow_run = _get(f"{api}/flow_runs/{run_id}", _auth(project))
        assert flow_run["state"]["type"] == "COMPLETED"
        # the report itself (artifacts/artifact/<id>), not the key's version timeline
        artifact_id = printed.split(f"{ui}/artifacts/artifact/")[1].split()[0]
        req = urllib.request.Request(
            f"{api}/artifacts/filter",
            data=json.dumps({"artifacts": {"id": {"any_": [artifact_id]}}}).encode(),
            headers={"Content-Type": "application/json", **_auth(project)},
        )
        csrf = _get(f"{api}/csrf-token?client=first-run-test", _auth(project))[
            "token"
        ]  # changes and filters are POSTs: CSRF on
        req.add_header("Prefect-Csrf-Token", csrf)
        req.add_header("Prefect-Csrf-Client", "first-run-test")
        with urllib.request.urlopen(req, timeout=5) as reply:
            artifacts = json.loads(reply.read())
        assert artifacts and artifacts[0]["flow_run_id"] == run_id and "open findings" in artifacts[0]["data"]
        assert artifacts[0]["key"] == "tau2-mock-en-xa-failure-report"
        # a second run reuses the same server (no second start-up)
        again = subprocess.run(
            [*BABELFLOW, "flow", "tau2-mock", "--lang", "en-XA"],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert again.returncode == 0, again.stderr[-3000:]
        assert json.loads((project / ".babelflow" / "prefect" / "server.json").read_text())["pid"] == record["pid"]
    finally:
        stop = subprocess.run(
            [*BABELFLOW, "server", "--stop"], cwd=project, env=env, capture_output=True, text=True, timeout=60
        )
    assert stop.returncode == 0, stop.stderr
    assert not (project / ".babelflow" / "prefect" / "server.json").exists()
    with pytest.raises(OSError):
        urllib.request.urlopen(f"{api}/health", timeout=2)


def test_unwritable_state_folder_is_a_clear_error(tmp_path: Path) -> None:
    blocker = tmp_path / "state-is-a-file"
    blocker.write_text("not a folder")
    env = {**_clean_env(), "BABELFLOW_STATE_DIR": str(blocker / "state")}
    run = subprocess.run(
        [*BABELFLOW, "flow", "fixture-library", "--lang", "en-XA"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 2
    assert "state folder" in run.stderr and "BABELFLOW_STATE_DIR" in run.stderr


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.slow
def test_foreground_server_points_its_ui_at_its_own_port(tmp_path: Path) -> None:
    port = _free_port()
    server = subprocess.Popen(
        [*BABELFLOW, "server", "--port", str(port)],
        cwd=tmp_path,
        env=_clean_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                settings = _get(f"http://127.0.0.1:{port}/ui-settings")
                break
            except OSError:
                assert server.poll() is None, "server exited"
                time.sleep(0.5)
        else:
            raise AssertionError("server never answered")
        assert settings["api_url"] == f"http://127.0.0.1:{port}/api"
        assert (tmp_path / ".babelflow" / "prefect" / "prefect.db").exists()
    finally:
        os.killpg(server.pid, 15)
        server.wait(30)


@pytest.mark.slow
def test_a_server_left_booting_by_a_killed_run_is_adopted_not_doubled(tmp_path: Path, monkeypatch) -> None:
    """A `babelflow flow` killed while its server boots leaves a `ready: false` record; the next
    run waits for that server and adopts it instead of starting a second one on the same database."""
    from babelflow.settings import BabelflowSettings
    from flows.server.local_server import ensure_server, spawn_for_test, stop_background

    for key in [k for k in os.environ if k.startswith("PREFECT_")] + ["PREFECT_API_URL"]:
        monkeypatch.delenv(key, raising=False)  # registered, so the URL ensure_server sets is undone too
    monkeypatch.setenv("PREFECT_API_AUTH_STRING", "")  # ensure_server sets it too: registered, then undone
    monkeypatch.delenv("PREFECT_API_AUTH_STRING")
    settings = BabelflowSettings(project_root=tmp_path)
    orphan, record = spawn_for_test(settings, _free_port())  # recorded `ready: false`, as a killed starter leaves it
    try:
        api, adopted = ensure_server(settings)
        assert adopted is not None and adopted.pid == orphan.pid and adopted.ready and api == record.api_url
    finally:
        stop_background(settings)
        orphan.wait(30)
    assert orphan.returncode is not None
