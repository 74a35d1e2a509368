"""A user's TOML file (language pack, analysis profile) parsed into a dict, or a BabelflowError
naming the file: not UTF-8 (with the byte and line), not TOML, or nested too deeply for tomllib,
which parses arrays and inline tables recursively ("x = " + "[" * 5000 was a RecursionError
traceback). `read_bounded` reads it first: a regular file of bounded size, or a named error (a
FIFO at its path blocked the run forever, a link to /dev/zero read until memory ran out, a folder
passed as --profile was an IsADirectoryError traceback)."""

from __future__ import annotations

import os
import stat
import tomllib
from pathlib import Path
from typing import Any

from babelflow.errors import BabelflowError


def parse_toml(raw: bytes, *, what: str, file: str | Path) -> dict[str, Any]:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise BabelflowError(
            f"{what} is not UTF-8 (byte {exc.start}, line {line})",
            file=file,
            fix="save the file as UTF-8 (TOML files must be)",
        ) from None
    parts = longest_dotted_key(text)
    if parts > MAX_KEY_PARTS:
        raise BabelflowError(
            f"{what} has a dotted key of {parts:,} parts (at most {MAX_KEY_PARTS})",
            file=file,
            fix="use short keys: these files hold tables of rules and terms (tomllib's time and memory grow"
            " with the square of a key's parts)",
        )
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise BabelflowError(f"{what} is not valid TOML: {exc}", file=file, fix="repair the TOML syntax") from exc
    except RecursionError:
        raise BabelflowError(
            f"{what} nests arrays or inline tables too deeply to parse",
            file=file,
            fix="remove the nesting: these files hold tables and flat lists",
        ) from None


# a dotted key (`a.b.c = 1`, `[a.b.c]`) of n parts costs tomllib time and memory in n^2: 50,000 parts
# took 58 s and 9.5 GB (issue 44: a 200 KB pack grew to 22.8 GB); the packaged files use 2
MAX_KEY_PARTS = 64
_BARE_KEY = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_- \t")


def _string_end(text: str, start: int) -> int:
    """The index after the TOML string opening at `start` (basic, literal, multi-line), or the end of the
    text / line when it is not closed. Linear: each character is looked at once."""
    quote = text[start]
    if text.startswith(quote * 3, start):
        end = text.find(quote * 3, start + 3)
        return len(text) if end < 0 else end + 3
    index = start + 1
    while index < len(text) and text[index] not in (quote, "\n"):
        index += 2 if quote == '"' and text[index] == "\\" else 1
    return index + 1


def longest_dotted_key(text: str) -> int:
    """The most parts of any dotted run of bare keys outside strings (a quoted part counts as one part,
    a dot inside a string as none). One pass; a float's dot is read as one more part, which is harmless."""
    longest = dots = index = 0
    while index < len(text):
        char = text[index]
        if char in "\"'":
            index = _string_end(text, index)
            continue
        if char == ".":
            dots += 1
            longest = max(longest, dots)
        elif char not in _BARE_KEY:
            dots = 0
        index += 1
    return longest + 1


MAX_TOML_BYTES = 8 * 2**20  # the packaged profiles are under 20 KB, packs under 4 KB


def read_bounded(path: str | Path, *, what: str, max_bytes: int = MAX_TOML_BYTES) -> bytes:
    """The bytes of a user's file. FileNotFoundError is left to the caller (each says what to pass
    instead); anything that is not a regular file of at most `max_bytes` is a BabelflowError."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)  # a FIFO opens without a writer
    except FileNotFoundError:
        raise
    except OSError as exc:
        message = f"{what} cannot be read: {exc.strerror}"
        raise BabelflowError(message, file=path, fix="make it a readable file") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        fix = "name the TOML file itself, not a folder, device or pipe"
        raise BabelflowError(f"{what} is not a regular file", file=path, fix=fix)
    with os.fdopen(fd, "rb") as handle:
        data = handle.read(max_bytes + 1)  # a file that grows while it is read is still bounded
    if len(data) > max_bytes:
        fix = "these files hold rules and terms, not data"
        raise BabelflowError(f"{what} is larger than {max_bytes // 2**20} MiB", file=path, fix=fix)
    return data
