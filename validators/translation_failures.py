"""The units a translator gave no usable translation for, as fidelity findings of the run."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from babelflow.adapt_request import NO_TRANSLATOR_PROBLEM
from babelflow.ir import IRElement
from validators.finding_kinds import Layer, Severity, declare_kind
from validators.findings import Finding, Hit, found

TRANSLATION_FAILED = declare_kind(
    "translation_failed", Layer.FIDELITY, Severity.CRITICAL, frozenset(), "the translator gave no usable translation"
)


HUMAN_TEXT_SET_ASIDE = declare_kind(
    "human_text_set_aside",
    Layer.FIDELITY,
    Severity.MAJOR,
    frozenset(),
    "a stored human text (hand edit, correction) fails the release checks: the variant keeps the machine text",
)


class FailedUnit(Protocol):
    element_ids: list[str]
    unit_key: str
    source_text: str
    problems: list[str]
    human_text: str | None


def translation_failed(failures: Iterable[FailedUnit], by_id: dict[str, IRElement]) -> list[Finding]:
    """One critical finding per rejected unit, at its first field (or the unit when the IR lacks it)."""
    findings = []
    for failure in failures:
        element = by_id.get(failure.element_ids[0]) if failure.element_ids else None
        if failure.human_text is not None:
            findings.append(_set_aside(failure, element))
            continue
        # no translator was asked (none for this language offline): the field keeps the source's words, a gap
        # to fill with export/import, one cause; a translation the checks rejected is the translator's failure
        untranslated = failure.problems == [NO_TRANSLATOR_PROBLEM]
        hit = Hit(
            artifact=element.artifact if element else "<translation>",
            location=element.role if element else failure.unit_key,
            message=f"the translation of this unit was rejected: {'; '.join(failure.problems)[:200]}",
            element_id=element.id if element else None,
            source=failure.source_text,
            detail={"fields": str(len(failure.element_ids))},
            severity=Severity.MAJOR if untranslated else None,
            cause="units no translator was configured for (translate them with export / import)"
            if untranslated
            else None,
        )
        findings.append(found(TRANSLATION_FAILED, "translator", hit))
    return findings


def _set_aside(failure: FailedUnit, element: IRElement | None) -> Finding:
    problems = "; ".join(failure.problems)[:300]
    hit = Hit(
        artifact=element.artifact if element else "<translation>",
        location=element.role if element else failure.unit_key,
        message=f"a human text for this unit was set aside (the variant keeps the machine text): {problems}."
        f" Give a corrected text (`babelflow correct … --id {failure.unit_key} --text …`, or this form's"
        " replacement), or confirm to retranslate the unit",
        element_id=element.id if element else None,
        source=failure.source_text,
        target=failure.human_text,
        detail={"fields": str(len(failure.element_ids)), "unit": failure.unit_key},
    )
    return found(HUMAN_TEXT_SET_ASIDE, "translator", hit)
