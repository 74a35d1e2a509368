"""Shape-based classification of a string, used after runtime evidence and before the profile."""

from __future__ import annotations

import heapq
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
# punctuation a markup-only string may hold outside its <tags> and {slots}
MARKUP_CHARS = frozenset("[](){}:;,.-*#|=_/")
WORD = re.compile(r"[^\W\d_]+")
_BRACE = re.compile(r"[{}]")


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
    if is_markup_only(stripped):
        return PreserveReason.MARKUP
    return None


def is_markup_only(text: str) -> bool:
    r"""True when `text` splits into whitespace, <tags>, {slots} with no brace inside and MARKUP_CHARS.

    The pattern r"^(\s|<[^>]+>|\{[^{}]*\}|[\[\](){}:;,.\-*#|=_/])*$" said the same, but it tried both
    readings of every '{…}' ('{:}' is a slot or three marks): 2^n steps on n of them and a letter.
    Here each position is visited once: from it a mark or space leads one on, a tag to past its first
    '>', a '{' also to past its '}' when no '{' comes first."""
    reachable = [0]
    seen = {0}
    next_gt = next_brace = -1  # the first '>' / '{' or '}' after the current position (found once)
    while reachable:
        at = heapq.heappop(reachable)
        if at == len(text):
            return True
        char, ends = text[at], []
        if char.isspace() or char in MARKUP_CHARS:
            ends.append(at + 1)
        if char == "<":
            if next_gt <= at:
                next_gt = text.find(">", at + 1) % (len(text) + 1)  # -1 (none): len(text), past any position
            if at + 1 < next_gt < len(text):
                ends.append(next_gt + 1)
        elif char == "{":
            if next_brace <= at:
                brace = _BRACE.search(text, at + 1)
                next_brace = brace.start() if brace is not None else len(text)
            if next_brace < len(text) and text[next_brace] == "}":
                ends.append(next_brace + 1)
        for end in ends:
            if end not in seen:
                seen.add(end)
                heapq.heappush(reachable, end)
    return False


def is_prose(text: str) -> bool:
    """Natural language a model reads: at least three words, or a sentence."""
    words = WORD.findall(text)
    return len(words) >= 3 or (len(words) >= 2 and text.rstrip().endswith((".", "?", "!", ":")))
