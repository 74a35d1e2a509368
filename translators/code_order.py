"""Inline codes that a translation swapped: counts and tag pairing are `placeholders.py`'s job;
this module catches a target that keeps every code once but puts them in each other's places.

"Create a task called '⟦0⟧' for ⟦1⟧" -> "... called '⟦1⟧' for ⟦0⟧" passes the count check, yet
the task now creates a task named 'user_1' for the user 'Important Meeting'. Two rules:

- a code the source quotes stays quoted, and one it does not quote stays unquoted, whatever the
  language (quote styles may change: '…' may become «…» or 「…」). A swap between a quoted and an
  unquoted code is refused; dropping or adding quotes on its own is not a swap and passes.
- where the language cannot reorder words (pseudo-locales render the English word by word), the
  codes keep their source order. Real languages may reorder codes freely (placeholders.py).
"""

from __future__ import annotations

from babelflow.text import PLACEHOLDER
from translators.placeholders import ProtectedText

# both sides of quotes in the scripts we target; a code counts as quoted when a quote sits right
# before it and right after it
QUOTES = frozenset("'\"`‘’‚‛“”„‟«»‹›「」『』〝〞＂＇")


def _quoted(text: str) -> set[int]:
    return {
        int(match.group(1))
        for match in PLACEHOLDER.finditer(text)
        if match.start() > 0
        and match.end() < len(text)
        and text[match.start() - 1] in QUOTES
        and text[match.end()] in QUOTES
    }


def code_order_problems(translated: str, protected: ProtectedText, *, keep_order: bool) -> list[str]:
    """Swapped inline codes in `translated` (which already has each code exactly once)."""
    originals = {p.index: p.original for p in protected.placeholders}
    problems: list[str] = []
    before, after = _quoted(protected.text), _quoted(translated)
    if before != after and len(before) == len(after):
        lost, gained = sorted(before - after), sorted(after - before)
        pairs = ", ".join(
            f"⟦{a}⟧ ({originals.get(a, '?')!r}) with ⟦{b}⟧ ({originals.get(b, '?')!r})"
            for a, b in zip(lost, gained, strict=True)
        )
        problems.append(f"inline codes swapped: {pairs} (the quoted code is no longer the one the source quotes)")
    if keep_order:
        source_order = [int(m.group(1)) for m in PLACEHOLDER.finditer(protected.text)]
        target_order = [int(m.group(1)) for m in PLACEHOLDER.finditer(translated)]
        if source_order != target_order and sorted(source_order) == sorted(target_order) and not problems:
            shown = " ".join(f"⟦{i}⟧" for i in target_order)
            problems.append(
                f"inline codes reordered to {shown}: this language keeps the source order "
                + " ".join(f"⟦{i}⟧" for i in source_order)
            )
    return problems
