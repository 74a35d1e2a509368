"""The count that decides a sign-off (flows/review/acceptance.py): ISO 2859-1 Table II-A single sampling
plans, normal inspection, read off the table's diagonals with its arrows, and MQM verdicts counted
against them. The anchors are cells of the printed table."""

from __future__ import annotations

import pytest

from flows.review.acceptance import MqmCategory, MqmSeverity, UnitVerdict, acceptance_plan, decide
from flows.review.signoff_log import rejection_plan


@pytest.mark.parametrize(
    ("lot", "aql", "letter", "n", "ac"),
    [
        (1000, 2.5, "J", 80, 5),  # lot 501-1200 -> J; the table's most quoted cell: 80, Ac 5, Re 6
        (1000, 1.0, "J", 80, 2),
        (1000, 0.65, "J", 80, 1),
        (1000, 6.5, "J", 80, 10),
        (1000, 0.15, "J", 80, 0),
        (1000, 0.25, "H", 50, 0),  # arrow up to the Ac 0 plan above
        (1000, 0.40, "K", 125, 1),  # arrow down to the Ac 1 plan below
        (2000, 4.0, "K", 125, 10),
        (400, 2.5, "H", 50, 3),
        (200, 2.5, "G", 32, 2),
        (40, 2.5, "C", 5, 0),  # D's cell is an arrow up
        (79, 2.5, "F", 20, 1),  # E's cell is an arrow down
        (140, 10.0, "F", 20, 5),
        (600_000, 0.025, "R", 2000, 1),  # through an arrow to R, which no lot size names
        (600_000, 10.0, "K", 125, 21),  # past Ac 21 the arrows point up
    ],
)
def test_plans_are_the_cells_of_table_ii_a(lot, aql, letter, n, ac):
    plan = acceptance_plan(lot, aql)
    assert (plan.code_letter, plan.sample_size, plan.accept, plan.reject) == (letter, n, ac, ac + 1)


def test_a_sample_never_exceeds_its_lot_and_an_off_table_aql_is_refused():
    assert acceptance_plan(3, 2.5).sample_size == 3
    with pytest.raises(ValueError, match="Table II-A"):
        acceptance_plan(100, 3.0)


def _fail(key: str, severity: MqmSeverity = MqmSeverity.MAJOR) -> UnitVerdict:
    return UnitVerdict(unit_key=key, verdict="fail", category=MqmCategory.ACCURACY, severity=severity)


def test_ac_accepts_re_rejects_and_one_critical_rejects_whatever_the_count():
    plan = acceptance_plan(1000, 2.5)  # n 80, Ac 5, Re 6
    strata = {f"u{i}": ("task" if i < 60 else "policy") for i in range(80)}
    passing = [UnitVerdict(unit_key=k, verdict="pass") for k in strata]
    five = [_fail(f"u{i}") for i in range(5)] + passing[5:]
    six = [_fail(f"u{i}") for i in range(6)] + passing[6:]
    assert decide(plan, five, strata).accepted
    rejected = decide(plan, six, strata)
    assert not rejected.accepted and rejected.failing == 6 and "≥ Re 6" in rejected.reason
    critical = decide(plan, [_fail("u70", MqmSeverity.CRITICAL)] + passing[:70] + passing[71:], strata)
    assert not critical.accepted and critical.critical == 1 and "critical" in critical.reason
    assert critical.by_stratum["policy"].failing == 1 and critical.by_stratum["task"].failing == 0
    # 37 of 80 clearly wrong (what issue 39 saw signed): rejected, both strata read in full
    wrong = {f"u{i}" for i in range(0, 80, 2)} - {"u0", "u2", "u4"}
    many = decide(plan, [_fail(k) if k in wrong else UnitVerdict(unit_key=k, verdict="pass") for k in strata], strata)
    assert not many.accepted and many.failing == 37
    assert {(s.stratum, s.action) for s in rejection_plan(many)} == {("task", "full_review"), ("policy", "full_review")}
    # a stratum failing less often than the lot may (Re/n = 6/80) has its failing units corrected only
    spread = {"u1", "u2", "u3", "u4", "u5", "u70"}
    mixed = decide(plan, [_fail(k) if k in spread else UnitVerdict(unit_key=k, verdict="pass") for k in strata], strata)
    assert [(s.stratum, s.failing, s.action) for s in rejection_plan(mixed)] == [
        ("policy", 1, "correct_units"), ("task", 5, "full_review"),
    ]  # fmt: skip
    with pytest.raises(ValueError, match="two verdicts"):
        decide(plan, [_fail("u1"), *passing], strata)


def test_every_sampled_unit_needs_a_verdict_and_a_failure_names_its_error():
    plan = acceptance_plan(100, 2.5)
    with pytest.raises(ValueError, match="no verdict"):
        decide(plan, [], {"u1": "task"})
    with pytest.raises(ValueError, match="MQM category and severity"):
        UnitVerdict(unit_key="u1", verdict="fail", category=MqmCategory.STYLE)
