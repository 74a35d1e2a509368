"""Extraction: only Translate-Free and Translate-Canonical fields leave the IR, each unique text once.

A translation unit is one unique (text, kind, context class); every IR element with that text
in that class reuses its translation. τ²-bench telecom has 6.2 M characters of task text but only
~0.3 M unique, so deduplication is most of the cost saving.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Literal

from babelflow.ir import ArtifactRole, IRDocument, IRElement, TranslationType


@dataclass
class TranslationUnit:
    key: str
    text: str
    kind: Literal["free", "canonical"]
    context: str
    canonical_group: str | None
    inline_tokens: tuple[str, ...]
    element_ids: list[str] = field(default_factory=list)
    slots: tuple[str, ...] = ()  # a code text's format slots and parsed keys: protected whole


@dataclass(frozen=True)
class Translated:
    text: str


@dataclass(frozen=True)
class Failed:
    problems: list[str]


UnitResult = Translated | Failed


def context_class(element: IRElement, roles: dict[str, ArtifactRole]) -> str:
    """Coarse context: the same sentence in two task fields is translated once, a policy apart."""
    role = roles.get(element.artifact)
    base = role.value if role else "other"
    if element.locator.kind == "python_literal":
        return f"{base}:{element.locator.role}"
    return base


def unit_key(kind: str, context: str, group: str | None, text: str) -> str:
    return hashlib.blake2b(f"{kind}\0{context}\0{group or ''}\0{text}".encode(), digest_size=12).hexdigest()


def extract_units(ir: IRDocument) -> tuple[list[TranslationUnit], list[TranslationUnit]]:
    """(canonical units, free units), each deduplicated, in first-seen order."""
    roles = {a.path: a.role for a in ir.artifacts}
    canonical: dict[str, TranslationUnit] = {}
    free: dict[str, TranslationUnit] = {}
    for element in ir.elements:
        if element.translation_type is TranslationType.PRESERVE:
            continue
        if element.translation_type is TranslationType.TRANSLATE_CANONICAL:
            group = element.canonical_group or "default"
            key = unit_key("canonical", "canonical", group, element.source_text)
            unit = canonical.setdefault(
                key, TranslationUnit(key, element.source_text, "canonical", f"canonical term ({group})", group, ())
            )
        else:
            context = context_class(element, roles)
            key = unit_key("free", context, None, element.source_text)
            unit = free.setdefault(
                key,
                TranslationUnit(
                    key,
                    element.source_text,
                    "free",
                    f"{ir.benchmark} {element.role}",
                    None,
                    tuple(element.inline_tokens),
                    slots=tuple(slot.text for slot in element.code_slots),
                ),
            )
        unit.element_ids.append(element.id)
    return list(canonical.values()), list(free.values())


def naive_characters(ir: IRDocument) -> int:
    """What per-field translation would send: every translatable field, duplicates included."""
    return sum(len(e.source_text) for e in ir.elements if e.translation_type is not TranslationType.PRESERVE)


def unique_characters(ir: IRDocument) -> int:
    """The floor: each distinct translatable text once."""
    texts = {e.source_text for e in ir.elements if e.translation_type is not TranslationType.PRESERVE}
    return sum(len(t) for t in texts)


def canonical_groups_of_values(ir: IRDocument) -> dict[str, str]:
    """source value -> canonical group, for protecting canonical terms inside prose."""
    groups: dict[str, set[str]] = defaultdict(set)
    for element in ir.elements:
        if element.translation_type is TranslationType.TRANSLATE_CANONICAL:
            groups[element.source_text].add(element.canonical_group or "default")
    return {value: sorted(names)[0] for value, names in groups.items()}
