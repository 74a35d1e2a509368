"""Slots are code (issue 38): a code text's format slots and the reply keys its code parses reach no translator,
come back intact, and a target whose slots changed (a translator's, the memory's, a reviewer's) is refused,
never written. On τ² telecom's code texts (its device tools' messages, the NL-assertion judge's prompt)."""

from __future__ import annotations

import re

import pytest

from babelflow.canonical_map import CanonicalMap
from babelflow.format_slots import target_slot_problems
from babelflow.ir import IRDocument
from translators.engine import TranslationEngine
from translators.interface import TranslatedSegment, TranslationRequest, TranslationResponse
from translators.memory import TranslationMemory
from translators.pseudo_locale import PseudoLocaleTranslator
from translators.unit_protection import SLOT_REFUSAL
from translators.units import extract_units

PLACEHOLDER = re.compile(r"⟦\d+⟧")


def code_texts(ir: IRDocument) -> IRDocument:
    """The IR's code texts with slots only: the units this issue is about, translated in a second."""
    return ir.model_copy(update={"elements": [e for e in ir.elements if e.code_slots]})


class SlotRewriter(PseudoLocaleTranslator):
    """Pseudo-translates, but in the first `times` requests holding a slot's placeholder it writes a 'translated'
    slot in its place, as a model that reads `{status['ssid']}` as prose would."""

    def __init__(self, times: int | None) -> None:
        super().__init__("en-XA")
        self.times = times
        self.requests: list[TranslationRequest] = []

    def translate(self, request: TranslationRequest) -> TranslationResponse:
        self.requests.append(request)
        response = super().translate(request)
        if self.times == 0:
            return response
        if self.times is not None:
            self.times -= 1
        segments = [
            TranslatedSegment(segment_id=s.segment_id, text=PLACEHOLDER.sub("{estado['ssid']}", s.text, count=1))
            for s in response.segments
        ]
        return response.model_copy(update={"segments": segments})


@pytest.fixture
def telecom_code(code_texts_of) -> IRDocument:
    return code_texts(code_texts_of("tau2-telecom"))


def _engine(translator, tmp_path) -> TranslationEngine:
    return TranslationEngine(translator, "en-XA", TranslationMemory(tmp_path / "tm.jsonl"))


def _slotted(ir: IRDocument):
    return [u for u in extract_units(ir)[1] if u.slots]


def test_the_analysis_records_slots_and_parsed_keys_with_evidence(telecom_code):
    by_text = {e.source_text: e for e in telecom_code.elements}
    wifi = next(e for t, e in by_text.items() if t.startswith("Wi-Fi is ON and connected to"))
    assert [s.text for s in wifi.code_slots] == ["{status['ssid']}", "{status['signal_strength'].value}"]
    judge = next(e for t, e in by_text.items() if "Example response structure" in t)
    keys = {s.text: s.evidence for s in judge.code_slots if s.kind == "parsed_key"}
    assert set(keys) == {'"results"', '"expectedOutcome"', '"reasoning"', '"metExpectation"'}
    assert "evaluator/evaluator_nl_assertions.py:" in keys['"reasoning"']


def test_no_slot_reaches_the_translator_and_every_slot_comes_back(telecom_code, tmp_path):
    translator = SlotRewriter(times=0)
    outcome = _engine(translator, tmp_path).translate(
        telecom_code, CanonicalMap(benchmark="tau2-telecom", language="en-XA")
    )
    assert outcome.failures == []
    sent = "\n".join(s.text for r in translator.requests for s in r.segments)
    slotted = _slotted(telecom_code)
    assert len(slotted) >= 13  # the 13 texts Apertium broke, and the rest
    for unit in slotted:
        for slot in unit.slots:
            assert slot not in sent, slot
    by_id = {e.id: e for e in telecom_code.elements}
    for unit in slotted:
        for element_id in unit.element_ids:
            assert target_slot_problems(by_id[element_id].code_slots, outcome.targets[element_id]) == []


def test_a_rewritten_slot_is_refused_per_unit_then_retried_alone(telecom_code, tmp_path):
    translator = SlotRewriter(times=1)  # the first batch comes back with rewritten slots, the retries do not
    outcome = _engine(translator, tmp_path).translate(
        telecom_code, CanonicalMap(benchmark="tau2-telecom", language="en-XA")
    )
    assert outcome.failures == []
    retried = [r for r in translator.requests[1:] if len(r.segments) == 1]
    assert outcome.stats.slot_retries == len(retried) > 0


def test_a_slot_rewritten_every_time_is_a_recorded_failure_never_a_target(telecom_code, tmp_path):
    outcome = _engine(SlotRewriter(times=None), tmp_path).translate(
        telecom_code, CanonicalMap(benchmark="tau2-telecom", language="en-XA")
    )
    slotted = {u.key: u for u in _slotted(telecom_code)}
    failed = {f.unit_key: f for f in outcome.failures}
    assert set(slotted) <= set(failed)
    for key, unit in slotted.items():
        assert any("retried alone" in p for p in failed[key].problems)
        assert not set(unit.element_ids) & set(outcome.targets)


def test_a_reviewed_text_with_a_changed_slot_is_refused(telecom_code, tmp_path):
    wifi = next(e for e in telecom_code.elements if e.source_text.startswith("Wi-Fi is ON and connected to"))
    reviewed = {
        wifi.id: "El Wi-Fi está encendido y conectado a '{estado['ssid']}'. Señal: {status['signal_strength'].value}."
    }
    outcome = _engine(SlotRewriter(times=0), tmp_path).translate(
        telecom_code, CanonicalMap(benchmark="tau2-telecom", language="en-XA"), reviewed=reviewed
    )
    assert wifi.id not in outcome.targets
    failure = next(f for f in outcome.failures if wifi.id in f.element_ids)
    assert SLOT_REFUSAL in failure.problems
    assert "slot \"{status['ssid']}\" is missing (translated or dropped)" in failure.problems
