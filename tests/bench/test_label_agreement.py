"""bench.label_agreement reads a labeller's verdicts against the committed samples alone. Labeller 3 (round 5) saw
none of the checks' tuning: pooled over the originals and the adopted variants, held-out precision stays at the
issue's 90% floor."""

from __future__ import annotations

from bench.label_agreement import LANGUAGES, measure


def test_labeller_three_labelled_every_sampled_group_and_precision_holds_the_floor():
    true = labelled = 0
    for kind in ("", "adopted_"):
        for language in LANGUAGES:
            found, seen, agreed, graded, _ = measure(f"{kind}{language}", "labels3")
            assert seen > 0 and agreed <= graded <= found <= seen
            true, labelled = true + found, labelled + seen
    assert true / labelled >= 0.90
