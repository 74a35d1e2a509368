"""Issue 23: entity classes decided by the evidence, and a forced `translate` the evidence refutes
refused before anything is written (exit 2, naming the values and where the code compares them)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parents[2]


def _analyze(tmp_path: Path, profile_text: str | None) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "flows.cli.app", "analyze", "tau2-mock", "--out", str(tmp_path / "ir.json")]
    if profile_text is not None:
        profile = tmp_path / "profile.toml"
        profile.write_text(profile_text, encoding="utf-8")
        command += ["--profile", str(profile)]
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path),
        "BABELFLOW_STATE_DIR": str(tmp_path / "state"),
        "DO_NOT_TRACK": "1",
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "COLUMNS": "200",
    }
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False)


STATUS_CLASS = """
[entities.task_status]
kind = "catalogue"
policy = "{policy}"
selectors = ["*/db.json:$.tasks.*.status"]
"""


def test_translate_forced_on_a_status_the_code_compares_is_refused(tmp_path):
    profile = 'benchmark = "tau2-mock"\nversion = 1\nextends = "tau2-mock"\n' + STATUS_CLASS.format(policy="translate")
    done = _analyze(tmp_path, profile)
    assert done.returncode == 2, done.stdout + done.stderr
    said = " ".join((done.stdout + done.stderr).split())
    assert "task_status" in said and "'pending'" in said and "entities.task_status.policy" in said
    assert "a literal of the field's model type" in said  # the evidence, named
    assert not (tmp_path / "ir.json").exists()  # nothing written


def test_auto_keeps_the_compared_status_and_renames_the_rest(tmp_path):
    profile = 'benchmark = "tau2-mock"\nversion = 1\nextends = "tau2-mock"\n' + STATUS_CLASS.format(policy="auto")
    done = _analyze(tmp_path, profile)
    assert done.returncode == 0, done.stdout + done.stderr
    ir = orjson.loads((tmp_path / "ir.json").read_bytes())
    classes = {entity["name"]: entity for entity in ir["entity_classes"]}
    assert classes["task_status"]["decision"] == "preserve"
    assert classes["task_status"]["kept_values"] == {"code literal": 1}
    assert any("'pending' kept" in line for line in classes["task_status"]["evidence"])
    assert classes["task_title"]["decision"] == "canonical"
    said = " ".join((done.stdout + done.stderr).split())
    assert "entity class task_status (catalogue, profile auto): preserve" in said
