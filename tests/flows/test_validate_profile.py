"""`validate` judges a variant against the IR it was built from: a variant adapted with another analysis
profile is refused with both profiles named (exit 2), and validated when the same --profile is given."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PROFILE = """benchmark = "tau2-mock"
version = 1
extends = "tau2-mock"

[entities.task_title]
policy = "keep"
selectors = ["*/db.json:$.tasks.*.title"]
"""


def _cli(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "BABELFLOW_PROJECT_ROOT": str(tmp_path), "BABELFLOW_STATE_DIR": str(tmp_path / "state")}
    env |= {"DO_NOT_TRACK": "1", "LITELLM_LOCAL_MODEL_COST_MAP": "True", "COLUMNS": "200"}
    command = [sys.executable, "-m", "flows.cli.app", *args]
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False)


@pytest.mark.slow
def test_a_variant_built_with_another_profile_is_refused_then_validated_with_it(tmp_path):
    profile = tmp_path / "keep-titles.toml"
    profile.write_text(PROFILE, encoding="utf-8")
    variant = tmp_path / "variant"
    built = _cli(tmp_path, "adapt", "tau2-mock", "--lang", "en-XA", "--profile", str(profile), "--out", str(variant))
    assert built.returncode == 0, built.stdout + built.stderr
    refused = _cli(tmp_path, "validate", "tau2-mock", "--lang", "en-XA", "--variant", str(variant))
    said = " ".join((refused.stdout + refused.stderr).split())
    assert refused.returncode == 2 and "another analysis profile" in said and "profile_sha256" in said, said
    same = _cli(
        tmp_path, "validate", "tau2-mock", "--lang", "en-XA", "--variant", str(variant), "--profile", str(profile)
    )
    assert same.returncode == 0, same.stdout + same.stderr
