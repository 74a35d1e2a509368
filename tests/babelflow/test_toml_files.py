"""A language pack or profile path that is not a regular file of bounded size is a named error
(babelflow/toml_input.read_bounded), and a profile chain that extends itself is refused: a FIFO at
the path blocked forever, a link to /dev/zero read until memory ran out, a folder passed as
--profile was an IsADirectoryError traceback, and `extends` naming the profile itself looped forever."""

from __future__ import annotations

import os
import signal
from contextlib import contextmanager

import pytest

from analyzers.profile import load_profile
from babelflow.errors import BabelflowError
from babelflow.language_pack import load_pack
from babelflow.toml_input import read_bounded


@contextmanager
def deadline(seconds: int):
    """A hang fails the test instead of the run (the old code blocked on a FIFO forever)."""

    def expire(*_):
        raise TimeoutError(f"still reading after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def _fifo(path):
    os.mkfifo(path)
    return path


def _dev_zero(path):
    path.symlink_to("/dev/zero")
    return path


def _folder(path):
    path.mkdir()
    return path


@pytest.mark.parametrize("make", [_fifo, _dev_zero, _folder], ids=["fifo", "dev-zero", "folder"])
def test_a_pack_that_is_not_a_regular_file_is_named(tmp_path, make):
    (tmp_path / "language_packs").mkdir()
    path = make(tmp_path / "language_packs" / "en-XA.toml")
    with deadline(10), pytest.raises(BabelflowError, match="not a regular file") as raised:
        load_pack("en-XA", tmp_path)
    assert raised.value.file == str(path) and raised.value.fix


@pytest.mark.parametrize("make", [_fifo, _dev_zero, _folder], ids=["fifo", "dev-zero", "folder"])
def test_a_profile_that_is_not_a_regular_file_is_named(tmp_path, make):
    path = make(tmp_path / "profile.toml")
    with deadline(10), pytest.raises(BabelflowError, match="not a regular file") as raised:
        load_profile("tau2-mock", path)
    assert raised.value.file == str(path)


def test_reads_are_bounded(tmp_path):
    path = tmp_path / "big.toml"
    path.write_bytes(b"# x\n" * 100)
    assert read_bounded(path, what="Profile", max_bytes=400) == b"# x\n" * 100
    with pytest.raises(BabelflowError, match="Profile is larger than"):
        read_bounded(path, what="Profile", max_bytes=399)
    with pytest.raises(FileNotFoundError):  # each caller says what to pass instead
        read_bounded(tmp_path / "none.toml", what="Profile")


@pytest.mark.parametrize("chain", [["mine"], ["mine", "other"]], ids=["itself", "two"])
def test_a_profile_that_extends_itself_is_refused(tmp_path, chain):
    for name, parent in zip(chain, chain[1:] + chain[:1], strict=True):
        (tmp_path / f"{name}.toml").write_text(f'benchmark = "tau2-mock"\nversion = 1\nextends = "{parent}"\n')
    with deadline(10), pytest.raises(BabelflowError, match="already in its chain") as raised:
        load_profile("tau2-mock", tmp_path / "mine.toml")
    assert raised.value.field == "extends"
