"""Does a variant write English words of its own accord (a code-switching register), in any script?

Tagalog as written today mixes in English ("nag-order ka ng dalawang item" for "you placed two
orders"): a Tagalog variant that keeps the benchmark's literal 'user' or 'available' reads as a
native writer would write it, while the same word kept in a Vietnamese or Indonesian sentence is
a leak (a reviewer labelled the first false seven times, the second true every time). A word list
per language cannot know this for a language it was not tuned on; the variant itself shows it.
A translation that puts English words where its source has none chose them: the register mixes
languages. One that only keeps the words its source wrote, and introduces none, translated
everything it could, so what it kept is a leak.

Counted, as distinct words: the benchmark's literals that the calibration languages' variants
translate and this variant keeps in most of its fields (calibration.adopted_literals: Taglish
'order', 'zip'), and lowercase words of four or more letters the English source writes somewhere,
found in a field whose source does not contain them, excluding words of the DB's catalogue values
(a product kept as it is), brand names and words the target language's own analyser knows
("total" in Spanish). Held out on the corpus: Tagalog 11 such words, Indonesian 2 ('item',
'status'), Vietnamese and Thai none.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from babelflow.ir import PreserveReason
from validators.context import ValidationContext

MIN_DISTINCT = 6  # distinct English words of its own that make a mixed register; corpus: tl 11, id 2, vi/th 0
_WORD = re.compile(r"(?<![\w'-])[a-z]{4,}(?![\w'-])")


@dataclass(frozen=True)
class Register:
    introduced: Counter  # English word -> fields that write it where their source does not
    adopted: frozenset[str] = frozenset()  # literals other languages' variants translate and this one keeps

    @property
    def words(self) -> set[str]:
        return set(self.introduced) | set(self.adopted)

    @property
    def mixes_english(self) -> bool:
        return len(self.words) >= MIN_DISTINCT

    def evidence(self, limit: int = 6) -> str:
        written = [f"'{word}' written where the source has none ×{n}" for word, n in self.introduced.most_common(3)]
        kept = [f"'{word}'" for word in sorted(self.adopted)]
        return "; ".join(
            part
            for part in (
                ", ".join(written),
                f"{', '.join(kept[: limit - len(written)])} kept where other languages translate them" if kept else "",
            )
            if part
        )


def catalogue_words(ctx: ValidationContext) -> set[str]:
    """Lowercase words of the DB's entity values (product names, option values): kept as they are."""
    database = ctx.database_paths
    return {
        word
        for element in ctx.ir.elements
        if element.artifact in database and element.preserve_reason is PreserveReason.LINKED_ENTITY
        for word in re.findall(r"[a-z]+", element.source_text.lower())
    }


def register_of(ctx: ValidationContext, pairs, masked, known: set[str], lexicon, adopted=frozenset()) -> Register:
    """`pairs`: (element, target) of the variant's prose; `masked(text, tokens)`: the text without
    slots, ids and inline tokens; `known`: words never counted (brand names); `lexicon(words)`:
    the subset of words the target language's analyser knows; `adopted`: literals the calibration
    languages translate and this variant keeps (calibration.adopted_literals)."""
    english: set[str] = set()
    for element, _ in pairs:
        english.update(_WORD.findall(element.source_text.lower()))
    english -= known | catalogue_words(ctx)
    introduced: Counter = Counter()
    seen: set[tuple[str, str]] = set()
    for element, target in pairs:
        if (element.source_text, target) in seen:
            continue
        seen.add((element.source_text, target))
        source = element.source_text.lower()
        for word in set(_WORD.findall(masked(target, element.inline_tokens))) & english:
            if not re.search(rf"(?<![a-z]){word}", source):  # 'orders' in the source covers 'order'
                introduced[word] += 1
    native = lexicon(set(introduced) | set(adopted)) if introduced or adopted else set()
    return Register(
        introduced=Counter({w: n for w, n in introduced.items() if w not in native}),
        adopted=frozenset(w for w in adopted if w not in native),
    )
