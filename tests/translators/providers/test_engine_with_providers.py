"""The engine with a model translator: a segment the model keeps breaking is a recorded unit
failure (not remembered, not patched), and a batch killed by an outage is paid only once: the
rerun sends exactly the segments the translation memory does not have."""

from __future__ import annotations

import pytest
from fakes import Fault

from babelflow.canonical_map import CanonicalMap
from babelflow.llm.resilience import ProviderError
from translators.engine import TranslationEngine
from translators.memory import TranslationMemory
from translators.units import extract_units


def _engine(translator, tmp_path, max_items=40):
    return TranslationEngine(translator, "zh-Hans", TranslationMemory(tmp_path / "tm.jsonl"), max_items=max_items)


@pytest.mark.parametrize("provider", ["dashscope", "anthropic"])
def test_a_segment_that_stays_broken_is_a_unit_failure(provider, fake, make_translator, analyzed, tmp_path):
    ir = analyzed("tau2-mock")
    engine = _engine(make_translator(provider), tmp_path)
    # a phrase of one unit's text (placeholders are numbered per segment, so aim by its words)
    target_unit = next(u for u in extract_units(ir)[1] if "⟦" not in u.text and len(u.text.split()) > 6)
    phrase = " ".join(target_unit.text.split()[:4])
    fake.script(provider, Fault("answered", times=None, match=phrase))
    outcome = engine.translate(ir, CanonicalMap(benchmark="tau2-mock", language="zh-Hans"))
    failed = {f.unit_key: f for f in outcome.failures}
    assert target_unit.key in failed
    assert any("answered instead of translated" in p for p in failed[target_unit.key].problems)
    assert not set(target_unit.element_ids) & set(outcome.targets)
    # nothing bad was remembered: a rerun with a healthy model sends only the failed unit(s)
    fake.reset()
    rerun = _engine(make_translator(provider), tmp_path).translate(
        ir, CanonicalMap(benchmark="tau2-mock", language="zh-Hans")
    )
    assert rerun.failures == []
    sent = [i for s in fake.state.requests(provider) for i in s.segment_ids]
    assert set(sent) == set(failed)


def test_outage_mid_run_then_rerun_pays_only_for_missing_segments(fake, make_translator, analyzed, tmp_path):
    ir = analyzed("tau2-mock")
    free = extract_units(ir)[1]
    # the 4th engine batch (10 units each) hits a server that keeps answering 500
    phrases = [" ".join(u.text.split()[:4]) for u in free[30:40]]
    phrase = next(p for p in phrases if len(p.split()) == 4 and sum(p in u.text for u in free) == 1)
    fake.script("dashscope", Fault("500", times=None, match=phrase))
    with pytest.raises(ProviderError) as raised:
        _engine(make_translator("dashscope", "backoff=0.01&max_retries=2"), tmp_path, max_items=10).translate(
            ir, CanonicalMap(benchmark="tau2-mock", language="zh-Hans")
        )
    assert raised.value.exit_code == 2 and "still failing after 3 attempts" in str(raised.value)
    first = [s for s in fake.state.requests("dashscope") if s.status == 200]
    paid = {i for s in first for i in s.segment_ids}
    free_keys = {u.key for u in free}
    free_batches = [s for s in first if set(s.segment_ids) <= free_keys]  # the entity terms go first, apart
    assert len(free_batches) >= 2 and all(len(s.segment_ids) == 10 for s in free_batches)
    assert len(paid) == sum(len(s.segment_ids) for s in first)  # the batches before the outage finished...
    assert set(TranslationMemory(tmp_path / "tm.jsonl").entries) and len(
        TranslationMemory(tmp_path / "tm.jsonl").entries
    ) == len(paid)  # ...and were remembered

    fake.reset()
    outcome = _engine(make_translator("dashscope"), tmp_path, max_items=10).translate(
        ir, CanonicalMap(benchmark="tau2-mock", language="zh-Hans")
    )
    assert outcome.failures == [] and outcome.stats.memory_hits >= len(paid)
    second = [i for s in fake.state.requests("dashscope") for i in s.segment_ids]
    assert (
        not set(second) & paid and len(second) == len(set(second)) == outcome.stats.segments_sent
    )  # nothing paid twice
    assert set(second) | paid <= {u.key for u in extract_units(ir)[0] + free}
    assert all(
        element in outcome.targets for unit in free for element in unit.element_ids
    )  # the rerun completed the rest


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_a_model_that_rewrites_a_slot_is_refused_per_unit_and_retried(
    provider, fake, make_translator, code_texts_of, tmp_path
):
    """Issue 38: a model that writes a 'translated' slot (`{estado['ssid']}`) where the protected slot's
    placeholder was is refused for that unit only; the unit is sent again alone and, answered well, kept."""
    from babelflow.format_slots import target_slot_problems

    full = code_texts_of("tau2-telecom")
    ir = full.model_copy(update={"elements": [e for e in full.elements if e.code_slots]})
    wifi = next(u for u in extract_units(ir)[1] if u.text.startswith("Wi-Fi is ON and connected to"))
    fake.script(provider, Fault("rewrite_slot", times=1, match="Wi-Fi is ON and connected to"))
    outcome = _engine(make_translator(provider), tmp_path).translate(
        ir, CanonicalMap(benchmark="tau2-telecom", language="zh-Hans")
    )
    assert outcome.failures == []
    sent = [s for s in fake.state.requests(provider) if wifi.key in s.segment_ids]
    assert len(sent) == 2  # refused once (the model translator's own check), then answered well
    by_id = {e.id: e for e in ir.elements}
    assert all(target_slot_problems(by_id[i].code_slots, outcome.targets[i]) == [] for i in wifi.element_ids)
    # a model that keeps doing it: a recorded failure of that unit, never a target
    fake.reset()
    fake.script(provider, Fault("rewrite_slot", times=None, match="Wi-Fi is ON and connected to"))
    again = TranslationEngine(
        make_translator(provider), "zh-Hans", TranslationMemory(tmp_path / "other.jsonl")
    ).translate(ir, CanonicalMap(benchmark="tau2-telecom", language="zh-Hans"))
    failed = {f.unit_key: f for f in again.failures}
    assert wifi.key in failed and any("retried alone" in p for p in failed[wifi.key].problems)
    assert again.stats.slot_retries >= 1
    assert [s for s in fake.state.requests(provider) if s.segment_ids == [wifi.key]]  # the engine's retry: alone
    assert not set(wifi.element_ids) & set(again.targets)
