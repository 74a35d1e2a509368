"""scripts/shared_services.py --dir trusts only a folder this user controls (issue 44): another user's
folder, a group- or world-writable one, or a link is refused before anything is read or written there
(its `secret` would become PostgreSQL's password and the API's auth string); the files it makes are
owner-only and never written through a link."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "shared_services.py"


def _module():
    spec = importlib.util.spec_from_file_location("shared_services", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_a_new_folder_is_made_owner_only_and_an_own_folder_is_trusted(tmp_path: Path) -> None:
    shared = _module()
    made = shared.trusted_folder(tmp_path / "new" / "shared")
    assert made.is_dir() and (made.stat().st_mode & 0o777) == 0o700
    assert shared.trusted_folder(made) == made


@pytest.mark.parametrize("mode", [0o777, 0o775, 0o1777])
def test_a_folder_others_can_write_is_refused(tmp_path: Path, mode: int) -> None:
    shared = _module()
    folder = tmp_path / "open"
    folder.mkdir()
    folder.chmod(mode)
    with pytest.raises(shared.UntrustedFolder, match="writable by others"):
        shared.trusted_folder(folder)


def test_a_link_is_refused(tmp_path: Path) -> None:
    shared = _module()
    (tmp_path / "real").mkdir(mode=0o700)
    (tmp_path / "link").symlink_to(tmp_path / "real")
    with pytest.raises(shared.UntrustedFolder, match="link"):
        shared.trusted_folder(tmp_path / "link")


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("runuser"), reason="needs root to act as `nobody`")
def test_another_users_folder_with_a_planted_secret_is_refused_and_left_as_it_was() -> None:
    shared_tmp = Path(tempfile.mkdtemp())  # like /tmp: sticky, world-writable (the README's old example)
    shared_tmp.chmod(0o1777)
    planted = shared_tmp / "bf-shared"
    subprocess.run(["runuser", "-u", "nobody", "--", "mkdir", "-m", "755", str(planted)], check=True)
    subprocess.run(
        ["runuser", "-u", "nobody", "--", "sh", "-c", f"echo attacker-password > {planted}/secret"], check=True
    )
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--dir", str(planted)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode != 0 and "belongs to another user" in done.stderr + done.stdout
    assert sorted(p.name for p in planted.iterdir()) == ["secret"]
    assert (planted / "secret").read_text() == "attacker-password\n"
    shutil.rmtree(shared_tmp)


def test_owner_only_files_are_never_written_through_a_link(tmp_path: Path) -> None:
    shared = _module()
    victim = tmp_path / "victim"
    victim.write_text("keep")
    (tmp_path / "shared.env").symlink_to(victim)
    with pytest.raises(OSError):
        shared.write_owner_only(tmp_path / "shared.env", "export X=1\n", exclusive=False)
    assert victim.read_text() == "keep"
    shared.write_owner_only(tmp_path / "secret", "s")
    assert (tmp_path / "secret").stat().st_mode & 0o777 == 0o600
