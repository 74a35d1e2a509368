"""The code-trial process ends with the process that started it, SIGKILL included (issue 28: it
ran on for ~22 s, patching and rerunning benchmark code for nobody). The parent is SIGKILLed for
real; this test process adopts the orphan (child subreaper) to read how it ended."""

from __future__ import annotations

import os
import signal
import sys
import textwrap

import pytest

from babelflow import child_lifetime
from bench.drill_cases.lifetime import kill_code_trial_parent, kill_parent

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="reads the orphan's exit status through PR_SET_CHILD_SUBREAPER"
)


def test_the_real_code_trial_child_ends_within_a_second_or_so_of_its_parents_sigkill():
    fate = kill_code_trial_parent(run_for=1.5)
    assert fate.gone, f"the child still ran 10 s after its parent was killed: {fate}"
    assert fate.exit_code == 143, fate  # SIGTERM turned into SystemExit: not a run to the end (0), not a crash (1)
    assert fate.seconds_after_kill < 1 + child_lifetime.GRACE_SECONDS, fate


def test_the_pipe_alone_ends_a_child_whose_parent_died_before_the_death_signal_was_armed(tmp_path):
    """No prctl (another platform, or the parent gone before it was set): the watchdog thread sees
    the pipe close, and the child's `finally` blocks still run."""
    marker = tmp_path / "child-was-here"
    child = textwrap.dedent(f"""
        import pathlib, time
        import babelflow.child_lifetime as lifetime
        lifetime._set_parent_death_signal = lambda: False
        lifetime.die_with_parent()
        marker = pathlib.Path({str(marker)!r})
        marker.mkdir()
        try:
            time.sleep(60)
        finally:
            marker.rmdir()
    """)
    parent = textwrap.dedent(f"""
        import os, subprocess, sys
        from babelflow.child_lifetime import parent_link
        with parent_link() as link:
            command = [sys.executable, "-c", {child!r}, "tied-child"]
            subprocess.run(command, env={{**os.environ, **link.env}}, pass_fds=link.pass_fds)
    """)
    fate = kill_parent(parent, "tied-child", run_for=1.0, timeout=10)
    assert fate.gone and fate.exit_code == 128 + signal.SIGTERM, fate
    assert fate.seconds_after_kill < 1.5, fate
    assert not marker.exists()  # SystemExit unwound the sleep: the child's cleanup ran


def test_a_process_started_without_a_link_is_left_alone(monkeypatch):
    monkeypatch.delenv(child_lifetime.PIPE_ENV, raising=False)
    before = signal.getsignal(signal.SIGTERM)
    child_lifetime.die_with_parent()
    assert signal.getsignal(signal.SIGTERM) is before


def test_the_link_hands_the_child_only_the_read_end():
    with child_lifetime.parent_link() as link:
        (read_end,) = link.pass_fds
        assert link.env == {child_lifetime.PIPE_ENV: str(read_end)}
        assert not os.get_inheritable(read_end)  # subprocess passes it to this child only
