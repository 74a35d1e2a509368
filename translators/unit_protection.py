"""A unit as a translator receives it: kept tokens and canonical terms as placeholders, its term context, the
pack's glossary, and the code texts whose slots a translation changed, refused."""

from __future__ import annotations

from dataclasses import replace

from babelflow.canonical_map import CanonicalMap
from babelflow.format_slots import target_slot_problems
from babelflow.ir import IRDocument
from babelflow.language_pack import LanguagePack
from translators.interface import GlossaryEntry
from translators.outcomes import UnitFailure
from translators.placeholders import ProtectedText, protect
from translators.term_renderings import term_codes
from translators.terms.term_base import TermContext
from translators.units import TranslationUnit


def protect_unit(unit: TranslationUnit, cmap: CanonicalMap, groups: dict[str, str]) -> ProtectedText:
    """The unit's text as a translator sees it: kept tokens and canonical terms as placeholders."""
    if unit.kind == "canonical":
        return protect(unit.text, preserve_tokens=term_codes(unit.text))
    rendered = {t: cmap.target_of(groups[t], t) for t in unit.inline_tokens if t in groups}
    canonical_terms = {t: target for t, target in rendered.items() if target}
    preserve_tokens = [t for t in unit.inline_tokens if t not in canonical_terms]
    return protect(
        unit.text, preserve_tokens=preserve_tokens, canonical_terms=canonical_terms or None, slots=unit.slots
    )


def protect_as_rendered(unit: TranslationUnit, rendering: str) -> ProtectedText:
    """A canonical term protected with only the codes its rendering keeps: a reviewer may render a
    code ('AC adapter' -> 'adaptador de CA'), and that rendering is then the term's, codes and all."""
    return protect(unit.text, preserve_tokens=[code for code in term_codes(unit.text) if code in rendering])


def refuse_changed_slots(units: list[TranslationUnit], ir: IRDocument, targets: dict[str, str]) -> list[UnitFailure]:
    """Take out of `targets` every code text whose slots differ from its source's (a translator's,
    the memory's, a reviewer's or an imported text alike): the rebuild never writes one."""
    by_id = {element.id: element for element in ir.elements}
    refused = []
    for unit in units:
        if not unit.slots:
            continue
        problems: dict[str, list[str]] = {}
        for element_id in unit.element_ids:
            element = by_id[element_id]
            target = targets.get(element_id)
            found = target_slot_problems(element.code_slots, target) if target is not None else []
            if found:
                problems[element_id] = found
                del targets[element_id]
        if problems:
            first = next(iter(problems.values()))
            refused.append(
                UnitFailure(
                    unit_key=unit.key,
                    element_ids=list(problems),
                    source_text=unit.text,
                    problems=first + [SLOT_REFUSAL],
                )
            )
    return refused


SLOT_REFUSAL = "refused: the code fills its slots by their source text, so this target would reach models unfilled"


def with_term_context(unit: TranslationUnit, context: TermContext | None) -> TranslationUnit:
    """The unit as a translator receives it: 'canonical term (option_value)' plus where the value sits and a
    sentence that uses it ('material of 'Water Bottle' (with color: blue); e.g. "…glass water bottle…"'),
    so 'glass' is read as a material, not a drinking glass. Part of the memory key, like any context."""
    if context is None or not (context.records or context.examples):
        return unit
    shown = "; ".join(context.records[:2])
    if context.examples:
        shown += ("; " if shown else "") + f"e.g. {context.examples[0]!r}"
    return replace(unit, context=f"{unit.context}: {shown[:400]}")


def pack_glossary(pack: LanguagePack, benchmark: str) -> list[GlossaryEntry]:
    """The pack's required renderings for this benchmark, as translators receive them."""
    return [GlossaryEntry(source=term.source, target=term.target) for term in pack.glossary_for(benchmark)]
