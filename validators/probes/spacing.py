"""Terms a pipeline inserted into sentences of a script written without spaces between words.

A tool that protects the benchmark's literals (statuses, payment methods, 'refund') and has them
translated apart writes each rendering back between two spaces: Thai `การคืนเงิน เป็น บัตรเครดิต`,
Chinese `使用 礼品卡 付款`. Spaces separate clauses in Thai, so a space alone proves nothing;
what marks an inserted term is recurrence: the same chunk set off by spaces, between letters of
the script, in several fields, and in most of the fields whose source names one literal of the
benchmark (a clause set off by spaces, or 'or', follows no literal). Decided by Unicode script
(babelflow.language_data.in_script), not per language.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict

from babelflow.language_data import LanguageData, in_script

MIN_FIELDS = 3  # a pattern, not a coincidence
COVERAGE = 0.5  # set off in at least half the fields whose source names the literal: its rendering, inserted
_SOURCE_WORD = re.compile(r"[a-z]+")


def isolated_chunks(target: str, data: LanguageData) -> set[str]:
    """Runs of the script set off by a space on each side, with a letter of the script beyond each space."""
    parts = target.split(" ")
    found = set()
    for i in range(1, len(parts) - 1):
        chunk, before, after = parts[i], parts[i - 1], parts[i + 1]
        if (
            chunk
            and before
            and after
            and all(in_script(c, data.script) for c in chunk)
            and in_script(before[-1], data.script)
            and in_script(after[0], data.script)
        ):
            found.add(chunk)
    return found


def inserted_terms(
    elements, targets: dict[str, str | None], vocabulary: frozenset[str], data: LanguageData
) -> set[str]:
    """Chunks set off by spaces in most of the fields whose source names one literal of the benchmark."""
    if not data.unspaced:
        return set()
    fields: dict[str, list] = defaultdict(list)
    base: Counter = Counter()
    for element in elements:
        base.update(set(_SOURCE_WORD.findall(element.source_text.lower())) & vocabulary)
        target = targets.get(element.id)
        if target and " " in target:
            for chunk in isolated_chunks(target, data):
                fields[chunk].append(element)
    terms = set()
    for chunk, holders in fields.items():
        if len(holders) < MIN_FIELDS:
            continue
        literals = Counter(
            word for e in holders for word in set(_SOURCE_WORD.findall(e.source_text.lower())) & vocabulary
        )
        if any(count >= max(MIN_FIELDS, COVERAGE * base[word]) for word, count in literals.items()):
            terms.add(chunk)
    return terms
