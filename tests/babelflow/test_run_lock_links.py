"""A lock file is never opened through a symlink (issue 44, low): a link planted at a lock's name had
the holder's record written over its target, truncating it first."""

from __future__ import annotations

from pathlib import Path

import pytest

from babelflow.errors import BabelflowError
from babelflow.run_lock import one_at_a_time, run_lock
from babelflow.shared_state.documents import LocalDocumentStore


def _planted(tmp_path: Path, name: str) -> tuple[Path, Path]:
    victim = tmp_path / "victim.txt"
    victim.write_text("someone's file\n")
    locks = tmp_path / "locks"
    locks.mkdir()
    (locks / name).symlink_to(victim)
    return locks, victim


def test_a_run_lock_planted_as_a_link_is_refused_and_its_target_untouched(tmp_path):
    locks, victim = _planted(tmp_path, "tau2-mock--es.lock")
    with pytest.raises(BabelflowError, match="symlink") as refused:
        with run_lock(locks, "tau2-mock", "es", holder="flow-run"):
            pass
    assert refused.value.file == str(locks / "tau2-mock--es.lock")
    assert victim.read_text() == "someone's file\n"


def test_a_waiting_lock_and_a_store_lock_planted_as_links_are_refused(tmp_path):
    locks, victim = _planted(tmp_path, "analysis.lock")
    with pytest.raises(BabelflowError, match="symlink"):
        with one_at_a_time(locks / "analysis.lock"):
            pass
    store_root = tmp_path / "store"
    store_root.mkdir()
    (store_root / ".store.lock").symlink_to(victim)
    with pytest.raises(BabelflowError, match="symlink"):
        LocalDocumentStore(store_root).write("map", b"{}", expected_version=0)
    assert victim.read_text() == "someone's file\n"


def test_locks_still_work_and_are_owner_only(tmp_path):
    with run_lock(tmp_path, "tau2-mock", "es", holder="flow-run") as previous:
        assert previous == ""
        assert "flow-run" in (tmp_path / "tau2-mock--es.lock").read_text()
    assert (tmp_path / "tau2-mock--es.lock").stat().st_mode & 0o077 == 0
