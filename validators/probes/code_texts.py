"""The code's own texts: literals the IR keeps must stay kept in the code overlay, a code text's slots and
parsed keys must come through its translation intact, and a profile that translates a field the
instrumented run saw executed is reported for the analysis route."""

from __future__ import annotations

from collections.abc import Iterator

from babelflow.format_slots import target_slot_problems
from babelflow.ir import TranslationType
from validators.checks import Scope, check
from validators.context import ValidationContext
from validators.finding_kinds import Layer, Severity
from validators.findings import Hit
from validators.probes.consistency import path_of

# a typing problem, not a wording one: confirming it retypes the field
PROFILE_CONTRADICTS_EVIDENCE = "profile_contradicts_evidence"


@check(
    "preserved_code_text_translated",
    Layer.CONSISTENCY,
    Severity.CRITICAL,
    summary="a code literal the benchmark compares was translated",
)
def preserved_code_text_translated(ctx: ValidationContext, scope: Scope) -> Iterator[Hit]:
    """Code texts the IR preserves (compared literals, control tokens) must not be translated."""
    if ctx.overlay is None:
        return
    preserved = {
        (e.artifact, e.source_text)
        for e in ctx.ir.elements
        if e.locator.kind == "python_literal" and e.translation_type is TranslationType.PRESERVE
    }
    # the field itself when the IR has one at the text's place (a confirmed finding routes to it)
    at = {
        ctx.code_key(e): e.id
        for e in ctx.ir.elements
        if e.locator.kind == "python_literal" and e.translation_type is TranslationType.PRESERVE
    }
    for text in ctx.overlay.texts:
        if text.role != "docstring" and (text.module, text.source) in preserved:
            yield Hit(
                artifact=text.module,
                location=f"{text.qualname} ({text.role})",
                message="a code literal the IR preserves is translated in the overlay",
                element_id=at.get((text.module, text.qualname, text.role, text.occurrence)),
                source=text.source,
                target=text.target,
            )


@check(
    "code_slot_changed",
    Layer.INTEGRITY,
    Severity.CRITICAL,
    summary="a code text's format slot or parsed key is changed, dropped, duplicated or swapped: code cannot fill it",
)
def code_slot_changed(ctx: ValidationContext, scope: Scope) -> Iterator[Hit]:
    """Each overlay text keeps its source's slots (f-string expressions, format fields, % conversions, Jinja)
    and the reply keys its code reads, as the IR records them: the code fills a slot by its source text, so
    a rewritten one reaches the agent, the user simulator or the judge raw."""
    if ctx.overlay is None:
        return
    slotted = {ctx.code_key(e): e for e in ctx.ir.elements if e.code_slots}
    for text in ctx.overlay.texts:
        element = slotted.get((text.module, text.qualname, text.role, text.occurrence))
        if element is None or element.source_text != text.source:
            continue
        problems = target_slot_problems(element.code_slots, text.target)
        if problems:
            yield Hit(
                artifact=text.module,
                location=f"{text.qualname} ({text.role})",
                message="; ".join(problems),
                element_id=element.id,
                source=text.source,
                target=text.target,
                detail={"slots": ", ".join(slot.text for slot in element.code_slots)},
            )


@check(
    PROFILE_CONTRADICTS_EVIDENCE,
    Layer.CONSISTENCY,
    Severity.MAJOR,
    summary="the reviewed profile translates a field the run shows is executed (analysis route)",
    route="analysis",
)
def profile_contradicts_evidence(ctx: ValidationContext, scope: Scope) -> Iterator[Hit]:
    """Where the reviewed profile translates a field the instrumented run saw executed (analysis
    route: the reviewer fixes the profile's type, not the translation)."""
    by_id = ctx.ir.by_id() if ctx.ir.analysis_findings else {}
    for disagreement in ctx.ir.analysis_findings:
        element = by_id.get(disagreement.element)
        if element is None:
            continue
        yield Hit.on(
            element,
            ctx.target_text(element),
            f"the profile types it {disagreement.profile_type.value} ({disagreement.profile_rule}) "
            f"but the run shows {disagreement.evidence}",
            location=element.role + path_of(element),
            detail={"route": "analysis", "evidence_type": disagreement.evidence_type.value},
        )
