"""The atomic writer owns only what it writes: its own temp names, regular targets only, modes kept."""

from __future__ import annotations

import os
import socket
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from babelflow.atomic_io import remove_stale_temps, temp_name_for, temp_owner_pid, write_bytes_atomic
from babelflow.errors import BabelflowError


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.parametrize("mode", [0o644, 0o640, 0o600, 0o664])
def test_a_rewrite_keeps_the_old_mode(tmp_path: Path, mode: int) -> None:
    target = tmp_path / "variant.json"
    target.write_bytes(b"{}")
    target.chmod(mode)
    write_bytes_atomic(target, b'{"a": 1}')
    assert target.read_bytes() == b'{"a": 1}'
    assert _mode(target) == mode


@pytest.mark.parametrize("mask", [0o022, 0o027, 0o077, 0o002])
def test_a_new_file_gets_0666_minus_the_umask(tmp_path: Path, mask: int) -> None:
    previous = os.umask(mask)
    try:
        write_bytes_atomic(tmp_path / "new.json", b"{}")
    finally:
        os.umask(previous)
    assert _mode(tmp_path / "new.json") == 0o666 & ~mask


def test_temp_names_carry_the_writer_pid_and_are_recognised(tmp_path: Path) -> None:
    name = temp_name_for(tmp_path / ("x" * 250))
    assert len(name) < 255 and name.endswith(".tmp")
    assert temp_owner_pid(tmp_path / name) == os.getpid()
    users_names = (
        "notes.tmp",
        ".x.tmp",
        ".db.json.ABC123.tmp",
        ".a.babelflow-12-nothex!.tmp",
        "a.babelflow-12-0123abcd.tmp",
    )
    for users in users_names:
        assert temp_owner_pid(tmp_path / users) is None, users


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_cleanup_removes_only_a_dead_writers_temp_files(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    users = [tmp_path / "notes.tmp", tmp_path / ".x.tmp", tmp_path / "sub" / ".db.json.k2j3.tmp"]
    for path in users:
        path.write_bytes(b"mine")
    dead = tmp_path / "sub" / f".db.json.babelflow-{_dead_pid()}-0123abcd.tmp"
    live = tmp_path / f".db.json.babelflow-{os.getppid()}-0123abcd.tmp"  # a running process's write in progress
    mine = tmp_path / temp_name_for(tmp_path / "db.json")
    for path in (dead, live, mine):
        path.write_bytes(b"half")
    assert remove_stale_temps(tmp_path) == [dead]
    assert all(p.exists() for p in [*users, live, mine])


def test_a_failed_write_leaves_no_temp_file_and_the_old_content(tmp_path: Path, monkeypatch) -> None:
    import errno

    target = tmp_path / "good.json"
    target.write_bytes(b"good")

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr("babelflow.atomic_io.os.fsync", full)
    with pytest.raises(BabelflowError, match="No space left"):
        write_bytes_atomic(target, b"half")
    assert target.read_bytes() == b"good" and os.listdir(tmp_path) == ["good.json"]


def test_a_fifo_is_refused_and_stays_a_fifo(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.xlf"
    os.mkfifo(fifo)
    with pytest.raises(BabelflowError, match="FIFO") as caught:
        write_bytes_atomic(fifo, b"x")
    assert "pipe.xlf" in caught.value.render() and "fix:" in caught.value.render()
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and os.listdir(tmp_path) == ["pipe.xlf"]


def test_a_socket_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "s.sock"
    server = socket.socket(socket.AF_UNIX)
    try:
        server.bind(str(path))
        with pytest.raises(BabelflowError, match="socket"):
            write_bytes_atomic(path, b"x")
        assert stat.S_ISSOCK(os.lstat(path).st_mode)
    finally:
        server.close()


def test_a_character_device_is_refused() -> None:
    before = os.stat("/dev/null")
    with pytest.raises(BabelflowError, match="character device"):
        write_bytes_atomic(Path("/dev/null"), b"x")
    assert stat.S_ISCHR(os.lstat("/dev/null").st_mode) and os.lstat("/dev/null").st_rdev == before.st_rdev


def test_a_symlink_is_refused_and_neither_it_nor_its_target_change(tmp_path: Path) -> None:
    target = tmp_path / "english.json"
    target.write_bytes(b"source")
    link = tmp_path / "variant.json"
    link.symlink_to(target)
    with pytest.raises(BabelflowError, match="symbolic link") as caught:
        write_bytes_atomic(link, b"translated")
    assert str(target) in caught.value.render()  # the fix names where the link points
    assert link.is_symlink() and target.read_bytes() == b"source"


def test_a_symlink_loop_in_the_path_is_an_error_not_a_traceback(tmp_path: Path) -> None:
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    for path in (tmp_path / "a", tmp_path / "a" / "x.json"):
        with pytest.raises(BabelflowError):
            write_bytes_atomic(path, b"x")


def test_no_output_lands_in_the_installed_packages_or_the_project_code() -> None:
    import tau2

    import flows

    targets = (Path(tau2.__file__).parent / "data" / "babelflow-export.xlf", Path(flows.__file__).parent / "out.json")
    for target in targets:
        with pytest.raises(BabelflowError, match="babelflow's own code or its installed packages"):
            write_bytes_atomic(target, b"x")
        assert not target.exists()
