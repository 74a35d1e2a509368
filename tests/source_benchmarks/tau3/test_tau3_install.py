"""scripts/install_tau3.sh refuses a source that is not a tau2-bench tree before installing anything,
and install.sh refuses an option it does not know (both fast: no environment is made)."""

from __future__ import annotations

import subprocess

from source_benchmarks.tau3.runtime import PROJECT_ROOT


def _run(script: str, *args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["bash", f"scripts/{script}", *args],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        env={"PATH": "/usr/bin:/bin", "HOME": "/root", **env},
    )


def test_a_missing_or_foreign_source_is_refused_before_anything_is_installed(tmp_path):
    env = tmp_path / "venv-tau3"
    missing = _run("install_tau3.sh", TAU3_ENV=str(env), TAU3_SOURCE=str(tmp_path / "nowhere.tar.gz"))
    assert missing.returncode == 2 and "does not exist" in missing.stderr
    (tmp_path / "other").mkdir()
    foreign = _run("install_tau3.sh", TAU3_ENV=str(env), TAU3_SOURCE=str(tmp_path / "other"))
    assert foreign.returncode == 2 and "not a tau2-bench source tree" in foreign.stderr
    assert not env.exists()


def test_install_refuses_an_unknown_option():
    result = _run("install.sh", "--tau4")
    assert result.returncode == 2 and "--tau3" in result.stderr
