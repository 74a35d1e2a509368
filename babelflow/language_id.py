"""Which language a text is written in: lingua, restricted to the languages in play.

Restricting the detector to the target and the source language (e.g. es, en) is what makes it
both fast (a two-language detector loads in well under a second, the full 75-language one takes
~29 s and 1.3 GB) and reliable on short agent turns. Whole strings only: lingua's multi-span mode
mislabels identifiers. Pseudo-locales are not languages lingua knows; callers check those by
their rendering (babelflow.target_language.in_pack_language).
"""

from __future__ import annotations

import re
import threading
from functools import lru_cache

from lingua import IsoCode639_1, Language, LanguageDetectorBuilder

from babelflow.errors import BabelflowError

_LETTERS = re.compile(r"[^\W\d_]")
_lock = threading.Lock()


def _lingua_language(tag: str):
    base = tag.split("-")[0].upper()
    code = getattr(IsoCode639_1, base, None)
    if code is None:
        return None
    return Language.from_iso_code_639_1(code)


def supported(tag: str) -> bool:
    return _lingua_language(tag) is not None


@lru_cache(maxsize=8)
def _detector(tags: tuple[str, ...]):
    languages = [_lingua_language(tag) for tag in tags]
    if any(language is None for language in languages) or len(set(languages)) < 2:
        raise BabelflowError(
            f"No language identifier for {', '.join(tags)}",
            field="--lang",
            fix="lingua knows 75 languages by ISO 639-1 code; pseudo-locales are checked by their rendering",
        )
    return LanguageDetectorBuilder.from_languages(*languages).build()


def identify(text: str, tags: tuple[str, ...], min_letters: int = 12) -> str | None:
    """The tag (one of `tags`) `text` is written in, or None when it has too few letters to say."""
    if len(_LETTERS.findall(text)) < min_letters:
        return None
    with _lock:  # the detector is shared; lingua's Python binding is not documented as thread-safe
        language = _detector(tuple(tags)).detect_language_of(text)
    if language is None:
        return None
    return next((tag for tag in tags if _lingua_language(tag) == language), None)
