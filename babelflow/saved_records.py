"""Reading a record babelflow saved as JSON: a file that no longer parses or fits is a stale artifact."""

from __future__ import annotations

from pathlib import Path
from typing import TypeVar

import orjson
from pydantic import BaseModel, ValidationError

from babelflow.errors import StaleArtifactError

R = TypeVar("R", bound=BaseModel)


def load_saved_record(path: Path, model: type[R], *, what: str, fix: str) -> R:
    """The file as `model`; a corrupt one raises StaleArtifactError ("<what> is corrupt: <first line>")
    naming the file and the fix. A missing file raises FileNotFoundError: callers decide what that means."""
    try:
        return model.model_validate(orjson.loads(path.read_bytes()))
    except (orjson.JSONDecodeError, ValidationError) as exc:
        raise StaleArtifactError(f"{what} is corrupt: {str(exc).splitlines()[0]}", file=path, fix=fix) from exc
