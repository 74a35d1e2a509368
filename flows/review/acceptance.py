"""The count that decides a sign-off: ISO 2859-1 single sampling with acceptance and rejection numbers,
and the reviewer's verdict on each sampled unit in the MQM core typology.

A sampled unit fails when the reviewer finds an error in it (one category, one severity: MQM core,
accuracy / fluency / terminology / locale convention / style, minor / major / critical). The lot is
accepted when the failing units number at most Ac and rejected from Re on; one critical error rejects
whatever the count (a critical error is one no reader may meet: the usual AQL 0 for critical defects).

The acceptance quality limit is set per translator tier (`TIER_AQL`): a pseudo-locale is a test
variant; a machine or model draft has been post-edited by the time it is signed and is held to the
2.5 % commonly used for major defects; a human translation gets the tighter 1.0 %, since nobody reads
it after its sign-off.
"""

from __future__ import annotations

from collections import Counter
from enum import Enum
from typing import Literal

from pydantic import Field, model_validator

from babelflow.ir import Record

# ISO 2859-1 Table I, general inspection level II: the largest lot of each sample-size code letter
# (R is reached only through an arrow of Table II-A)
CODE_LETTERS = "ABCDEFGHJKLMNPQR"
_LARGEST_LOT = (8, 15, 25, 50, 90, 150, 280, 500, 1200, 3200, 10000, 35000, 150000, 500000)
# ISO 2859-1 Table II-A (single sampling, normal inspection): sample size of each code letter
_SAMPLE_SIZES = (2, 3, 5, 8, 13, 20, 32, 50, 80, 125, 200, 315, 500, 800, 1250, 2000)
# the table's AQL columns (percent nonconforming). Along each row the cells run, from the Ac 0 column on:
# 0/1, arrow up, arrow down, 1/2, 2/3, 3/4, 5/6, 7/8, 10/11, 14/15, 21/22; letter i has its 0/1 in column
# 14 - i (A at 6.5, J at 0.15), so the cell of letter i and column j sits d = j - (14 - i) steps on
AQL_COLUMNS = (0.010, 0.015, 0.025, 0.040, 0.065, 0.10, 0.15, 0.25, 0.40, 0.65, 1.0, 1.5, 2.5, 4.0, 6.5, 10.0)
_DIAGONAL_AC = {0: 0, 3: 1, 4: 2, 5: 3, 6: 5, 7: 7, 8: 10, 9: 14, 10: 21}
PLAN_RULE = "ISO 2859-1, general inspection level II, single sampling, normal inspection (Table II-A)"

TIER_AQL: dict[str, float] = {"pseudo": 10.0, "mt": 2.5, "model": 2.5, "human": 1.0}


class MqmCategory(str, Enum):
    """MQM core error types (the top of the MQM typology)."""

    ACCURACY = "accuracy"  # mistranslation, omission, addition, untranslated
    FLUENCY = "fluency"  # grammar, spelling, punctuation, register agreement
    TERMINOLOGY = "terminology"  # a term not as the term base / canonical map has it
    LOCALE_CONVENTION = "locale_convention"  # numbers, dates, addresses, currency as the locale writes them
    STYLE = "style"  # awkward, unidiomatic, wrong register


class MqmSeverity(str, Enum):
    MINOR = "minor"  # noticeable, meaning intact
    MAJOR = "major"  # meaning changed or a reader stumbles
    CRITICAL = "critical"  # a reader (agent, simulated user) would act wrongly


class UnitVerdict(Record):
    """The reviewer's verdict on one sampled unit: pass, or fail with one MQM category and severity."""

    unit_key: str
    verdict: Literal["pass", "fail"]
    category: MqmCategory | None = None
    severity: MqmSeverity | None = None
    note: str = ""

    @model_validator(mode="after")
    def _a_failure_names_its_error(self) -> UnitVerdict:
        if self.verdict == "fail" and (self.category is None or self.severity is None):
            raise ValueError(f"unit {self.unit_key}: a failing unit needs its MQM category and severity")
        return self


