"""Code-slot defect kinds (issue 38): a code text's format slot or a reply key its code parses, broken in the
code overlay as a translator that did not protect them would break it. Each must be caught at the text,
critical, in every family: the code fills a slot by its source text, so a broken one reaches the agent,
the user simulator or the judge raw."""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from pathlib import Path

from babelflow.ir import CodeSlot, IRDocument, IRElement
from babelflow.variant import OVERLAY_NAME, CodeText, load_overlay, save_record
from bench.defects._common import BEHAVIOR, INTEGRITY, DefectNotApplicable, InjectedDefect, _accent, _pick
from bench.defects._common import variant_language as _language

_WORD = re.compile(r"[A-Za-z_]\w*")
Edit = Callable[[CodeText, list[CodeSlot], random.Random, str], str | None]


def _plant(kind: str, what: str, variant_dir: Path, ir: IRDocument, rng: random.Random, edit: Edit) -> InjectedDefect:
    """Apply `edit` to one overlay text (picked among those it changes) whose IR element has slots."""
    overlay = load_overlay(Path(variant_dir) / OVERLAY_NAME)
    if overlay is None:
        raise DefectNotApplicable("the variant has no code overlay")
    language = _language(variant_dir)
    elements: dict[tuple, IRElement] = {
        (e.artifact, e.locator.qualname, e.locator.role, e.locator.occurrence): e
        for e in ir.elements
        if e.code_slots and e.locator.kind == "python_literal"
    }
    candidates = []
    for text in overlay.texts:
        element = elements.get((text.module, text.qualname, text.role, text.occurrence))
        if element is None or element.source_text != text.source:
            continue
        changed = edit(text, element.code_slots, random.Random(rng.random()), language)
        if changed is not None and changed != text.target:
            candidates.append((text, element, changed))
    text, element, changed = _pick(rng, candidates, what)
    before, text.target = text.target, changed
    save_record(overlay, Path(variant_dir) / OVERLAY_NAME)
    return InjectedDefect(
        kind=kind,
        description=f"{text.qualname}: {before[:70]!r} -> {changed[:70]!r}",
        artifact=text.module,
        element_id=element.id,
        location=f"{text.qualname} ({text.role})",
        expected_layers=[INTEGRITY, BEHAVIOR],
    )


def _filled(slots: list[CodeSlot]) -> list[CodeSlot]:
    return [slot for slot in slots if slot.kind != "parsed_key"]


def _translated_slot(text: CodeText, slots: list[CodeSlot], rng: random.Random, language: str) -> str | None:
    named = [s for s in _filled(slots) if _WORD.search(s.text) and text.target.count(s.text) == 1]
    if not named:
        return None
    slot = named[rng.randrange(len(named))]
    word = _WORD.search(slot.text)
    assert word is not None
    rewritten = slot.text.replace(word.group(), _accent(word.group(), language), 1)  # {status[..]} -> {ŝţåţûš[..]}
    return text.target.replace(slot.text, rewritten, 1)


def _dropped_slot(text: CodeText, slots: list[CodeSlot], rng: random.Random, language: str) -> str | None:
    present = [s for s in _filled(slots) if s.text in text.target]
    if not present:
        return None
    slot = present[rng.randrange(len(present))]
    return text.target.replace(slot.text, "", 1)


def _swapped_slots(text: CodeText, slots: list[CodeSlot], rng: random.Random, language: str) -> str | None:
    distinct = list(dict.fromkeys(s.text for s in _filled(slots) if s.text in text.target))
    if len(distinct) < 2:
        return None
    first, second = distinct[0], distinct[1]  # their first occurrences trade places
    return text.target.replace(first, "\0", 1).replace(second, first, 1).replace("\0", second, 1)


def _translated_key(text: CodeText, slots: list[CodeSlot], rng: random.Random, language: str) -> str | None:
    keys = [s for s in slots if s.kind == "parsed_key" and s.text in text.target]
    if not keys:
        return None
    key = keys[rng.randrange(len(keys))].text
    return text.target.replace(key, '"' + _accent(key.strip('"'), language) + '"')


def code_slot_expression_translated(variant_dir: Path, ir: IRDocument, rng: random.Random) -> InjectedDefect:
    """A code text's slot expression translated ({status['ssid']} -> {estado['ssid']}): the code never fills it."""
    return _plant(
        "code_slot_expression_translated", "code text with a named slot", variant_dir, ir, rng, _translated_slot
    )


def code_slot_dropped(variant_dir: Path, ir: IRDocument, rng: random.Random) -> InjectedDefect:
    """A code text's slot dropped from its translation: the value never reaches the model."""
    return _plant("code_slot_dropped", "code text with a slot", variant_dir, ir, rng, _dropped_slot)


def code_slots_swapped(variant_dir: Path, ir: IRDocument, rng: random.Random) -> InjectedDefect:
    """Two slots of a code text swapped in its translation: each value lands in the other's sentence."""
    return _plant("code_slots_swapped", "code text with two distinct slots", variant_dir, ir, rng, _swapped_slots)


def parsed_key_translated(variant_dir: Path, ir: IRDocument, rng: random.Random) -> InjectedDefect:
    """A JSON key the code reads from a model's reply ("reasoning") translated in the prompt that asks for it."""
    return _plant("parsed_key_translated", "prompt with a key the code parses", variant_dir, ir, rng, _translated_key)


__all__ = ["code_slot_dropped", "code_slot_expression_translated", "code_slots_swapped", "parsed_key_translated"]
