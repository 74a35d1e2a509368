"""Protected values that a translation swapped: the rule import (on ⟦N⟧ codes) and the fidelity
layer (on restored text and the field's protected tokens) share.

"Create a new task called 'Important Meeting' for user_1" -> "... called 'user_1' for Important
Meeting" keeps every value once, yet the task now names a task after the user. Languages reorder
words, so the order alone proves nothing; but a value the source quotes stays quoted and one it
does not quote stays unquoted, whatever the quote style ('…' may become «…» or 「…」). When the
quoted values change and their number does not, two values traded places.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# both sides of quotes in the scripts we target; a value is quoted when a quote sits right before
# it and right after it
QUOTES = frozenset("'\"`‘’‚‛“”„‟«»‹›「」『』〝〞＂＇")


def quoted_tokens(text: str, tokens: Iterable[str]) -> set[str]:
    """The tokens that `text` quotes somewhere (a literal, word-bounded search: linear time)."""
    found = set()
    for token in set(tokens):
        if not token:
            continue
        for match in re.finditer(rf"(?<!\w){re.escape(token)}(?!\w)", text):
            start, end = match.start(), match.end()
            if start > 0 and end < len(text) and text[start - 1] in QUOTES and text[end] in QUOTES:
                found.add(token)
                break
    return found


def swapped_tokens(source: str, target: str, tokens: Iterable[str]) -> list[tuple[str, str]]:
    """(value the source quotes, value quoted in its place) pairs; [] when nothing was swapped.

    Quotes dropped or added on their own (the count changes) are a style matter, not a swap."""
    tokens = [t for t in tokens if t]
    before, after = quoted_tokens(source, tokens), quoted_tokens(target, tokens)
    if before == after or len(before) != len(after):
        return []
    return list(zip(sorted(before - after), sorted(after - before), strict=True))
