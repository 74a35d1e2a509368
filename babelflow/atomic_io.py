"""Atomic, orjson-based file I/O. Nothing half-written is ever visible at a final path.

The writer owns only what it writes: its temp files carry a recognisable name with the writing
process's pid (`.<name>.babelflow-<pid>-<random>.tmp`), so a cleanup can remove a killed writer's
leftovers and nothing else; it refuses targets that are not regular files; and a rewritten file keeps
its mode (a new one gets `0o666 & ~umask`, as any editor would create it)."""

from __future__ import annotations

import errno
import functools
import hashlib
import os
import re
import secrets
import stat
import sys
from pathlib import Path
from typing import Any

import orjson

from babelflow.errors import BabelflowError

_CHECKOUT = Path(__file__).resolve().parent.parent
_CODE_EXTRA = ("tests", "scripts", ".git", ".ci")  # the project's code that is not a Python package
TEMP_MARK = "babelflow"
_NAME_KEEP = 80  # characters of the target's name kept in its temp name (255 is the usual limit)
_TEMP_RE = re.compile(rf"^\..*\.{TEMP_MARK}-(\d+)-[0-9a-f]{{8}}\.tmp$")


def temp_name_for(path: Path) -> str:
    """The name of a fresh temp file for `path` (in the same folder, so the rename stays atomic)."""
    return f".{path.name[:_NAME_KEEP]}.{TEMP_MARK}-{os.getpid()}-{secrets.token_hex(4)}.tmp"


def temp_owner_pid(path: Path) -> int | None:
    """The pid of the babelflow writer that created this temp file, or None when it is not one of ours."""
    match = _TEMP_RE.match(Path(path).name)
    return int(match.group(1)) if match else None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: alive
        return True
    return True


def remove_stale_temps(folder: Path) -> list[Path]:
    """Delete the temp files a killed babelflow writer left under `folder` (recursively).

    Only names of the writer's own pattern whose process no longer runs are removed: a user's
    `notes.tmp` or `.x.tmp`, and a temp file another live process is writing, are never touched."""
    removed: list[Path] = []
    folder = Path(folder)
    if not folder.is_dir():
        return removed
    for candidate in folder.rglob(f"*.{TEMP_MARK}-*.tmp"):
        pid = temp_owner_pid(candidate)
        if pid is None or pid == os.getpid() or _alive(pid):
            continue
        try:
            if stat.S_ISREG(candidate.lstat().st_mode):
                candidate.unlink()
                removed.append(candidate)
        except FileNotFoundError:
            continue
    return removed


@functools.cache
def project_code_folders() -> tuple[Path, ...]:
    """babelflow's own code: the packages of its checkout (babelflow, flows, analyzers, ...), its tests
    and scripts, and the virtual environment it runs in (whose site-packages hold tau2 and agentdojo).
    No babelflow output belongs there: the writer refuses them whatever the command."""
    folders = [d for d in _CHECKOUT.iterdir() if d.is_dir() and (d / "__init__.py").is_file()]
    folders += [_CHECKOUT / name for name in _CODE_EXTRA if (_CHECKOUT / name).is_dir()]
    if sys.prefix != sys.base_prefix:  # a virtual environment
        folders.append(Path(sys.prefix))
    return tuple(Path(os.path.realpath(f)) for f in folders)


def _refuse_code(path: Path) -> None:
    real = Path(os.path.realpath(path))
    for folder in project_code_folders():
        if real.is_relative_to(folder):
            raise BabelflowError(
                f"Output path lies inside {folder}, babelflow's own code or its installed packages",
                file=path,
                fix="write outputs outside the code and the virtual environment (e.g. the project folder)",
            )


