"""Human texts into the variant: a correction (`babelflow correct`) or an import, as one transaction.

Checked first (the flow's per-field checks: fidelity and the pack's release checks; a refusing check
stops it unless forced), written under the run lock (free units: the reviewed translations; canonical
terms: the canonical map, as a reviewer's confirmed entry), then the variant is rebuilt from the
translation memory (no unit is sent to the translator unless its key changed) and the correction is
logged with its author, time and previous text. A failed rebuild puts the files back.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from babelflow.canonical_map import map_problems
from babelflow.errors import BabelflowError
from babelflow.run_lock import edit_in_window
from babelflow.variant import load_manifest
from flows.pipeline import adapt as pipeline  # the module: tests replace its adapt to fail a rebuild
from flows.review.importing import (
    held_run_lock,
    planned_map,
    record_corrections,
    roll_back,
    write_import,
    write_plan_locked,
)
from flows.review.store import ReviewDecision, ReviewStore
from flows.review.unit_records import Correction, CorrectionLog, UnitCheck, now, plan_entry
from flows.review.workbench import Workbench
from translators.interchange import ImportPlan


@dataclass
class Applied:
    lines: list[str] = field(default_factory=list)
    changed_fields: int = 0
    changed_files: int = 0
    sent: int = 0


def refusal(where: str, checks: list[UnitCheck]) -> str:
    return f"{where}: " + "; ".join(f"{c.kind}: {c.message}" for c in checks)


def _files(variant: Path) -> dict[str, str]:
    try:
        return {o.path: o.sha256 for o in load_manifest(variant).outputs}
    except BabelflowError:
        return {}


def apply_human_texts(
    bench: Workbench,
    plan: ImportPlan,
    corrections: list[Correction],
    *,
    holder: str,
    decisions: list[ReviewDecision] | None = None,
    kept_when_others_fail: bool = False,
) -> Applied:
    """Write the plan under the lock, rebuild, then log. Returns what changed (fields, files, units sent).

    `kept_when_others_fail` (a correction): when the rebuild is refused by release checks on *other*
    units (a glossary edit two human texts break: each correction alone cannot pass), the checked text
    stays stored and logged, applied by the rebuild that follows the last fix; an import is all or nothing."""
    settings, run = bench.settings, bench.run
    problems = map_problems(planned_map(bench.cmap, plan))
    if problems:
        raise BabelflowError(
            "Refused: the canonical map would break: " + "; ".join(problems[:5]) + "; nothing was written",
            field="--text",
            fix="give each canonical term its own rendering (two terms of one class may not read the same)",
        )
    with edit_in_window(settings.layout.locks(), run.benchmark, run.language) as waiting_run:
        if waiting_run is not None:
            return _stored_for_waiting_run(bench, plan, corrections, decisions, waiting_run)
    files_before = _files(run.paths.variant)
    written = write_import(
        settings, run.benchmark, run.language, run.paths.reviewed, run.paths.canonical_map, plan, holder=holder
    )
    try:
        superseded = frozenset(e.unit_key for e in plan.entries)
        result = pipeline.adapt_run(run, ir=bench.ir, superseded_hand_edits=superseded)  # the workbench's run
    except BabelflowError as exc:
        ours = {e.unit_key for e in plan.entries}
        others_only = exc.message.startswith("Language pack") and not any(key in exc.message for key in ours)
        if kept_when_others_fail and others_only:
            record_corrections(settings, run.benchmark, run.language, corrections)
            _decide(bench, decisions)
            _, _, rest = exc.message.partition("\n")
            return Applied(
                lines=[
                    "stored, not yet applied: the rebuild is refused by other units' release checks:",
                    *rest.splitlines(),
                    f"fix: {exc.fix}; the next rebuild applies this correction",
                ]
            )
        roll_back(settings, run.benchmark, run.language, written)
        what = "import" if holder.startswith("import") else "correction"
        exc.message += f"\nThe {what} was rolled back: the reviewed translations and canonical map are as before."
        raise
    except BaseException:  # an interrupted rebuild too: all or nothing
        roll_back(settings, run.benchmark, run.language, written)
        raise
    record_corrections(settings, run.benchmark, run.language, corrections)
    _decide(bench, decisions)
    files_after = _files(run.paths.variant)
    applied = Applied(
        changed_fields=sum(1 for k, v in result.outcome.targets.items() if bench.targets.get(k) != v),
        changed_files=sum(1 for k, v in files_after.items() if files_before.get(k) != v),
        sent=result.outcome.stats.units_by_origin.get(result.outcome.stats.translator_id, 0),  # units, not requests
    )
    applied.lines.append(
        f"rebuilt {result.paths.variant}: {applied.changed_fields} field(s) changed by this;"
        f" {applied.changed_files} file(s) rewritten; {applied.sent} unit(s) sent to the translator"
    )
    if result.voided_signoff:  # the rebuild changed signed files: that sign-off no longer holds
        applied.lines.append(result.voided_signoff)
    return applied


def _stored_for_waiting_run(
    bench: Workbench,
    plan: ImportPlan,
    corrections: list[Correction],
    decisions: list[ReviewDecision] | None,
    waiting_run: str,
) -> Applied:
    """A flow run waiting at its sign-off form holds the run lock and rebuilds when it is answered:
    the texts are stored and logged now (the caller holds its corrections window), the rebuild is its."""
    run = bench.run
    write_plan_locked(run.benchmark, run.language, run.paths.reviewed, run.paths.canonical_map, plan)
    CorrectionLog(run.paths.review_dir).append_many(corrections)
    if decisions:
        ReviewStore(run.paths.review_dir).append_many(decisions)
    return Applied(
        lines=[
            f"stored for flow run {waiting_run}, which waits at its sign-off form: answering the form rebuilds"
            " the variant with it, and the sign-off counts the sample against the corrected variant"
        ]
    )


def _decide(bench: Workbench, decisions: list[ReviewDecision] | None) -> None:
    if decisions:
        settings, run = bench.settings, bench.run
        with held_run_lock(settings, run.benchmark, run.language, holder="review decision"):
            ReviewStore(run.paths.review_dir).append_many(decisions)


def apply_correction(
    bench: Workbench,
    *,
    unit_id: str | None,
    finding_id: str | None,
    text: str,
    author: str,
    force: bool,
) -> Applied:
    lines = []
    decisions: list[ReviewDecision] = []
    if finding_id is not None:
        store = ReviewStore(bench.run.paths.review_dir)
        queue = store.queue()
        finding = next((f for f in (queue.findings if queue else []) if f.id == finding_id), None)
        if finding is None or not finding.element_id:
            raise BabelflowError(
                f"No open finding {finding_id!r} on a field",
                file=store.queue_path,
                field="--finding",
                fix=f"list the open findings with `babelflow review {bench.run.benchmark} --lang {bench.language}`",
            )
        record = bench.unit_of_element(finding.element_id)
        lines.append(f"finding {finding_id} -> unit {record.key} (field {finding.element_id})")
        decisions.append(
            ReviewDecision(
                finding_id=finding_id,
                decision="confirm",
                reviewer=author,
                note="babelflow correct",
                route="translation",
                replacement=text,
            )
        )
    else:
        record = bench.find(unit_id or "")
    if not text.strip():
        raise BabelflowError("The new text is empty", field="--text", fix="give the unit's whole new target text")
    if text == record.target:
        return Applied(lines=lines + [f"unit {record.key}: 0 changed (the text is already the target)"])
    checks = bench.checks(record, text)
    refusing = [c for c in checks if c.refusing]
    if refusing and not force:
        raise BabelflowError(
            "Correction refused by the checks; nothing was written:\n  " + refusal(f"unit {record.key}", refusing),
            field="--text",
            fix="fix the text (numbers, protected tokens and the target language must match the source),"
            " or pass --force to accept it as it is (the failing checks are recorded with it)",
        )
    correction = Correction(
        unit_key=record.key,
        element_ids=list(record.element_ids),
        text=text,
        previous=record.target,
        author=author,
        at=now(),
        via="finding" if finding_id else "correction",
        detail=finding_id or "",
        forced=[c.kind for c in refusing],
    )
    plan = ImportPlan(entries=[plan_entry(record, text, "--text")], empty_units=0, problems=[])
    applied = apply_human_texts(
        bench,
        plan,
        [correction],
        holder=f"correct {record.key}",
        decisions=decisions,
        kept_when_others_fail=True,
    )
    note = f" (accepted despite {', '.join(correction.forced)})" if correction.forced else ""
    applied.lines = (
        lines
        + [f"unit {record.key} corrected by {author}{note}: {record.target!r} -> {text!r}"]
        + [f"  check {c.kind}: {c.message}" for c in checks]
        + applied.lines
    )
    return applied
