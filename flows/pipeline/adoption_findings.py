"""What `babelflow adopt` repaired, as findings for the review queue: each field whose rendering it replaced
by the value's chosen one, each kept value it wrote back. A repair is never silent: one group per cause, each
finding at its field; dismissing accepts the repair, confirming asks for the field's own text."""

from __future__ import annotations

from pathlib import Path

from babelflow.ir import IRDocument
from translators.adoption import Adoption, load_adoption
from validators.finding_kinds import ADOPTED_RENDERING_REPLACED, ADOPTED_TEXT_REFUSED, ADOPTED_VALUE_RESTORED
from validators.findings import FailureSet, Finding, Hit, found, summarize
from validators.probes.consistency import path_of

VALIDATOR_ID = "adopt"


def adoption_findings(adoption: Adoption, ir: IRDocument) -> list[Finding]:
    elements = ir.by_id()
    out: list[Finding] = []
    for term in adoption.terms:
        for competing in term.competing:
            for element_id in competing.element_ids:
                element = elements.get(element_id)
                if element is None:
                    continue
                hit = Hit.on(
                    element,
                    term.target,
                    f"the variant named {term.source!r} {competing.rendering!r} here; adopt wrote {term.target!r} "
                    f"({term.chosen_by}), the rendering every linked field now holds ({competing.count} field(s) "
                    f"had {competing.rendering!r})",
                    location=element.role + path_of(element),
                    pattern=f"{term.source!r} as {competing.rendering!r}",
                    cause="fields that named a value otherwise than its chosen rendering, rewritten",
                    detail={"variant_text": competing.rendering, "written": term.target},
                )
                out.append(found(ADOPTED_RENDERING_REPLACED, VALIDATOR_ID, hit))
    for skipped in adoption.not_adopted:
        element = elements.get(skipped.element_id)
        if skipped.reason != "refused_by_checks" or element is None:
            continue  # the rest is reported by the checks themselves (a field left in English: untranslated)
        hit = Hit.on(
            element,
            adoption.texts.get(skipped.element_id),
            f"the variant's text was refused: {skipped.detail}; the field holds the source's text until it is "
            "corrected (`babelflow correct`) or translated",
            location=element.role + path_of(element),
            pattern=element.role,
            cause="adopted texts the release checks refused",
        )
        out.append(found(ADOPTED_TEXT_REFUSED, VALIDATOR_ID, hit))
    for restored in adoption.restored:
        element = elements.get(restored.element_id)
        if element is None:
            continue
        where = "here" if restored.in_text is None else "in this sentence"
        why = (
            "the software reads this field unchanged"
            if restored.in_text is None
            else "the tools accept and return only the kept value"
        )
        hit = Hit.on(
            element,
            restored.in_text or restored.source,
            f"the variant changed the kept value {restored.source!r} to {restored.variant_text!r} {where}; adopt "
            f"wrote the source's text back ({why})",
            location=element.role + path_of(element),
            pattern=f"{restored.source!r}",
            cause="kept values the variant had changed, written back",
            detail={"variant_text": restored.variant_text},
        )
        out.append(found(ADOPTED_VALUE_RESTORED, VALIDATOR_ID, hit))
    return out


def with_adoption_repairs(failures: FailureSet, record: Path, ir: IRDocument) -> FailureSet:
    """`failures` plus the repairs of the run's adoption record, if the run adopted a variant."""
    adoption = load_adoption(record)
    if adoption is None:
        return failures
    findings = failures.findings + adoption_findings(adoption, ir)
    return failures.model_copy(update={"findings": findings, "summary": summarize(findings)})
