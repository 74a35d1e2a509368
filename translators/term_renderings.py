"""How a canonical term's rendering is settled before and after the translator: its class's policy.

A class may keep its values or localize them (babelflow/entity_policy.py); a proper name among common nouns
is kept; two terms of one class never share a rendering; a rendering that keeps a source word the target
language does not know is half a name, and the term is kept whole instead.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from babelflow.canonical_map import CanonicalEntry, TakenRenderings
from babelflow.entity_policy import EntityRendering
from babelflow.ir import IRDocument
from babelflow.language_data import language_data
from babelflow.target_lexicon import target_lexicon
from translators.localize import localized_renderings
from translators.units import Translated, TranslationUnit, UnitResult

_WORDS = re.compile(r"[^\W\d_]+")  # letter runs: the words of a canonical term
_RUNS = re.compile(r"[A-Za-z0-9-]+")  # candidate tokens: one linear scan (lookaheads at every start were not)


def term_codes(text: str) -> list[str]:
    """Codes inside a term ('USB-A', '75W', 'HEPA', '4K'), kept as they are ('USB-A' is no 'USB-Un'):
    capitals, digits and hyphens only, at least one capital and two capitals or digits."""
    return [
        run
        for run in (match.group().strip("-") for match in _RUNS.finditer(text))
        if run
        and not any(c.islower() for c in run)
        and any(c.isupper() for c in run)
        and sum(c.isupper() or c.isdigit() for c in run) >= 2
    ]


PROPER_NAME = "a proper name (brand, model) among common nouns"  # why the class's rule keeps a value


@dataclass(frozen=True)
class PolicyRendering:
    """A canonical term's rendering made by its class's policy, not by the translator."""

    target: str
    origin: Literal["kept", "localized"]
    detail: str


def _proper_names(units: list[TranslationUnit]) -> set[str]:
    """Keys of units that name a brand or model inside a class of common nouns: every word capitalised
    or a code ('Google Home', 'Apple HomeKit', 'Brand A') where most of the class is lowercase ('blue',
    'leather'). An MT engine translates their words ('Casa de Google'); a shop keeps them. In a class of
    capitalised values (product types: 'Water Bottle') capitals say nothing, so none is kept."""
    by_group: dict[str, list[TranslationUnit]] = {}
    for unit in units:
        by_group.setdefault(unit.canonical_group or "default", []).append(unit)
    names = set()
    for members in by_group.values():
        lowercase = sum(1 for u in members if u.text[:1].islower())
        if lowercase * 2 <= len(members):
            continue
        for unit in members:
            words = unit.text.split()
            if (
                words
                and all(w[:1].isupper() or w[:1].isdigit() for w in words)
                and term_codes(unit.text) != [unit.text]
            ):
                names.add(unit.key)
    return names


def still_fits(entry: CanonicalEntry, made: PolicyRendering | None) -> bool:
    """A stored entry is reused while the class's policy would make it the same way (a reviewer's always)."""
    if entry.origin == "reviewer" or (entry.review_state == "confirmed" and entry.origin in ("translator", "kept")):
        return True  # a person's rendering, or one approved as it stood (--terms approve-all)
    if entry.origin == "adopted":  # a variant's own rendering, unless the class's policy localizes it
        return made is None or made.origin != "localized"
    return entry.origin == made.origin if made is not None else entry.origin in ("translator", "cldr")


def entity_policy_renderings(
    units: list[TranslationUnit], ir: IRDocument, language: str, renderings: dict[str, EntityRendering]
) -> dict[tuple[str, str], PolicyRendering]:
    """(group, source) -> the rendering its class's policy makes: itself (keep) or a localized identity.
    A value `localize` has no generator for stays as it is (origin kept, detail says why)."""
    made: dict[tuple[str, str], PolicyRendering] = {}
    to_localize = []
    names = _proper_names(units)
    for unit in units:
        policy = renderings.get(unit.canonical_group or "default", EntityRendering.TRANSLATE)
        if policy is EntityRendering.KEEP:
            made[(unit.canonical_group or "default", unit.text)] = PolicyRendering(unit.text, "kept", "policy keep")
        elif policy is EntityRendering.TRANSLATE and unit.key in names:
            made[(unit.canonical_group or "default", unit.text)] = PolicyRendering(unit.text, "kept", PROPER_NAME)
        elif policy is EntityRendering.LOCALIZE:
            to_localize.append(unit)
    localized, locale = localized_renderings(to_localize, ir, language)
    for unit in to_localize:
        where = (unit.canonical_group or "default", unit.text)
        if unit.key in localized:
            made[where] = PolicyRendering(localized[unit.key], "localized", f"faker:{locale}")
        else:
            made[where] = PolicyRendering(unit.text, "kept", f"localize: no generator for this field in {language!r}")
    return made


def distinct_renderings(
    units: list[TranslationUnit],
    results: dict[str, UnitResult],
    settled: list[tuple[tuple[str, str], str]],
    worlds: dict[tuple[str, str], frozenset[str]] | None,
    source_language: str,
    target_language: str,
) -> list[str]:
    """Two terms of one class never share a rendering (the agent could no longer tell 'on-ear' from
    'over-ear' headphones): a new rendering that reads like another term's gets its source term in
    parentheses; the settled renderings (map entries, policy) are never changed. Two sentences that say
    one thing in two wordings (`one_thing_two_wordings`: VitaBench's rubrics '… within 2km of X' and
    '… from X') are told apart by a full stop instead: there is no difference to show, only two criteria
    to keep. Terms that never meet (`worlds`: two VitaBench tasks' products, babelflow/worlds.py) may
    share one. Rewrites `results`."""
    taken = TakenRenderings(worlds or {})
    for (group, source), target in settled:
        taken.add(group, source, target)
    function_words = language_data(source_language).function_words
    changed = []
    for unit in sorted(units, key=lambda u: u.text):
        result = results.get(unit.key)
        if not isinstance(result, Translated):
            continue
        group = unit.canonical_group or "default"
        text = case_of_source(unit.text, result.text)
        candidate = text
        if others := taken.met_by(group, unit.text, text):
            reworded = all(one_thing_two_wordings(unit.text, other, function_words) for other in others)
            candidates = [with_other_stop(text, target_language)] if reworded else []
            candidates += [f"{text} ({unit.text})", unit.text]
            candidate = next((c for c in candidates if not taken.met_by(group, unit.text, c)), unit.text)
        taken.add(group, unit.text, candidate)
        if candidate != result.text:
            results[unit.key] = Translated(candidate)
        if candidate not in (text, unit.text):
            changed.append(f"{unit.text} -> {candidate}")
    return changed


_SENTENCE_TOKENS = re.compile(r"[’']s\b|[^\W_]+")  # the possessive 's is a token of its own


def one_thing_two_wordings(first: str, second: str, function_words: frozenset[str]) -> bool:
    """Two sentences longer than a name whose words other than articles, prepositions and the possessive
    agree ('The lamb restaurant's rating should be 4.2' / 'The rating of the lamb restaurant should be
    4.2'). A source language without a list of function words has no such pairs."""
    if not function_words or not (longer_than_a_name(first) and longer_than_a_name(second)):
        return False

    def content(text: str) -> set[str]:
        return {token.lower() for token in _SENTENCE_TOKENS.findall(text)} - function_words

    return content(first) == content(second)


def with_other_stop(text: str, target_language: str) -> str:
    """`text` with its final full stop dropped, or given one (the target's own: '。' in Chinese and Japanese)."""
    stop = "。" if language_data(target_language).script in ("Hans", "Hant", "Jpan") else "."
    return text[:-1] if text.endswith((".", "。")) else text + stop


NAME_WORDS = 6  # a canonical term of more words is a phrase or a sentence, not a name


def longer_than_a_name(text: str) -> bool:
    return len(_WORDS.findall(text)) > NAME_WORDS


def half_translated(
    units: list[TranslationUnit], results: dict[str, UnitResult], language: str
) -> list[TranslationUnit]:
    """Terms whose rendering keeps a source word the target language does not know ('auto tilt' ->
    'coche tilt'): half a name is worse than the name. Judged only where the language's analyser is
    installed (babelflow/target_lexicon.py); elsewhere none is found. A term longer than a name (a
    rubric, an address: more than NAME_WORDS words) is not kept whole for the proper nouns it carries
    (Zhongshan, Taiyuan): all of it in English would be worse than those left as they are."""
    lexicon = target_lexicon(language)
    if not lexicon.available:
        return []
    left: dict[str, set[str]] = {}
    for unit in units:
        result = results.get(unit.key)
        if longer_than_a_name(unit.text):
            continue
        if isinstance(result, Translated) and result.text != unit.text:
            source_words = {w.lower() for w in _WORDS.findall(unit.text) if len(w) >= 3}
            left[unit.key] = {w for w in _WORDS.findall(result.text) if w.lower() in source_words}
    known = lexicon.known({w for words in left.values() for w in words})
    return [unit for unit in units if left.get(unit.key, set()) - known]


def case_of_source(source: str, target: str) -> str:
    """A lowercase term ('blue') stays lowercase ('azul', not the sentence-initial 'Azul' an MT engine
    gives a lone word): DB values are compared and shown as they are."""
    if not any(c.isupper() for c in source):  # '20 hours' -> '20 horas', not '20 Horas'
        return target.lower()
    if source[:1].islower() and target[:1].isupper() and not target[1:2].isupper():
        return target[0].lower() + target[1:]
    return target
