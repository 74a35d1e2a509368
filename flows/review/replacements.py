"""A review form's replacement texts, applied the way `babelflow correct --finding` applies one: to
every field of the finding's unit (a unit in two files changes in both), checked first (fidelity,
the target language, the pack's release checks), logged as a correction by the reviewer.

The flow applies them at the start of the next round, holding the run lock. A replacement the checks
refuse is not written: the unit keeps its text, and the refusal comes back to the reviewer as a
`human_text_set_aside` finding with the refused text and what failed.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from babelflow.adaptation_run import AdaptationRun
from babelflow.errors import BabelflowError
from flows.review.importing import write_plan_locked
from flows.review.store import ReviewDecision
from flows.review.unit_records import Correction, CorrectionLog, UnitRecord, now, plan_entry
from flows.review.workbench import Workbench
from translators.interchange import ImportPlan
from translators.outcomes import UnitFailure
from validators.findings import TextFix, apply_fixes


@dataclass
class ReplacementsApplied:
    """What the form's replacements did: the units stored, and the refused texts (findings next round)."""

    corrections: list[Correction] = field(default_factory=list)
    refused: list[UnitFailure] = field(default_factory=list)


def apply_replacements(run: AdaptationRun, decisions: list[ReviewDecision]) -> ReplacementsApplied:
    """Store each confirmed finding's replacement as its unit's text (the caller holds the run lock). A
    confirmation without a replacement whose finding proposed a repair applies it: a unit's repairs, from
    every finding confirmed on it, are applied together to its text, then checked as a replacement is."""
    done = ReplacementsApplied()
    ours = [d for d in decisions if d.element_id and d.route == "translation" and (d.replacement or d.fixes)]
    if not ours:
        return done
    bench = Workbench.load(run)
    entries = []
    for decision, record, text in _texts(bench, ours, done):
        if text == record.target:
            continue
        refusing = [c for c in bench.checks(record, text) if c.refusing]
        if refusing:
            done.refused.append(
                UnitFailure(
                    unit_key=record.key,
                    element_ids=list(record.element_ids),
                    source_text=record.source,
                    problems=[f"{c.kind}: {c.message}" for c in refusing],
                    human_text=text,
                )
            )
            continue
        entries.append(plan_entry(record, text, f"review form ({decision.finding_id})"))
        done.corrections.append(
            Correction(
                unit_key=record.key,
                element_ids=list(record.element_ids),
                text=text,
                previous=record.target,
                author=decision.reviewer,
                at=now(),
                via="finding",
                detail=decision.finding_id,
            )
        )
    if entries:
        plan = ImportPlan(entries=entries, empty_units=0, problems=[])
        write_plan_locked(run.benchmark, run.language, run.paths.reviewed, run.paths.canonical_map, plan)
        CorrectionLog(run.paths.review_dir).append_many(done.corrections)
    return done


def _texts(
    bench: Workbench, decisions: list[ReviewDecision], done: ReplacementsApplied
) -> Iterator[tuple[ReviewDecision, UnitRecord, str]]:
    """(decision, its unit, the unit's new text) per unit: a replacement as given (a reviewer's own text wins over any
    proposed repair of its unit); else the unit's text with the repairs of every finding confirmed on it. A
    kept field (no unit) is refused, named."""
    repaired: dict[str, tuple[ReviewDecision, UnitRecord, list[TextFix]]] = {}
    replaced: set[str] = set()
    for decision in decisions:
        element_id = decision.element_id or ""
        try:
            record = bench.unit_of_element(element_id)
        except BabelflowError as error:  # a kept field: nothing to translate there
            element = bench.elements.get(element_id)
            done.refused.append(
                UnitFailure(
                    unit_key=element_id,
                    element_ids=[element_id],
                    source_text=element.source_text if element else "",
                    problems=[f"replacement for finding {decision.finding_id}: {error.message}; {error.fix}"],
                    human_text=decision.replacement or "",
                )
            )
            continue
        if decision.replacement:
            replaced.add(record.key)
            yield decision, record, decision.replacement
        elif decision.fixes:
            first, _, fixes = repaired.get(record.key, (decision, record, []))
            repaired[record.key] = (first, record, fixes + list(decision.fixes))
    for decision, record, fixes in repaired.values():
        if record.key in replaced:
            continue
        text, _ = apply_fixes(record.target, fixes)  # a span already gone was fixed another way
        yield decision, record, text
