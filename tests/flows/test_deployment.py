"""The deployment served locally runs two languages as separate flow runs (scale-out path)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml


def test_prefect_yaml_declares_the_flows_for_a_process_pool():
    spec = yaml.safe_load((Path(__file__).resolve().parents[2] / "prefect.yaml").read_text())
    entries = {d["name"]: d for d in spec["deployments"]}
    assert entries["babelflow"]["entrypoint"] == "flows/pipeline/prefect_flows.py:adapt_language"
    assert all(d["work_pool"]["name"] == "babelflow-process" for d in entries.values())
    from flows.pipeline import prefect_flows

    assert (
        prefect_flows.adapt_language.name == "adapt-language"
        and prefect_flows.adapt_languages.name == "adapt-languages"
    )


@pytest.mark.timeout(300)
@pytest.mark.slow  # serves a real deployment through a Prefect server
def test_served_deployment_runs_two_languages(tmp_path, prefect_harness):
    from prefect.deployments import run_deployment
    from prefect.settings import get_current_settings

    with prefect_harness():  # the session's Prefect test server (tests/conftest.py)
        # the project is the served process's own (a run may not name another: flows/pipeline/run_guard.py)
        env = {
            **os.environ,
            "PREFECT_API_URL": str(get_current_settings().api.url),
            "PREFECT_HOME": str(tmp_path / "home"),
            "PREFECT_LOCAL_STORAGE_PATH": str(tmp_path / "storage"),
            "BABELFLOW_PROJECT_ROOT": str(tmp_path / "project"),
        }
        root = Path(__file__).resolve().parents[2]
        server = subprocess.Popen(
            [sys.executable, "-m", "flows.pipeline.deployment", "--limit", "2"],
            cwd=root,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
        try:
            runs = []
            deadline = time.time() + 120
            while time.time() < deadline:
                try:
                    runs = [
                        run_deployment(
                            "adapt-language/babelflow",
                            parameters={"request": {"benchmark": "fixture-library", "language": lang}},
                            timeout=0,
                        )
                        for lang in ("en-XA", "ar-XB")
                    ]
                    break
                except Exception:  # the server process is still registering its deployments
                    time.sleep(1)
            assert len(runs) == 2
            from prefect.client.orchestration import get_client

            with get_client(sync_client=True) as client:
                while time.time() < deadline + 120:
                    states = [client.read_flow_run(r.id).state for r in runs]
                    if all(s.is_final() for s in states):
                        break
                    time.sleep(1)
            assert [s.type.value for s in states] == ["COMPLETED", "COMPLETED"], [s.message for s in states]
            for lang in ("en-XA", "ar-XB"):
                assert (
                    tmp_path / "project" / "adapted" / "fixture-library" / lang / "babelflow_manifest.json"
                ).exists()
        finally:
            server.terminate()
            server.wait(30)


def test_deploy_time_settings_outside_the_project_are_refused_before_serving(tmp_path, monkeypatch, capsys):
    from flows.pipeline import deployment

    monkeypatch.setenv("BABELFLOW_PROJECT_ROOT", str(tmp_path / "project"))
    for key in ("PREFECT_HOME", "PREFECT_LOCAL_STORAGE_PATH"):
        monkeypatch.setenv(key, str(tmp_path / key.lower()))
    with pytest.raises(SystemExit) as exited:
        deployment.main(["--out", str(tmp_path / "elsewhere")])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert "field: out" in err and "fix:" in err and not (tmp_path / "elsewhere").exists()
    with pytest.raises(SystemExit):
        deployment.main(["--translator", "openai:gpt-4o-mini@https://collector.example/v1"])
    assert "field: translator" in capsys.readouterr().err
