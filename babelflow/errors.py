"""User-facing errors: each names the file, the field and the fix, and maps to exit code 2."""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

M = TypeVar("M", bound=BaseModel)


class BabelflowError(Exception):
    """An error caused by the user's input or environment, not by a bug in babelflow."""

    exit_code = 2

    def __init__(
        self, message: str, *, file: str | Path | None = None, field: str | None = None, fix: str | None = None
    ):
        self.message = message
        self.file = str(file) if file is not None else None
        self.field = field
        self.fix = fix
        super().__init__(self.render())

    def render(self) -> str:
        parts = [self.message]
        if self.file:
            parts.append(f"  file: {self.file}")
        if self.field:
            parts.append(f"  field: {self.field}")
        if self.fix:
            parts.append(f"  fix: {self.fix}")
        return "\n".join(parts)


class StaleArtifactError(BabelflowError):
    """A saved IR, map or variant was produced from other inputs or by another schema version."""


def first_validation_error(exc) -> tuple[str, str]:
    """(message, dotted field path) of a pydantic ValidationError's first error, for user messages."""
    first = exc.errors()[0]
    return first["msg"], ".".join(str(p) for p in first["loc"])


def validate_input(
    model: type[M], raw: Any, *, what: str, file: str | Path, fix: str, error: type[BabelflowError] = BabelflowError
) -> M:
    """`raw` as `model`, or a user error naming `what` failed, the first field and the fix."""
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        message, field = first_validation_error(exc)
        count = exc.error_count()
        raise error(
            f"{what} ({count} error{'s' if count > 1 else ''}): {message}", file=file, field=field, fix=fix
        ) from exc
