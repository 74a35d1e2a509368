"""Bad-input drill checks: the pool's shared services (issue 44). `scripts/shared_services.py --dir`
on a folder another user made (with a `secret` planted in it) must refuse before reading or writing
anything there: that secret would become PostgreSQL's password and the Prefect API's auth string."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.drill_cases import Check, CheckResult

ROOT = Path(__file__).resolve().parents[2]


def foreign_shared_folder_refused(project: Path) -> CheckResult:
    if os.geteuid() != 0 or not shutil.which("runuser"):
        return CheckResult(True, "skipped: needs root to make the folder as `nobody` (no other user here)")
    shared_tmp = Path(tempfile.mkdtemp())
    shared_tmp.chmod(0o1777)  # like /tmp, where the README's old example put it
    planted = shared_tmp / "bf-shared"
    try:
        subprocess.run(["runuser", "-u", "nobody", "--", "mkdir", "-m", "755", str(planted)], check=True)
        script = f"echo attacker-password > {planted}/secret"
        subprocess.run(["runuser", "-u", "nobody", "--", "sh", "-c", script], check=True)
        done = subprocess.run(
            [sys.executable, str(ROOT / "scripts" / "shared_services.py"), "--dir", str(planted)],
            capture_output=True,
            text=True,
            timeout=120,
        )
        left = sorted(p.name for p in planted.iterdir())
        kept = (planted / "secret").read_text() == "attacker-password\n"
    finally:
        shutil.rmtree(shared_tmp, ignore_errors=True)
    said = (done.stderr + done.stdout).strip().splitlines()
    ok = done.returncode != 0 and left == ["secret"] and kept and "another user" in " ".join(said)
    return CheckResult(ok, f"exit {done.returncode}; files there after: {left}; {said[0] if said else 'no message'}")


CHECKS: list[Check] = [
    Check(
        "shared services: --dir made by another user, a secret planted in it",
        foreign_shared_folder_refused,
        covered_by="tests/scripts/test_shared_services_folder.py::"
        "test_another_users_folder_with_a_planted_secret_is_refused_and_left_as_it_was",
    ),
]
