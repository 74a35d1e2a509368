"""Is a translated text in the language it should be in? One rule for the translators' segment
checks, the fidelity probes (and so `correct`, `import` and review-form replacements) and
`babelflow evaluate`: a language pack's pseudo style or script decides when there is a pack,
otherwise the tag does; and for a real language, prose left in the source language (English) is
refused by the language identifier (babelflow.language_id.judge_language)."""

from __future__ import annotations

import re
from functools import lru_cache

import langcodes

from babelflow.language_id import judge_language
from babelflow.language_pack import LanguagePack
from babelflow.language_tag import tag_too_long
from babelflow.text import (
    PSEUDO_ACCENTED_LETTERS,
    RLO,
    SCRIPT_NAME_PREFIXES,
    UNSPACED_LETTERS,
    WORD,
    script_share,
    without_tokens,
)

# a Latin word the pseudo-locale accents, standing alone: a lone letter (the A of "A口"), a code in capitals
# (KOI PLUS, OHLO) and a name glued to digits or other letters (Yee3, Le158Cafe) stay as they are
_LATIN = re.compile(r"(?<!\w)(?=[A-Za-z]*[a-z])[A-Za-z]{2,}(?!\w)")


def in_pack_language(text: str, pack: LanguagePack) -> bool:
    """Does the text look like the pack's language (its pseudo style or at least 30% its script)?"""
    if not any(c.isalpha() for c in text):
        return True
    if pack.offline_rendering == "accented":
        return any(c in PSEUDO_ACCENTED_LETTERS for c in text)
    if pack.offline_rendering == "mirrored":
        return RLO in text
    if pack.script not in SCRIPT_NAME_PREFIXES:  # Latin-script languages: no script signal to check
        return True
    return (script_share(text, pack.script) or 0.0) >= 0.3


def accentable(text: str) -> bool:
    """Are most of the text's letters ones the accenting pseudo-locale marks? A Chinese source's pseudo text
    keeps its Han letters (padded with ASCII filler words): it tells nothing about the language it is in."""
    letters = sum(c.isalpha() for c in text)
    unspaced = sum(len(run) for run in UNSPACED_LETTERS.findall(text))
    return unspaced * 2 < letters


def language_problem(
    text: str, source: str, language: str, tokens: list[str], pack: LanguagePack | None = None
) -> str | None:
    """None if the translation is in the expected language/script, else what is wrong."""
    body = without_tokens(text, tokens)
    source_body = without_tokens(source, tokens)
    if not WORD.search(source_body):
        return None
    accented = (pack.offline_rendering == "accented") if pack is not None else language == "en-XA"
    if accented and not _LATIN.search(source_body):
        return None  # the accenting pseudo-locale has no Latin letter to accent (a Chinese source): nothing to judge
    if pack is not None:
        if RLO in body and pack.offline_rendering != "mirrored" and pack.direction == "ltr":
            return f"right-to-left pseudo text in a {pack.tag} variant"
        if not in_pack_language(body, pack):
            return f"not written in {pack.name}"
        return None if pack.offline_rendering else left_in_source(text, pack.tag, tokens)
    if language == "en-XA":
        if RLO in body:
            return "right-to-left pseudo text in an en-XA variant"
        return None if any(c in PSEUDO_ACCENTED_LETTERS for c in body) else "no en-XA pseudo-locale text"
    if language == "ar-XB":
        return None if RLO in body or not WORD.search(body) else "no right-to-left (ar-XB) runs"
    expected = _likely_script(language)
    share = script_share(body, expected) if expected in SCRIPT_NAME_PREFIXES else None
    if share is not None and share < 0.3:
        return f"only {share:.0%} of letters are {expected}"
    return left_in_source(text, language, tokens)


def left_in_source(text: str, language: str, kept: list[str]) -> str | None:
    """The identifier's refusal when `text`, a `language` target, is prose left in English (kept
    values and tokens are not judged); None when accepted or not judged (too little prose, a
    pseudo-locale, a language the identifier does not know)."""
    verdict = judge_language(text, language, kept)
    return verdict.message if verdict is not None and verdict.wrong else None


@lru_cache(maxsize=256)  # called per translated field and per model segment: CLDR lookup once per tag
def _likely_script(language: str) -> str | None:
    if tag_too_long(language):  # not handed to langcodes: no expectation
        return None
    try:
        return langcodes.Language.get(language).maximize().script
    except (ValueError, LookupError):  # a malformed tag: no expectation
        return None
