"""`babelflow flow` on several languages: one language's error names itself and never hides how the others
ended (flows/pipeline/prefect_flows.py, `_finished_or_raise`)."""

from __future__ import annotations

import pytest
from prefect.states import Completed, Failed

from babelflow.errors import BabelflowError
from flows.pipeline.flow_results import AdaptFlowResult
from flows.pipeline.prefect_flows import _finished_or_raise


def _ended(language: str, status: str) -> AdaptFlowResult:
    return AdaptFlowResult(
        benchmark="tau2-retail", language=language, status=status, rounds=[], open_findings=[], variant_dir="/tmp/v"
    )


def test_a_failed_language_is_named_with_its_fix_and_the_others_states_are_kept():
    refused = BabelflowError("Canonical map tau2-retail/th: 1 unusable entry", field="entries", fix="give each source")
    states = [Completed(data=_ended("zh-Hans", "awaiting_review")), Failed(data=refused)]
    states.append(Completed(data=_ended("ko", "awaiting_signoff")))
    with pytest.raises(BabelflowError) as raised:
        _finished_or_raise(["zh-Hans", "th", "ko"], states)
    text = raised.value.render()
    assert (
        "1 of 3 languages failed" in text and "th: Canonical map tau2-retail/th" in text and "give each source" in text
    )
    assert "zh-Hans: awaiting_review; ko: awaiting_signoff" in text


def test_without_a_failure_every_result_comes_back_in_language_order():
    ended = [_ended("es", "signed"), _ended("en-XA", "awaiting_review")]
    assert _finished_or_raise(["es", "en-XA"], [Completed(data=r) for r in ended]) == ended
