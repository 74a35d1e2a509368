"""Shape-based classification of a string, used after runtime evidence and before the profile."""

from __future__ import annotations

import re

from babelflow.ir import PreserveReason

CONTROL_TOKEN = re.compile(r"^#{3}[A-Z][A-Z_-]*#{3}$")
EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[A-Za-z]{2,}$")
URL = re.compile(r"^(https?|ftp)://\S+$")
DATE_TIME = re.compile(
    r"^(\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?(Z|[+-]\d{2}:\d{2})?|\d{1,2}:\d{2}(:\d{2})?(\s?[AaPp][Mm])?(\+\d)?|\d{1,2}/\d{4}|\d{1,2}/\d{1,2}/\d{2,4})$"
)
NUMBER = re.compile(r"^[+-]?[$€£]?\d[\d,]*(\.\d+)?%?$")
IDENTIFIER = re.compile(r"^(?=\S*[\d_#])[#\w.+-]+$|^[A-Z][A-Z0-9]{1,5}$")
MARKUP_ONLY = re.compile(r"^(\s|<[^>]+>|\{[^{}]*\}|[\[\](){}:;,.\-*#|=_/])*$")
WORD = re.compile(r"[^\W\d_]+")


def specific_reason(text: str) -> PreserveReason | None:
    """A Preserve reason implied by the string's shape alone, or None for words and prose."""
    stripped = text.strip()
    if not stripped:
        return PreserveReason.EMPTY
    if CONTROL_TOKEN.match(stripped):
        return PreserveReason.CONTROL_TOKEN
    if EMAIL.match(stripped) or URL.match(stripped):
        return PreserveReason.EMAIL_URL
    if DATE_TIME.match(stripped):
        return PreserveReason.DATE_TIME
    if NUMBER.match(stripped):
        return PreserveReason.NUMBER
    if IDENTIFIER.match(stripped):
        return PreserveReason.IDENTIFIER
    if MARKUP_ONLY.match(stripped):
        return PreserveReason.MARKUP
    return None


def is_prose(text: str) -> bool:
    """Natural language a model reads: at least three words, or a sentence."""
    words = WORD.findall(text)
    return len(words) >= 3 or (len(words) >= 2 and text.rstrip().endswith((".", "?", "!", ":")))
