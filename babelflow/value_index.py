"""Which of many known values occur in a text, whole-word, without one regex of every value.

The validators ask of each field which entity values its text names, and replace values by their
renderings in tool results. With the ~15k canonical values of a VitaBench variant, an alternation of
them all (or one search per value and field: 390M regex searches) took minutes; a value is found here
by its first characters at each word start instead.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping

_PREFIX = 3  # values are indexed by this many first characters (fewer for a shorter value)


class ValueIndex:
    """`values` found in a text where each starts and ends at a word boundary. `joiners` are the
    characters besides \\w that continue a word (the entity checks treat "-" as one); `fold` matches
    without case (casefold: a value is reported as given)."""

    def __init__(self, values: Iterable[str], *, joiners: str = "", fold: bool = False):
        self.fold = fold
        self._word = re.compile(rf"[\w{re.escape(joiners)}]")
        by_prefix: dict[str, list[tuple[str, str]]] = {}
        for value in sorted({v for v in values if v}, key=len, reverse=True):
            key = value.casefold() if fold else value
            by_prefix.setdefault(key[:_PREFIX], []).append((key, value))
        self._by_prefix = by_prefix
        self._lengths = sorted({len(prefix) for prefix in by_prefix}, reverse=True)

    def _prepared(self, text: str) -> str:
        folded = text.casefold() if self.fold else text
        return folded if len(folded) == len(text) else text.lower()  # casefold can lengthen (ß): positions

    def _starts(self, text: str) -> Iterator[int]:
        word = self._word
        for index in range(len(text)):
            if index == 0 or not word.match(text, index - 1):
                yield index

    def _at(self, text: str, index: int) -> Iterator[str]:
        """The values starting at `index` and ending at a boundary, longest first (as keys of `text`)."""
        size = len(text)
        for length in self._lengths:
            for key, value in self._by_prefix.get(text[index : index + length], ()):
                end = index + len(key)
                if text.startswith(key, index) and (end == size or not self._word.match(text, end)):
                    yield value

    def found(self, text: str) -> set[str]:
        """Every value the text holds whole (overlapping ones too)."""
        prepared = self._prepared(text)
        return {value for index in self._starts(prepared) for value in self._at(prepared, index)}

    def replace(self, text: str, renderings: Mapping[str, str]) -> str:
        """Each value replaced by its rendering, leftmost-longest, not overlapping (case-sensitive index)."""
        out: list[str] = []
        done = 0
        for index in self._starts(text):
            if index < done:
                continue
            value = next(self._at(text, index), None)
            if value is None:
                continue
            out += [text[done:index], renderings[value]]
            done = index + len(value)
        out.append(text[done:])
        return "".join(out)
