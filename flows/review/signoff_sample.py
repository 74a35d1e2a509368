"""The sample of units a reviewer reads before signing (flows/review/signoff.py states the rule).

The lot is every unit whose text was made for this language (drafted, localized, or a human's);
entity values kept as they are by policy are no translation and are left out. Risk orders each
stratum: a failing check first, then numbers and protected codes, a machine draft over a human's
text, an unusual length ratio.
"""

from __future__ import annotations

import math

from flows.review.acceptance import TIER_AQL, acceptance_plan
from flows.review.signoff import SampledUnit, SignOffSample, draw, signing_tier
from flows.review.unit_records import UnitRecord
from flows.review.workbench import Workbench

NOT_TRANSLATED = ("kept",)


def risk(bench: Workbench, record: UnitRecord) -> tuple[float, list[str]]:
    checks = bench.checks(record)
    ratio = (len(record.target) + 1) / (len(record.source) + 1)
    score = (
        3.0 * sum(c.refusing for c in checks)
        + 1.0 * bool(checks)
        + 1.0 * any(c.isdigit() for c in record.source)
        + min(len(bench.protected[record.key].placeholders), 3) * 0.5
        + 1.0 * (record.origin_class in ("draft", "adopted"))
        + min(abs(math.log(ratio)), 2.0)
    )
    return round(score, 3), [f"{c.kind}: {c.message}" for c in checks]


def sign_sample(bench: Workbench) -> SignOffSample:
    """The sample at the plan of the units' tier: its size and the Ac/Re the verdicts are counted against."""
    lot = [r for r in bench.records if r.origin_class not in NOT_TRANSLATED and r.target]
    _, tier = signing_tier(bench)
    plan = acceptance_plan(len(lot), TIER_AQL[tier])
    letter, n = plan.code_letter, plan.sample_size
    scored = {r.key: risk(bench, r) for r in lot}
    strata: dict[str, list[tuple[float, str]]] = {}
    for record in lot:
        strata.setdefault(record.stratum, []).append((scored[record.key][0], record.key))
    seed = f"{bench.run.benchmark}\0{bench.language}\0" + "\0".join(sorted(f"{r.key}={r.target}" for r in lot))
    chosen = draw(strata, n, seed)
    by_key = {r.key: r for r in lot}
    units = [
        SampledUnit(
            unit_key=key,
            stratum=stratum,
            role=by_key[key].roles[0] if by_key[key].roles else "",
            task=by_key[key].tasks[0] if by_key[key].tasks else None,
            source=by_key[key].source,
            target=by_key[key].target,
            origin=by_key[key].origin_class,
            risk=scored[key][0],
            checks=scored[key][1],
        )
        for stratum, keys in sorted(chosen.items())
        for key in keys
    ]
    return SignOffSample(
        lot_size=len(lot),
        code_letter=letter,
        sample_size=n,
        plan=plan,
        strata={s: len(k) for s, k in sorted(chosen.items())},
        units=units,
    )
