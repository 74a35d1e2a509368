"""One run per (benchmark, language): a second is refused while the first holds the lock."""

from __future__ import annotations

import subprocess
import sys

import pytest

from babelflow.errors import BabelflowError
from babelflow.run_lock import run_lock


def test_same_language_is_refused_other_languages_are_not(tmp_path):
    with run_lock(tmp_path, "tau2-mock", "en-XA"):
        holder = (
            "import sys; from babelflow.run_lock import run_lock\n"
            "with run_lock(sys.argv[1], 'tau2-mock', sys.argv[2]): print('locked')"
        )
        same = subprocess.run([sys.executable, "-c", holder, str(tmp_path), "en-XA"], capture_output=True, text=True)
        other = subprocess.run([sys.executable, "-c", holder, str(tmp_path), "ar-XB"], capture_output=True, text=True)
        assert same.returncode != 0 and "Another babelflow run is adapting tau2-mock into en-XA" in same.stderr
        assert other.returncode == 0 and "locked" in other.stdout
    with run_lock(tmp_path, "tau2-mock", "en-XA"):  # released on exit, also after a crash (OS releases flock)
        pass


def test_lock_error_names_the_lock_file_and_fix(tmp_path):
    with run_lock(tmp_path, "tau2-retail", "zh-Hans"):
        # flock is per open file description: a second open in this process conflicts too
        with pytest.raises(BabelflowError) as caught:
            with run_lock(tmp_path, "tau2-retail", "zh-Hans"):
                pass
    assert "tau2-retail--zh-Hans.lock" in caught.value.render() and "fix:" in caught.value.render()


def test_the_next_holder_learns_of_a_killed_holder_only(tmp_path):
    with run_lock(tmp_path, "tau2-mock", "es", holder="run-1") as previous:
        assert previous == ""
    with run_lock(tmp_path, "tau2-mock", "es", holder="run-2") as previous:
        assert previous == ""  # run-1 ended: nothing to report
    killed = (
        "import os, sys; from babelflow.run_lock import run_lock\n"
        "with run_lock(sys.argv[1], 'tau2-mock', 'es', holder='run-3'): os._exit(9)"
    )
    done = subprocess.run([sys.executable, "-c", killed, str(tmp_path)], capture_output=True, text=True)
    assert done.returncode == 9
    with run_lock(tmp_path, "tau2-mock", "es", holder="run-4") as previous:
        pid, _, holder = previous.partition(" ")
        assert holder == "run-3" and pid.isdigit()  # the killed run's record, for the flow to mark it Crashed
