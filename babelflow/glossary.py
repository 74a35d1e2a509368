"""Finding a language pack's glossary terms in a text: one index per glossary, not one regex per term.

A term is present where `(?<!\\w)TERM(?!\\w)` matches case-insensitively (the rule the engine and
the pack checks always used). Searching each term's regex in every field made a 5,000-term glossary
cost mock 11x its adapt time, and 600,000 terms never finished: with more patterns than `re`'s
cache holds, every search compiled its pattern again (issue 28, item 12).

The index maps each term's first word, case-folded as `re.IGNORECASE` folds it, to the terms that
start with it. A text's own words select the candidates (a term that matches starts with a whole
word of the text: its first word is preceded and followed by non-word characters in the text
too), and only the candidates' regexes run, each compiled once. Terms that do not start with a word
character are always tried. The number of terms is bounded (`MAX_GLOSSARY_TERMS`) where packs are
read.
"""

from __future__ import annotations

import _sre  # the case folding `re` itself applies (simple lowercase, per code point)
import re
from collections.abc import Sequence
from functools import lru_cache
from re import _casefix  # type: ignore[attr-defined]  # re's extra case equivalences (ſ ~ s, K ~ k)

MAX_GLOSSARY_TERMS = 20_000  # a pack's [[glossary]] entries; 20,000 terms make a ~1.7 MB pack
MAX_PACK_BYTES = 8 * 1024 * 1024  # a pack is read whole before its terms can be counted

_WORD = re.compile(r"\w+")


class _IgnoreCaseFold(dict[int, int]):
    """str.translate table: each code point to one representative of its `re.IGNORECASE` class
    (built on first use per code point; `re` compares lowercase forms plus a few extra cases)."""

    def __missing__(self, code: int) -> int:
        lower = _sre.unicode_tolower(code)
        folded = min((lower, *_casefix._EXTRA_CASES.get(lower, ())))
        self[code] = folded
        return folded


_FOLD = _IgnoreCaseFold()


def ignorecase_key(word: str) -> str:
    """Equal for two words that `re.IGNORECASE` matches against each other."""
    return word.translate(_FOLD)


class TermMatcher:
    """Which of `sources` occur in a text, as word-bounded case-insensitive matches."""

    def __init__(self, sources: Sequence[str]):
        self.sources = tuple(sources)
        self._by_first_word: dict[str, list[int]] = {}
        self._always: list[int] = []  # terms starting with a non-word character (or empty)
        for index, source in enumerate(self.sources):
            first = _WORD.match(source)
            if first is None:
                self._always.append(index)
            else:
                self._by_first_word.setdefault(ignorecase_key(first.group()), []).append(index)
        self._patterns: dict[int, re.Pattern[str]] = {}

    def _pattern(self, index: int) -> re.Pattern[str]:
        pattern = self._patterns.get(index)
        if pattern is None:
            pattern = self._patterns[index] = re.compile(rf"(?<!\w){re.escape(self.sources[index])}(?!\w)", re.I)
        return pattern

    def present(self, text: str) -> list[int]:
        """Indices (ascending) of the terms that occur in `text`."""
        words = {ignorecase_key(word) for word in _WORD.findall(text)}
        candidates = [index for word in words for index in self._by_first_word.get(word, ())]
        candidates += self._always
        return sorted(index for index in set(candidates) if self._pattern(index).search(text))

    def outermost(self, text: str) -> list[int]:
        """The present terms with an occurrence of their own, not only inside a longer term's ('themed' in
        'a horror-themed game' where 'horror-themed' is a term too): the translator renders the longer one
        whole, so only it is owed its rendering there."""
        present = self.present(text)
        spans = {i: [m.span() for m in self._pattern(i).finditer(text)] for i in present}
        longer = [(i, span) for i in present for span in spans[i]]
        return [
            i
            for i in present
            if any(
                not any(j != i and a <= start and end <= b and b - a > end - start for j, (a, b) in longer)
                for start, end in spans[i]
            )
        ]


@lru_cache(maxsize=8)
def term_matcher(sources: tuple[str, ...]) -> TermMatcher:
    """One matcher per glossary (its compiled patterns are kept for the next call)."""
    return TermMatcher(sources)
