"""Structured replies: the JSON a model sent back, whichever way its protocol carried it."""

from __future__ import annotations

import json
import re
from typing import Any


def parse_json_reply(text: str, data: Any | None) -> Any:
    """The reply's JSON: structured data if the protocol gave it (Anthropic's tool input), else the
    text (``` fences allowed). Raises ValueError when the text is not JSON."""
    if data is not None:
        return data
    body = text.strip()
    if body.startswith("```"):
        body = re.sub(r"^```[a-zA-Z]*\s*|\s*```$", "", body)
    return json.loads(body)


def nullable(schema: dict) -> dict:
    """A JSON-schema property that may be null (strict mode wants every property required)."""
    return {"anyOf": [schema, {"type": "null"}]}
