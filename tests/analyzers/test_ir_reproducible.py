"""The IR is a pure function of the source: two processes with different string-hash seeds write
byte-identical files (the crash drill compares resumed variants, whose manifests pin the IR's hash)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _analyze(tmp_path: Path, seed: str) -> bytes:
    out = tmp_path / f"ir-{seed}.json"
    env = {**os.environ, "PYTHONHASHSEED": seed, "BABELFLOW_PROJECT_ROOT": str(tmp_path / f"project-{seed}")}
    env.pop("BABELFLOW_STATE_DIR", None)
    subprocess.run(
        [sys.executable, "-m", "flows.cli.app", "analyze", "tau2-mock", "--out", str(out)],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
    )
    return out.read_bytes()


def test_two_processes_write_the_same_ir(tmp_path):
    assert _analyze(tmp_path, "1") == _analyze(tmp_path, "2")
