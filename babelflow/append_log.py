"""Append-only JSON-lines logs of records (review decisions, corrections, sign-off decisions): one fsynced
write per batch; a torn last line (a write killed midway) is skipped, a bad line before it is an error."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TypeVar

import orjson
from pydantic import BaseModel, ValidationError

from babelflow.errors import BabelflowError

M = TypeVar("M", bound=BaseModel)


def read_records(path: Path, model: type[M], corrupt: str, fix: str) -> list[M]:
    if not path.exists():
        return []
    lines = path.read_bytes().splitlines()
    out = []
    for number, line in enumerate(lines, start=1):
        try:
            out.append(model.model_validate(orjson.loads(line)))
        except (orjson.JSONDecodeError, ValidationError) as exc:
            if number < len(lines):
                raise BabelflowError(corrupt, file=path, field=f"line {number}", fix=fix) from exc
    return out


def append_records(path: Path, records: Sequence[BaseModel]) -> None:
    if not records:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "ab") as handle:
        handle.write(b"".join(orjson.dumps(r.model_dump(mode="json")) + b"\n" for r in records))
        handle.flush()
        os.fsync(handle.fileno())
