"""A user's TOML file (language pack, analysis profile) parsed into a dict, or a BabelflowError
naming the file: not UTF-8 (with the byte and line), not TOML, or nested too deeply for tomllib,
which parses arrays and inline tables recursively ("x = " + "[" * 5000 was a RecursionError
traceback)."""

from __future__ import annotations

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
