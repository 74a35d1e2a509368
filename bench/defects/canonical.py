"""Defects of a variant whose entities are localized (Translate-Canonical: one rendering per value in
the DB, the tasks, the golden arguments and the evaluation criteria): a mention the map missed.

Both need a variant that renders entities (a profile or pack with `policy = "translate"` on an
entity class, e.g. retail's product names and option values, or fixture-library's book titles);
on a variant that renders none they raise DefectNotApplicable.
"""

from __future__ import annotations

import random
from pathlib import Path

from babelflow.ir import ArtifactRole, IRDocument, IRElement, TranslationType
from bench.defects._common import (
    BEHAVIOR,
    CONSISTENCY,
    InjectedDefect,
    _accent,
    _artifacts,
    _Doc,
    _edit_element,
    _elements,
    _pick,
    _record,
    variant_language,
)

_RENDERED = (TranslationType.TRANSLATE_CANONICAL, TranslationType.PRESERVE)


def _task_mentions(ir: IRDocument) -> tuple[set[str], str, set[str]]:
    """(values a task field holds whole or as an inline token, all task prose joined, golden argument values)."""
    tasks = set(_artifacts(ir, ArtifactRole.TASKS))
    whole: set[str] = set()
    prose: list[str] = []
    golden: set[str] = set()
    for element in ir.elements:
        if element.artifact not in tasks:
            continue
        whole.add(element.source_text)
        whole.update(element.inline_tokens)
        if element.translation_type is TranslationType.TRANSLATE_FREE:
            prose.append(element.source_text)
        if ".actions[*].arguments." in element.role:
            golden.add(element.source_text)
    return whole, "\n".join(prose), golden


def canonical_db_value_renamed(variant_dir: Path, ir: IRDocument, rng: random.Random) -> InjectedDefect:
    """One localized DB value renamed in the DB alone: its task mentions keep the map's rendering."""
    whole, prose, golden = _task_mentions(ir)
    candidates = _elements(
        ir,
        artifacts=_artifacts(ir, ArtifactRole.DATABASE),
        types=[TranslationType.TRANSLATE_CANONICAL],
        where=lambda e: e.source_text in whole or e.source_text in prose,
    )
    # a field on the path of a record the golden actions read (an order or product they name): the
    # replays see the renamed value too
    read = [e for e in candidates if any(isinstance(p, str) and p in golden for p in getattr(e.locator, "path", ()))]
    element = _pick(rng, sorted(read or candidates, key=lambda e: e.id), "localized DB value a task mentions")
    language = variant_language(variant_dir)
    before, after = _edit_element(variant_dir, ir, element, lambda text: f"{text} {_accent('Plus', language)}".strip())
    return _record(
        "canonical_db_value_renamed",
        f"DB value {element.source_text!r} renamed {before!r} -> {after!r} in the DB only",
        element,
        [CONSISTENCY, BEHAVIOR],
        variant_dir,
        ir,
    )


def canonical_gold_value_left_in_source(variant_dir: Path, ir: IRDocument, rng: random.Random) -> InjectedDefect:
    """A golden action argument (else an evaluation-criteria value) left in the source language while
    the DB holds the value's rendering."""
    database = set(_artifacts(ir, ArtifactRole.DATABASE))
    rendered_in_db = {
        e.source_text
        for e in ir.elements
        if e.artifact in database and e.translation_type is TranslationType.TRANSLATE_CANONICAL
    }
    tasks = _artifacts(ir, ArtifactRole.TASKS)
    docs: dict[str, _Doc] = {}

    def rendered(element: IRElement) -> bool:
        doc = docs.setdefault(element.artifact, _Doc(variant_dir, ir, element.artifact))
        text = doc.text_of(element)
        return text is not None and text != element.source_text

    def golden(role: str) -> bool:
        return ".actions[*].arguments." in role and "{key}" not in role

    def criteria(role: str) -> bool:
        return ".communicate_info[" in role or ".env_assertions[" in role

    for wanted in (golden, criteria):
        candidates = [
            e
            for e in _elements(ir, artifacts=tasks, types=_RENDERED, role=wanted)
            if e.source_text in rendered_in_db and rendered(e)
        ]
        if candidates:
            break
    element = _pick(rng, sorted(candidates, key=lambda e: e.id), "golden value the DB renders")
    before, after = _edit_element(variant_dir, ir, element, lambda text: element.source_text)
    where = "golden action argument" if golden(element.role) else "evaluation-criteria value"
    return _record(
        "canonical_gold_value_left_in_source",
        f"{where} left in the source language: {before!r} -> {after!r} (the DB renders it)",
        element,
        [CONSISTENCY, BEHAVIOR],
        variant_dir,
        ir,
    )
