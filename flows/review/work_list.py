"""What needs a human, riskiest first: `babelflow units --failing`.

A unit is on the list for an open finding at one of its fields, for failing in a rejected sign-off sample
(still as judged), or for a per-unit check that fails. Units kept as they are by policy (names, ids,
addresses the analysis preserves) are no translation and never listed: their "copied through" is the policy.
"""

from __future__ import annotations

from flows.review.signoff_log import SignoffLog, outstanding
from flows.review.signoff_sample import NOT_TRANSLATED, risk
from flows.review.unit_records import UnitRecord
from flows.review.workbench import Workbench

_MQM_WEIGHT = {"critical": 12.0, "major": 8.0, "minor": 4.0}


def work_list(bench: Workbench) -> list[tuple[UnitRecord, float, list[str]]]:
    """(unit, risk, why) of every unit a human should read, riskiest first."""
    rejection = SignoffLog(bench.run.paths.review_dir).last_rejection()
    failed = {u.unit_key: u for u in outstanding(bench, rejection)} if rejection is not None else {}
    out = []
    for record in bench.records:
        if record.origin_class in NOT_TRANSLATED or not record.target:
            continue
        score, checks = risk(bench, record)
        why = [f"open finding {f}" for f in record.findings]
        if record.key in failed:
            unit = failed[record.key]
            why.append(f"failed the sign-off sample ({unit.category.value}, {unit.severity.value})")
            score += _MQM_WEIGHT[unit.severity.value]
        if not why and not checks:
            continue
        out.append((record, round(score + 5.0 * len(record.findings), 3), why + checks))
    return sorted(out, key=lambda item: (-item[1], item[0].key))