def _existing_target(path: Path) -> os.stat_result | None:
    """The stat of a regular file at `path`, None when nothing is there; anything else is refused.

    A symlink is refused rather than followed or replaced: renaming over it would drop the user's link
    and leave its target stale, and writing through it would lose atomicity and could land outside the
    folder the user named (a variant folder whose `db.json` links to the English source)."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    except NotADirectoryError as exc:
        fix = "remove it or choose another output"
        raise BabelflowError("Output folder is a file", file=path.parent, fix=fix) from exc
    except OSError as exc:  # ELOOP in a parent, ENAMETOOLONG, EACCES
        fix = "choose another output path"
        raise BabelflowError(f"Output path cannot be used: {exc.strerror}", file=path, fix=fix) from exc
    mode = st.st_mode
    if stat.S_ISREG(mode):
        return st
    if stat.S_ISDIR(mode):
        what = "empty (it reads as the current folder)" if str(path) in ("", ".") else "a directory"
        raise BabelflowError(f"Output path is {what}", file=path, fix="give a file path, e.g. --out retail-es.xlf")
    if stat.S_ISLNK(mode):
        raise BabelflowError(
            "Output path is a symbolic link: babelflow does not replace or write through links",
            file=path,
            fix=f"write to the link's target itself ({os.path.realpath(path)}) or remove the link",
        )
    kind = {
        stat.S_IFCHR: "a character device",
        stat.S_IFBLK: "a block device",
        stat.S_IFIFO: "a FIFO",
        stat.S_IFSOCK: "a socket",
    }
    raise BabelflowError(
        f"Output path is {kind.get(stat.S_IFMT(mode), 'not a regular file')}, not a regular file",
        file=path,
        fix="choose a regular file path (babelflow never replaces devices, FIFOs or sockets)",
    )


def _create_temp(path: Path) -> tuple[int, Path]:
    """An exclusive new temp file; 0o666 lets the kernel apply the umask (mkstemp would force 0o600)."""
    for _ in range(16):
        tmp = path.parent / temp_name_for(path)
        try:
            return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o666), tmp
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free temp file name", str(path.parent))


def _keep_identity(fd: int, old: os.stat_result) -> None:
    """A rewrite keeps the old file's mode (0644 stays 0644) and, where permitted, its owner."""
    os.fchmod(fd, stat.S_IMODE(old.st_mode))
    if (old.st_uid, old.st_gid) != (os.geteuid(), os.getegid()):
        try:
            os.fchown(fd, old.st_uid, old.st_gid)
        except PermissionError:  # only root may give a file away: the mode alone is kept
            pass


def write_bytes_atomic(path: Path, data: bytes) -> None:
    """Write to a temp file in the same folder, fsync, then rename over the target."""
    path = Path(path)
    old = _existing_target(path)
    _refuse_code(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError) as exc:
        fix = "remove it or choose another output"
        raise BabelflowError("Output folder is a file", file=path.parent, fix=fix) from exc
    except OSError as exc:  # permissions, a read-only file system, a full disk, a symlink loop
        fix = "choose a writable output folder"
        raise BabelflowError(f"Output folder cannot be created: {exc.strerror}", file=path.parent, fix=fix) from exc
    try:
        fd, tmp = _create_temp(path)
    except OSError as exc:
        fix = "fix its permissions or choose another output folder"
        raise BabelflowError(f"Output folder is not writable: {exc.strerror}", file=path.parent, fix=fix) from exc
    try:
        with os.fdopen(fd, "wb") as handle:
            if old is not None:
                _keep_identity(handle.fileno(), old)
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        _existing_target(path)  # checked again right before the rename: the window stays small
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        fix = "free disk space or fix permissions"
        raise BabelflowError(f"Could not write file: {exc.strerror}", file=path, fix=fix) from exc
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_text_atomic(path: Path, text: str) -> None:
    write_bytes_atomic(path, text.encode("utf-8"))


def dump_json_bytes(value: Any, *, indent: bool = True) -> bytes:
    option = orjson.OPT_INDENT_2 if indent else 0
    return orjson.dumps(value, option=option | orjson.OPT_NON_STR_KEYS)


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()
