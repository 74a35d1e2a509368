"""Deterministic offline pseudo-locales, the translator used by tests and dry runs.

``en-XA`` (accented, ~35% longer, bracketed) shows untranslated strings, truncation and
hard-coded English; ``ar-XB`` (letters reversed inside RLO…PDF) exercises right-to-left text.
Both leave ``⟦N⟧`` placeholders, digits, punctuation and whitespace alone, so a pseudo-translated
variant must still pass every tau2 task: anything that breaks is a pipeline bug, not a
translation problem.
"""

from __future__ import annotations

import math
import re

from babelflow.text import ACCENT_TABLE, PDF, PLACEHOLDER, RLO, WORD
from translators.interface import TranslatedSegment, TranslationRequest, TranslationResponse, TranslationUsage

SUPPORTED_PSEUDO_LOCALES = ("en-XA", "ar-XB")
PSEUDO_VERSION = "v1"

# Padding words: no commas (tau2's communicate check strips them) and nothing that looks like
# an id or a number, so padding can never satisfy or break an evaluator by accident.
_FILLER = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
_EXPANSION = 0.35

# Markdown line prefixes kept outside the brackets so headings/lists/quotes stay Markdown;
# list numbers may already be placeholders. A number starts after a non-digit, as it always does in
# a prefix matched from the start of a line; a search from every digit of a long run would rescan it.
_MD_PREFIX = re.compile(r"(?:#{1,6}[ \t]+|[-*+][ \t]+|(?:(?<!\d)\d+|⟦[0-9]+⟧)[.)][ \t]+|>[ \t]?)+")


def _check_locale(locale: str) -> None:
    if locale not in SUPPORTED_PSEUDO_LOCALES:
        raise ValueError(f"unknown pseudo-locale {locale!r}; supported: {', '.join(SUPPORTED_PSEUDO_LOCALES)}")


def _has_letters_outside_placeholders(text: str) -> bool:
    return WORD.search(PLACEHOLDER.sub(" ", text)) is not None


def _filler(length: int) -> str:
    """Padding words worth ~35% of ``length`` characters; always at least one word."""
    target = math.ceil(length * _EXPANSION)
    words: list[str] = []
    added = 0
    while not words or added < target:
        word = _FILLER[len(words) % len(_FILLER)]
        words.append(word)
        added += len(word) + 1
    return " ".join(words)


def _accent(text: str) -> str:
    # Placeholders hold only digits and brackets, so translating the whole string is safe.
    return text.translate(ACCENT_TABLE)


def _en_xa_cell(text: str) -> str:
    """Transform one line (or table cell), keeping its surrounding whitespace exactly."""
    stripped = text.strip()
    if not _has_letters_outside_placeholders(stripped):
        return text  # nothing to translate: numbers, placeholders, rules, blank lines
    lead = text[: len(text) - len(text.lstrip())]
    trail = text[len(text.rstrip()) :]
    prefix_match = _MD_PREFIX.match(stripped)
    prefix = prefix_match.group() if prefix_match else ""
    body = stripped[len(prefix) :]
    return f"{lead}{prefix}[{_accent(body)} {_filler(len(body))}]{trail}"


def _en_xa_line(line: str) -> str:
    if line.strip().startswith("|"):  # Markdown table row: transform cell by cell
        return "|".join(_en_xa_cell(cell) for cell in line.split("|"))
    return _en_xa_cell(line)


def _ar_xb_line(line: str) -> str:
    # Each letter run becomes its own right-to-left override run; digits, placeholders,
    # punctuation and whitespace are outside the runs and stay untouched.
    return WORD.sub(lambda match: f"{RLO}{match.group()[::-1]}{PDF}", line)


STYLES = {"accented": "en-XA", "mirrored": "ar-XB"}


def pseudo_translate_text(text: str, locale: str, style: str | None = None) -> str:
    """Pseudo-translate one string line by line; line structure and edge whitespace are kept.

    `style` ("accented" like en-XA, "mirrored" like ar-XB) lets a language pack declare another
    pseudo-locale tag without code changes.
    """
    if style is not None:
        if style not in STYLES:
            raise ValueError(f"unknown pseudo style {style!r}; supported: {', '.join(STYLES)}")
        locale = STYLES[style]
    _check_locale(locale)
    transform = _en_xa_line if locale == "en-XA" else _ar_xb_line
    return "\n".join(transform(line) for line in text.split("\n"))


class PseudoLocaleTranslator:
    """The offline ``Translator``: deterministic, free, and honest about its usage (no tokens)."""

    def __init__(self, target_language: str, style: str | None = None):
        if style is None:
            _check_locale(target_language)
        elif style not in STYLES:
            raise ValueError(f"unknown pseudo style {style!r}; supported: {', '.join(STYLES)}")
        self.target_language = target_language
        self.style = style
        suffix = "" if style is None else f":{style}"
        self.translator_id = f"pseudo:{target_language}{suffix}/{PSEUDO_VERSION}"

    def translate(self, request: TranslationRequest) -> TranslationResponse:
        # The glossary is ignored on purpose: canonical terms reach a translator as placeholders.
        if request.target_language != self.target_language:
            raise ValueError(
                f"{self.translator_id} cannot translate into {request.target_language!r}; "
                f"create PseudoLocaleTranslator({request.target_language!r}) instead"
            )
        segments = [
            TranslatedSegment(
                segment_id=segment.segment_id,
                text=pseudo_translate_text(segment.text, self.target_language, self.style),
            )
            for segment in request.segments
        ]
        usage = TranslationUsage(
            input_characters=sum(len(segment.text) for segment in request.segments),
            output_characters=sum(len(segment.text) for segment in segments),
            input_tokens=None,
            output_tokens=None,
            requests=1,
        )
        return TranslationResponse(translator_id=self.translator_id, segments=segments, usage=usage)
