"""Defects in what translations say (layer 3: fidelity)."""

from __future__ import annotations

import random
import re
from pathlib import Path

from babelflow.ir import ArtifactFormat, ArtifactRole, IRDocument, TranslationType
from bench.defects._common import (
    FIDELITY,
    INTEGRITY,
    InjectedDefect,
    _artifacts,
    _Doc,
    _edit_element,
    _elements,
    _pick,
    _record,
    _translated_prose,
    variant_language,
)
from translators.pseudo_locale import pseudo_translate_text

# ---- Layer 3 (fidelity): what the translation says ----------------------------------------


def segment_truncated(variant_dir: Path, ir: IRDocument, rng: random.Random) -> InjectedDefect:
    """A translated prose field cut in half."""
    element = _pick(
        rng,
        _translated_prose(ir, variant_dir, min_length=40, tokens=False, data_only=True),
        "long translated prose field",
    )
    _edit_element(variant_dir, ir, element, lambda text: text[: len(text) // 2].rstrip())
    return _record("segment_truncated", "translated segment cut in half", element, [FIDELITY], variant_dir, ir)


def paragraph_untranslated(variant_dir: Path, ir: IRDocument, rng: random.Random) -> InjectedDefect:
    """A policy Markdown paragraph restored to its English source text."""
    policies = _artifacts(ir, ArtifactRole.POLICY, ArtifactFormat.MARKDOWN)
    candidates = _elements(
        ir,
        artifacts=policies,
        types=[TranslationType.TRANSLATE_FREE],
        kinds=("markdown_block",),
        where=lambda e: e.locator.block_kind == "paragraph" and len(e.source_text.split()) >= 5,
    )
    element = _pick(rng, candidates, "policy paragraph")
    _edit_element(variant_dir, ir, element, lambda text: element.source_text)
    return _record("paragraph_untranslated", "policy paragraph left in English", element, [FIDELITY], variant_dir, ir)


def wrong_target_language(variant_dir: Path, ir: IRDocument, rng: random.Random) -> InjectedDefect:
    """A field rendered in the other pseudo-locale (ar-XB text in an en-XA variant, and vice versa)."""
    language = variant_language(variant_dir)
    other = "ar-XB" if language == "en-XA" else "en-XA"
    element = _pick(
        rng, _translated_prose(ir, variant_dir, min_length=20, tokens=False, data_only=True), "translated prose field"
    )
    _edit_element(variant_dir, ir, element, lambda text: pseudo_translate_text(element.source_text, other))
    return _record(
        "wrong_target_language",
        f"field rendered in {other} instead of {language}",
        element,
        [FIDELITY],
        variant_dir,
        ir,
    )


def placeholder_left(variant_dir: Path, ir: IRDocument, rng: random.Random) -> InjectedDefect:
    """An unrestored placeholder '⟦3⟧' left in the output (in place of a protected token when there is one)."""
    element = _pick(rng, _translated_prose(ir, variant_dir, min_length=20, data_only=True), "translated prose field")

    def change(text: str) -> str:
        for token in element.inline_tokens:
            if token in text:
                return text.replace(token, "⟦3⟧", 1)
        middle = text.find(" ", len(text) // 2)
        return text[:middle] + " ⟦3⟧" + text[middle:] if middle > 0 else text + " ⟦3⟧"

    _edit_element(variant_dir, ir, element, change)
    return _record(
        "placeholder_left", "placeholder ⟦3⟧ left in the translation", element, [INTEGRITY, FIDELITY], variant_dir, ir
    )


def answered_not_translated(variant_dir: Path, ir: IRDocument, rng: random.Random) -> InjectedDefect:
    """The model answered the text instead of translating it."""
    language = variant_language(variant_dir)
    element = _pick(
        rng, _translated_prose(ir, variant_dir, min_length=20, tokens=False, data_only=True), "translated prose field"
    )
    answer = "Sure! Here is what you need: just ask the agent and it will take care of everything."
    rendered = (
        pseudo_translate_text(answer, "en-XA") if language == "en-XA" else answer
    )  # pseudo-accented, or plain English
    _edit_element(variant_dir, ir, element, lambda text: rendered)
    return _record(
        "answered_not_translated",
        f"translation replaced by an answer: {rendered!r}",
        element,
        [FIDELITY],
        variant_dir,
        ir,
    )


def commentary_added(variant_dir: Path, ir: IRDocument, rng: random.Random) -> InjectedDefect:
    """Translator commentary appended to a field."""
    element = _pick(rng, _translated_prose(ir, variant_dir, min_length=10, data_only=True), "translated prose field")
    _edit_element(variant_dir, ir, element, lambda text: text + " (Note: translated automatically)")
    return _record(
        "commentary_added",
        "commentary ' (Note: translated automatically)' appended",
        element,
        [FIDELITY],
        variant_dir,
        ir,
    )


_NUMBER = re.compile(r"(?<![\w.,])\d+(?:[.,]\d+)*(?![\w]|[.,]\d)")


def _prose_numbers(text: str, tokens: list[str]) -> list[re.Match]:
    """Numbers in prose, skipping list markers ('1. ') and digits inside protected tokens."""
    spans = [(m.start(), m.start() + len(t)) for t in tokens for m in re.finditer(re.escape(t), text)]
    out = []
    for match in _NUMBER.finditer(text):
        line_start = text.rfind("\n", 0, match.start()) + 1
        if text[line_start : match.start()].strip() == "" and text[match.end() : match.end() + 1] in (".", ")"):
            continue  # an ordered-list marker
        if any(a <= match.start() < b for a, b in spans):
            continue
        out.append(match)
    return out


def prose_number_changed(variant_dir: Path, ir: IRDocument, rng: random.Random) -> InjectedDefect:
    """A number inside translated prose changed (14 days -> 15 days)."""
    docs: dict[str, _Doc] = {}
    candidates = []
    for element in _translated_prose(ir, variant_dir):
        if not _prose_numbers(element.source_text, element.inline_tokens):
            continue
        if element.artifact not in docs:
            docs[element.artifact] = _Doc(variant_dir, ir, element.artifact)
        doc = docs[element.artifact]
        if _prose_numbers(doc.text_of(element) or "", element.inline_tokens):
            candidates.append(element)
    element = _pick(rng, candidates, "translated prose with a number")
    changed: list[str] = []

    def change(text: str) -> str:
        match = _pick(rng, _prose_numbers(text, element.inline_tokens), "number")
        digits = match.group()
        head, sep, tail = digits.partition(".") if "." in digits else digits.partition(",")
        new = str(int(head) + 1) + sep + tail
        changed.append(f"{digits!r} -> {new!r}")
        return text[: match.start()] + new + text[match.end() :]

    _edit_element(variant_dir, ir, element, change)
    return _record(
        "prose_number_changed", f"number changed in prose: {changed[0]}", element, [FIDELITY], variant_dir, ir
    )