class AcceptancePlan(Record):
    rule: str = PLAN_RULE
    aql: float = Field(description="acceptance quality limit, percent of units failing")
    lot_size: int
    code_letter: str
    sample_size: int
    accept: int = Field(description="Ac: accept the lot with at most this many failing units")
    reject: int = Field(description="Re: reject it with this many or more")


def code_letter(lot: int) -> str:
    return next((letter for letter, largest in zip(CODE_LETTERS, _LARGEST_LOT) if lot <= largest), "Q")


def acceptance_plan(lot: int, aql: float) -> AcceptancePlan:
    """The plan for a lot at an AQL of the table, arrows followed (the sample size changes with them);
    a sample as large as the lot inspects it whole."""
    if aql not in AQL_COLUMNS:
        raise ValueError(f"AQL {aql} is not a column of ISO 2859-1 Table II-A: one of {AQL_COLUMNS}")
    j = AQL_COLUMNS.index(aql)
    i = CODE_LETTERS.index(code_letter(max(lot, 1)))
    d = j - (14 - i)
    if d < 0:  # arrow down to the Ac 0 plan of a larger sample
        i, d = i - d, 0
    elif d == 1:  # arrow up to the Ac 0 plan of a smaller sample (none above A: A's own)
        i, d = max(i - 1, 0), 0
    elif d == 2:  # arrow down to the Ac 1 plan
        i, d = i + 1, 3
    elif d > 10:  # past Ac 21: arrow up along the row
        i, d = i - (d - 10), 10
    accept = _DIAGONAL_AC[d]
    return AcceptancePlan(
        aql=aql,
        lot_size=lot,
        code_letter=CODE_LETTERS[i],
        sample_size=min(_SAMPLE_SIZES[i], lot),
        accept=accept,
        reject=accept + 1,
    )


class StratumCount(Record):
    sampled: int
    failing: int


class SampleOutcome(Record):
    """What the verdicts decide under the plan."""

    plan: AcceptancePlan
    judged: int
    failing: int
    critical: int
    accepted: bool
    by_stratum: dict[str, StratumCount]
    failing_units: list[str]
    reason: str


def decide(plan: AcceptancePlan, verdicts: list[UnitVerdict], strata: dict[str, str]) -> SampleOutcome:
    """Accept or reject: `strata` maps each sampled unit to its stratum; every sampled unit needs a verdict."""
    twice = sorted(key for key, count in Counter(v.unit_key for v in verdicts).items() if count > 1)
    if twice:
        raise ValueError(f"unit(s) with two verdicts: {', '.join(twice[:3])}")
    missing = sorted(set(strata) - {v.unit_key for v in verdicts})
    if missing:
        raise ValueError(f"{len(missing)} sampled unit(s) have no verdict ({', '.join(missing[:3])} …)")
    failing = [v for v in verdicts if v.verdict == "fail" and v.unit_key in strata]
    critical = sum(v.severity is MqmSeverity.CRITICAL for v in failing)
    accepted = len(failing) <= plan.accept and not critical
    counts: dict[str, StratumCount] = {}
    for key, stratum in strata.items():
        seen = counts.get(stratum, StratumCount(sampled=0, failing=0))
        failed = any(v.unit_key == key for v in failing)
        counts[stratum] = StratumCount(sampled=seen.sampled + 1, failing=seen.failing + failed)
    if accepted:
        reason = f"{len(failing)} failing of {len(strata)} ≤ Ac {plan.accept}: accepted"
    elif critical and len(failing) <= plan.accept:
        reason = f"{critical} critical error(s): rejected (a critical error rejects whatever the count)"
    else:
        reason = f"{len(failing)} failing of {len(strata)} ≥ Re {plan.reject}: rejected"
    return SampleOutcome(
        plan=plan,
        judged=len(strata),
        failing=len(failing),
        critical=critical,
        accepted=accepted,
        by_stratum=dict(sorted(counts.items())),
        failing_units=[v.unit_key for v in failing],
        reason=reason,
    )
