"""Atomic, orjson-based file I/O. Nothing half-written is ever visible at a final path."""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path
from typing import Any

import orjson

from babelflow.errors import BabelflowError


def write_bytes_atomic(path: Path, data: bytes) -> None:
    """Write to a temp file in the same folder, fsync, then rename over the target."""
    path = Path(path)
    if path.exists() and path.is_dir():
        raise BabelflowError("Output path is a directory", file=path, fix="choose a file path")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError) as exc:
        raise BabelflowError("Output folder is a file", file=path.parent, fix="remove it or choose another output") from exc
    except OSError as exc:  # permissions, a read-only file system, a full disk
        raise BabelflowError(f"Output folder cannot be created: {exc.strerror}", file=path.parent, fix="choose a writable output folder") from exc
    try:
        fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as exc:
        raise BabelflowError(f"Output folder is not writable: {exc.strerror}", file=path.parent, fix="fix its permissions or choose another output folder") from exc
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp_name, path)
    except OSError as exc:
        Path(tmp_name).unlink(missing_ok=True)
        raise BabelflowError(f"Could not write file: {exc.strerror}", file=path, fix="free disk space or fix permissions") from exc
    except BaseException:
        Path(tmp_name).unlink(missing_ok=True)
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
