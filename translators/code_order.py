"""Inline codes that a translation swapped: counts and tag pairing are `placeholders.py`'s job;
this module catches a target that keeps every code once but puts them in each other's places.

Two rules:
- a code the source quotes stays quoted, one it does not quote stays unquoted, in every language
  (babelflow/inline_codes.py, the rule the fidelity layer applies to restored text);
- where the language cannot reorder words (pseudo-locales render the English word by word), the
  codes keep their source order. Real languages may reorder codes freely (placeholders.py).
"""

from __future__ import annotations

from babelflow.inline_codes import swapped_tokens
from babelflow.text import PLACEHOLDER
from translators.placeholders import ProtectedText


def code_order_problems(translated: str, protected: ProtectedText, *, keep_order: bool) -> list[str]:
    """Swapped inline codes in `translated` (which already has each code exactly once)."""
    originals = {f"⟦{p.index}⟧": p.original for p in protected.placeholders}
    swaps = swapped_tokens(protected.text, translated, originals)
    if swaps:
        pairs = ", ".join(f"{a} ({originals[a]!r}) with {b} ({originals[b]!r})" for a, b in swaps)
        return [f"inline codes swapped: {pairs} (the quoted code is no longer the one the source quotes)"]
    if keep_order:
        source_order = [int(m.group(1)) for m in PLACEHOLDER.finditer(protected.text)]
        target_order = [int(m.group(1)) for m in PLACEHOLDER.finditer(translated)]
        if source_order != target_order and sorted(source_order) == sorted(target_order):
            shown = " ".join(f"⟦{i}⟧" for i in target_order)
            expected = " ".join(f"⟦{i}⟧" for i in source_order)
            return [f"inline codes reordered to {shown}: this language keeps the source order {expected}"]
    return []
