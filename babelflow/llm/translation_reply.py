"""The reply a model gives to a batch of texts to translate: ``{"translations": [{"id", "text"}]}``.

Shared by the model translator (translators/providers) and the model back-translation validator
(validators/model_backends): one schema, one parser, so both read a reply the same way.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from babelflow.llm.replies import parse_json_reply

SCHEMA_NAME = "submit_translations"


class _Translation(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str
    text: str


class TranslationBatch(BaseModel):
    model_config = ConfigDict(extra="forbid")
    translations: list[_Translation]


# strict-mode compatible (OpenAI structured outputs): every property required, no extras
TRANSLATION_SCHEMA: dict = {
    "type": "object",
    "properties": {
        "translations": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"id": {"type": "string"}, "text": {"type": "string"}},
                "required": ["id", "text"],
                "additionalProperties": False,
            },
        }
    },
    "required": ["translations"],
    "additionalProperties": False,
}


@dataclass(frozen=True)
class BatchProblem:
    """Why a whole reply is unusable (every segment of the batch is retried or recorded with it)."""

    reason: str


def parse_batch(text: str, data: Any | None, truncated: bool) -> dict[str, str] | BatchProblem:
    """id -> text of a well-formed reply, or the batch-level problem."""
    if truncated:
        return BatchProblem("output truncated at the token limit")
    try:
        batch = TranslationBatch.model_validate(parse_json_reply(text, data))
    except (ValueError, ValidationError) as exc:
        return BatchProblem(f"reply is not the required JSON ({type(exc).__name__})")
    counts = Counter(t.id for t in batch.translations)
    duplicated = sorted(i for i, n in counts.items() if n > 1)
    if duplicated:
        return BatchProblem(f"duplicate ids in reply: {', '.join(duplicated[:5])}")
    return {t.id: t.text for t in batch.translations}
