"""One confidence per term rendering: a logistic model over the signals that fired.

Each signal adds its weight to the log-odds that the rendering is wrong; the weights are fitted on
labelled term bases of languages other than the one measured (bench/terms_calibration.py writes
translators/terms/signal_weights.json and says which languages it saw). A term is doubtful when the
model puts the chance that it is wrong at the calibrated threshold or more; the signals that fired are named beside it,
so the reviewer reads why, not just a number.
"""

from __future__ import annotations

import math
from functools import lru_cache
from pathlib import Path

from pydantic import Field

from babelflow.ir import Record
from babelflow.saved_records import load_saved_record
from translators.terms.signals import SignalKind, TermSignal

WEIGHTS_FILE = Path(__file__).with_name("signal_weights.json")


class SignalWeights(Record):
    schema_version: str = "babelflow.term_signal_weights/1"
    calibrated_on: list[str] = Field(description="languages (and benchmark) whose labelled terms fitted the weights")
    labelled_terms: int = Field(description="labelled terms the fit saw")
    labeller: str = Field(default="", description="who labelled them (not the author of the signals)")
    bias: float = Field(description="log-odds that a term with no signal is wrong")
    weights: dict[SignalKind, float] = Field(description="added log-odds per signal that fired")
    fitted_at: str = Field(default="", description="date of the fit (bench/terms_calibration.py --write)")
    doubtful_at: float = Field(
        default=0.5,
        description="P(wrong) from which a rendering is doubtful: the highest that still found the calibration"
        " languages' wrong renderings at the target recall (a missed wrong term spreads everywhere; a doubted right"
        " one costs a reviewer's glance)",
    )
    target_recall: float = Field(default=0.85, description="the recall the threshold was chosen for")


@lru_cache(maxsize=1)
def shipped_weights() -> SignalWeights:
    return load_saved_record(
        WEIGHTS_FILE, SignalWeights, what="Term signal weights", fix="regenerate it: python -m bench.terms_calibration"
    )


def doubtful_at() -> float:
    """P(wrong) from which a term waits for a reviewer (chosen with the weights)."""
    return shipped_weights().doubtful_at


def chance_wrong(signals: list[TermSignal], weights: SignalWeights | None = None) -> float:
    """P(the rendering is wrong | the signals that fired); each kind counts once."""
    weights = weights or shipped_weights()
    logit = weights.bias + sum(weights.weights.get(kind, 0.0) for kind in {s.kind for s in signals})
    return 1.0 / (1.0 + math.exp(-logit))


def fit_weights(
    rows: list[tuple[set[SignalKind], bool]], *, l2: float = 1.0, iterations: int = 50
) -> tuple[float, dict[SignalKind, float]]:
    """Logistic regression (Newton's method, L2 on the signal weights, not the bias) of wrong ~ signals.
    rows: (kinds that fired, labelled wrong). Small and exact: no library needed for ten features."""
    import numpy as np  # noqa: PLC0415 - only calibration fits

    kinds = list(SignalKind)
    x = np.array([[1.0] + [1.0 if k in fired else 0.0 for k in kinds] for fired, _ in rows])
    y = np.array([1.0 if wrong else 0.0 for _, wrong in rows])
    beta = np.zeros(x.shape[1])
    penalty = np.diag([0.0] + [l2] * len(kinds))
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-x @ beta))
        gradient = x.T @ (y - p) - penalty @ beta
        hessian = (x.T * (p * (1 - p))) @ x + penalty
        step = np.linalg.solve(hessian, gradient)
        beta += step
        if float(np.abs(step).max()) < 1e-8:
            break
    return float(beta[0]), {k: round(float(w), 4) for k, w in zip(kinds, beta[1:], strict=True)}


def threshold_for(chances: list[tuple[float, bool]], target_recall: float, floor: float) -> float:
    """The highest P(wrong) threshold whose flags hold `target_recall` of the wrong renderings, but above
    `floor` (the chance of a term no signal doubts: doubting those would doubt the whole term base)."""
    wrong = sorted((p for p, is_wrong in chances if is_wrong), reverse=True)
    if not wrong:
        return 0.5
    needed = max(1, math.ceil(target_recall * len(wrong)))
    return round(max(wrong[needed - 1] - 1e-6, floor + 1e-4), 6)
