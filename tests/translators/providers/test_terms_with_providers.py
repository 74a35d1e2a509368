"""The terms stage with a model translator (issue 41), on loopback fakes: each catalogue term goes out with its
class's context (the record it sits in, a sentence that uses it), and a model that answers a term with a
sentence is refused for that term only: it is neither remembered nor written into the map."""

from __future__ import annotations

from fakes import Fault

from babelflow.canonical_map import CanonicalMap
from translators.engine import TranslationEngine
from translators.memory import TranslationMemory
from translators.units import extract_units


def test_terms_carry_their_class_context_and_a_sentence_is_refused_per_term(fake, make_translator, analyzed, tmp_path):
    ir = analyzed("tau2-retail")
    canonical, _ = extract_units(ir)
    glass = next(u for u in canonical if u.text == "glass")
    fake.script("openai", Fault("sentence", times=None, match="glass"))
    engine = TranslationEngine(make_translator("openai"), "zh-Hans", TranslationMemory(tmp_path / "tm.jsonl"))
    cmap = CanonicalMap(benchmark="tau2-retail", language="zh-Hans")
    outcome = engine.render_terms(ir, cmap, renderings={})
    sent = [s for r in fake.state.requests("openai") for s in r.payload["segments"]]
    by_text = {s["text"]: s for s in sent}
    context = by_text["glass"]["context"]
    assert context.startswith("canonical term (option_value): material of ")  # the record it sits in
    assert by_text["glass"]["kind"] == "canonical"
    failed = {f.source_text: f.problems for f in outcome.failures}
    aimed = {u.text for u in canonical if "glass" in u.text}  # the fake answers every term holding 'glass' so
    assert glass.text in failed and set(failed) == aimed and len(aimed) < len(canonical)
    assert all("a sentence instead of a term" in problems[0] for problems in failed.values())
    assert cmap.target_of("option_value", "glass") is None  # not written into the map
    assert cmap.target_of("option_value", "wood") is not None  # the other terms of the batch were kept
    remembered = TranslationMemory(tmp_path / "tm.jsonl").entries.values()
    assert remembered and not any("商店目录" in text for text in remembered)  # nor remembered
