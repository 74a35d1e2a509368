"""One run per (benchmark, language) at a time: a second one is refused, never interleaved.

The lock file names its holder (pid and, for a Prefect flow, the flow run id). Whoever takes the
lock next learns who held it before: if that run was killed, its Prefect run still says Running,
and the next flow marks it Crashed (flows/pipeline/prefect_flows.py).

A second lock, `output_lock`, is keyed by the resolved output folder: two runs of different
languages (or benchmarks) pointed at one `--out` would otherwise both succeed and leave a mixed
variant."""

from __future__ import annotations

import errno
import fcntl
import hashlib
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from babelflow.errors import BabelflowError


def open_lock_file(path: Path, binary: bool = False):
    """A lock file opened for reading and writing, created owner-only, never through a symlink: a link
    planted at a lock's name would have the holder's record written over (and truncate) its target."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    except OSError as exc:
        if exc.errno != errno.ELOOP:
            raise
        raise BabelflowError(
            "A lock file is a symlink; babelflow does not write through links",
            file=path,
            fix=f"remove the link ({path}); babelflow creates the lock file itself",
        ) from exc
    return os.fdopen(fd, "r+b" if binary else "r+")


@contextmanager
def _held(path: Path, record: str, refused: Callable[[str], BabelflowError]) -> Iterator[str]:
    """Hold an advisory lock file (the OS releases it when the process dies, so a killed run never
    blocks) with `record` written in it. Yields what a killed previous holder left there ("" when
    the last one ended); a held lock raises `refused(the holder's record)`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle = open_lock_file(path)
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError as exc:
        handle.seek(0)
        holder = handle.read().strip()
        handle.close()
        raise refused(holder) from exc
    try:
        handle.seek(0)
        previous = handle.read().strip()
        handle.seek(0)
        handle.truncate()
        handle.write(record)
        handle.flush()
        try:
            yield previous
        finally:
            # a holder that ends (normally or by an exception) leaves the file empty:
            # only a killed one leaves its record
            handle.seek(0)
            handle.truncate()
            handle.flush()
    finally:
        fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
        handle.close()


@contextmanager
def run_lock(locks_dir: Path, benchmark: str, language: str, holder: str = "") -> Iterator[str]:
    """One run per (benchmark, language). Yields what a killed previous holder left
    (`"<pid> <holder>"`), or "" when the last one ended."""

    def refused(_record: str) -> BabelflowError:
        return BabelflowError(
            f"Another babelflow run is adapting {benchmark} into {language}",
            file=path,
            fix="wait for it to finish (runs of different languages may run at once)",
        )

    path = Path(locks_dir) / f"{benchmark}--{language}.lock"
    with _held(path, f"{os.getpid()} {holder}".strip(), refused) as previous:
        yield previous


@contextmanager
def output_lock(locks_dir: Path, folder: Path, holder: str) -> Iterator[None]:
    """One writer per output folder for the whole run, keyed by the folder's resolved path (so a
    symlinked or relative spelling of the same folder is the same lock). `holder` says who writes
    (e.g. "tau2-mock en-XA"); a refused second run is told the folder, the holder and its pid."""
    resolved = Path(os.path.realpath(folder))
    key = hashlib.sha256(str(resolved).encode()).hexdigest()[:24]

    def refused(record: str) -> BabelflowError:
        pid, _, who = record.partition(" ")
        by = f"{who.partition(chr(9))[0] or 'another run'} (pid {pid})" if pid else "another babelflow run"
        return BabelflowError(
            f"Output folder is in use: {by} is writing into it",
            file=resolved,
            field="--out",
            fix="wait for that run to finish, or give each run its own --out folder",
        )

    # the folder too: the lock's name is a hash
    with _held(Path(locks_dir) / f"out-{key}.lock", f"{os.getpid()} {holder}\t{resolved}", refused):
        yield


@contextmanager
def one_at_a_time(path: Path) -> Iterator[None]:
    """Wait for, then hold, an advisory lock: work that two runs would otherwise do twice at once
    (two languages of one flow analysing the same benchmark) is done once; the second run waits and
    then finds the first one's result. The OS releases the lock when its holder dies."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open_lock_file(path) as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def _window_paths(locks_dir: Path, benchmark: str, language: str) -> tuple[Path, Path]:
    base = Path(locks_dir) / f"{benchmark}--{language}"
    return base.with_name(base.name + ".corrections-open"), base.with_name(base.name + ".edit.lock")


@contextmanager
def corrections_window(locks_dir: Path, benchmark: str, language: str, holder: str) -> Iterator[None]:
    """Held by a run that waits for its reviewer (the sign-off form) while it keeps the run lock: a
    correction may write meanwhile (`edit_in_window`). On leaving, the window closes first, then an edit
    in progress is waited for, so the run reads the variant whole."""
    marker, edit = _window_paths(locks_dir, benchmark, language)
    marker.parent.mkdir(parents=True, exist_ok=True)
    marker.write_text(holder)
    try:
        yield
    finally:
        marker.unlink(missing_ok=True)
        with one_at_a_time(edit):
            pass


@contextmanager
def edit_in_window(locks_dir: Path, benchmark: str, language: str) -> Iterator[str | None]:
    """Yields the flow run id of the run that holds the (benchmark, language) run lock and has its
    corrections window open, holding the window's edit lock meanwhile; None when none does (the lock is
    free, or its holder is not waiting for corrections)."""
    marker, edit = _window_paths(locks_dir, benchmark, language)
    lock = Path(locks_dir) / f"{benchmark}--{language}.lock"
    if not marker.exists() or not lock.exists():
        yield None
        return
    with open_lock_file(lock) as handle:
        try:  # free: a marker left by a killed run opens nothing
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
            free = True
        except BlockingIOError:
            free = False
        handle.seek(0)
        _, _, holder = handle.read().strip().partition(" ")
    if free or not holder:
        yield None
        return
    with one_at_a_time(edit):
        try:
            open_for = marker.read_text().strip()
        except FileNotFoundError:
            open_for = ""
        yield holder if open_for == holder else None
