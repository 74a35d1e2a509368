"""Find preserved values that occur *as tokens* inside prose, so translators protect them.

A value counts as a token mention when its shape makes it one (ids, numbers, emails, dates,
snake_case, capitalised names) or when the prose quotes it ('pending', "delivered", `economy`).
A lowercase word that merely looks like a code ("to be delivered to Suite 641") is ordinary prose
and is translated.
"""

from __future__ import annotations

import re

from analyzers.heuristics import specific_reason

_TOKEN = re.compile(r"[^\s\"'`()\[\]{}<>,;!?“”‘’«»]+")
_QUOTES = {"'": "'", '"': '"', "`": "`", "‘": "’", "“": "”", "«": "»"}
MAX_WORDS = 12  # a spoken DB value (a product name, an address, a reason) can be long


def always_token(value: str) -> bool:
    """True when any occurrence of the value must survive verbatim (not sentences: they are prose)."""
    if specific_reason(value) is not None:
        return True
    if len(value.split()) >= 4:
        return False
    return "_" in value or any(ch.isupper() for ch in value)


class MentionFinder:
    def __init__(self, vocabulary: set[str], executed: set[str] | frozenset[str] = frozenset()):
        """`executed`: values the instrumented run saw passed to tools, written to the DB or compared.
        Those of two or more words are tokens whatever their length or casing ("123 Elm Street",
        "no longer needed"); a lone lowercase word keeps the quoting rule (it is also ordinary prose)."""
        self.vocabulary = {v for v in vocabulary | set(executed) if len(v.strip()) >= 2 and v == v.strip()}
        self._always = {v: always_token(v) or (v in executed and len(v.split()) >= 2) for v in self.vocabulary}

    def find(self, text: str) -> tuple[list[str], list[str]]:
        """(token mentions to protect, all mentions incl. plain-word ones, for soft links)."""
        spans = []
        for match in _TOKEN.finditer(text):
            start, end = match.span()
            while end > start and text[end - 1] in ".:":  # sentence punctuation is not part of a token
                end -= 1
            if end > start:
                spans.append((start, end))
        tokens: dict[str, None] = {}
        mentions: dict[str, None] = {}
        for i in range(len(spans)):
            for j in range(i, min(i + MAX_WORDS, len(spans))):
                start, end = spans[i][0], spans[j][1]
                candidate = text[start:end]
                if candidate in self.vocabulary and (start, end) != (0, len(text)):  # the field itself is no mention
                    mentions[candidate] = None
                    if self._always[candidate] or _quoted(text, start, end):
                        tokens[candidate] = None
        order = lambda v: (-len(v), v)  # noqa: E731 - longest first, so restoring never splits a token
        return sorted(tokens, key=order), sorted(mentions, key=order)


def _quoted(text: str, start: int, end: int) -> bool:
    if start == 0 or end >= len(text):
        return False
    opening = text[start - 1]
    return opening in _QUOTES and text[end] == _QUOTES[opening]
