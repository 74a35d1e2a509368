"""The simulated model translator (translators/simulated_model.py) and the ablation built on it
(bench/ablation.py): deterministic, wrong at its declared rates, never touching protected text,
and on tau2-mock the independent arm breaks a task while the full babelflow arm breaks none."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from translators.interface import ProtectedSegment, TranslationRequest, Translator
from translators.placeholders import PlaceholderError, protect, restore
from translators.pseudo_locale import pseudo_translate_text
from translators.simulated_model import (
    ENTITY_VARIANT_RATE,
    ERROR_FREE,
    IDENTIFIER_TRANSLATION_RATE,
    NUMBER_REFORMAT_RATE,
    PLACEHOLDER_DROP_RATE,
    ErrorRates,
    SimulatedModelTranslator,
    alternative_rendering,
    number_is_eligible,
    reformat_number,
)

_PLACEHOLDER = re.compile(r"⟦[0-9]+⟧")


def _request(texts: list[tuple[str, str]], kind: str = "free") -> TranslationRequest:
    return TranslationRequest(
        source_language="en",
        target_language="en-XA",
        segments=[
            ProtectedSegment(segment_id=str(i), text=text, context=context, kind=kind)
            for i, (text, context) in enumerate(texts)
        ],
    )


SAMPLE = [
    (
        "You are Mia Garcia (mia_garcia_1234), zip 94301. Order #W2378156 cost $1628.50.",
        "tau2-retail tasks[*].user_scenario.instructions.known_info @ a",
    ),
    ("1. Cancel the ⟦0⟧ order\n2. Refund ⟦1⟧ to the ⟦2⟧ card", "tau2-retail policy:list"),
    ("Mia Garcia", "tau2-retail db.json.users.*.name @ b"),
    (
        "Contact mia.garcia@example.com about flight HAT001 from JFK on 2024-05-15.",
        "tau2-airline tasks[*].user_scenario.instructions.task_instructions @ c",
    ),
]


def test_is_a_translator_with_a_versioned_id_and_refuses_other_languages():
    model = SimulatedModelTranslator("en-XA", seed=3)
    assert isinstance(model, Translator)
    assert model.translator_id == "simulated-model:v1/en-XA/seed3/e30-i10-p3-n10"
    assert SimulatedModelTranslator(rates=ERROR_FREE).translator_id.endswith("/error-free")
    with pytest.raises(ValueError):
        SimulatedModelTranslator("de")
    with pytest.raises(ValueError):
        model.translate(TranslationRequest(source_language="en", target_language="ar-XB", segments=[]))


def test_deterministic_across_calls_and_instances():
    texts = SAMPLE * 3
    one = SimulatedModelTranslator(seed=7)
    two = SimulatedModelTranslator(seed=7)
    assert one.translate(_request(texts)) == two.translate(_request(texts))
    # the same call sequence gives the same outputs, retries included
    assert one.translate(_request(texts)) == two.translate(_request(texts))
    for text, context in SAMPLE:
        assert one.render(text, context) == one.render(text, context) == two.render(text, context)
    # another seed is another sample
    other = SimulatedModelTranslator(seed=8)
    many = [(f"Order #W{1000000 + i} for Mia Garcia", f"ctx {i}") for i in range(200)]
    assert one.translate(_request(many)).segments != other.translate(_request(many)).segments


def test_a_retry_is_a_new_seeded_draw():
    """The attempt number is part of every seed: a segment asked again (after a review purged it
    from the translation memory) is sampled afresh, reproducibly."""
    model = SimulatedModelTranslator(seed=0)
    text = "Dear Customer, your Order with Product Name Alpha Beta Gamma Delta is ready."
    first = [model.translate(_request([(text, "ctx")])).segments[0].text for _ in range(6)]
    assert len(set(first)) > 1
    replay = SimulatedModelTranslator(seed=0)
    assert [replay.translate(_request([(text, "ctx")])).segments[0].text for _ in range(6)] == first
    assert first == [SimulatedModelTranslator(seed=0).render(text, "ctx", attempt=n) for n in range(6)]


def test_error_free_rendering_is_the_pseudo_locale_and_keeps_ids_and_numbers():
    clean = SimulatedModelTranslator(rates=ERROR_FREE)
    prose = (
        "1. Cancel the pending order of 2024-05-15 and Refund 24.99 to the Customer.\n"
        "- keep it short\n2. call 555-123-2002"
    )
    assert clean.render(prose, "ctx") == pseudo_translate_text(prose, "en-XA")
    out = clean.render(SAMPLE[0][0], SAMPLE[0][1])
    for token in ("mia_garcia_1234", "94301", "#W2378156", "1628.50"):
        assert token in out
    assert "Ṁîå Ĝåŕçîå" in out  # rendering A = en-XA accenting
    assert clean.render("Mia Garcia", "db", kind="canonical") == "Ṁîå Ĝåŕçîå"  # a term: no brackets, no padding
    assert not clean.events


def test_number_reformatting():
    assert reformat_number("1628", european=False) == "1,628"
    assert reformat_number("1628", european=True) == "1.628"
    assert reformat_number("24.99", european=False) == "24,99"
    assert reformat_number("1628.5", european=True) == "1.628,5"
    assert reformat_number("1234567", european=False) == "1,234,567"
    assert number_is_eligible("24.99") and number_is_eligible("94301")
    assert not number_is_eligible("2024") and not number_is_eligible("641") and not number_is_eligible("0123")


def test_rates_are_roughly_as_declared():
    model = SimulatedModelTranslator(seed=11)
    n = 3000
    segments = [
        (f"Mia ordered #W{2000000 + i} for 1628.50 with ⟦0⟧ and ⟦1⟧ today", f"tau2-retail field @ {i}")
        for i in range(n)
    ]
    outputs = [s.text for s in model.translate(_request(segments)).segments]
    variant, translated_ids, reformatted, dropped = 0, 0, 0, 0
    for i, out in enumerate(outputs):
        variant += alternative_rendering("Mia") in out
        translated_ids += f"#W{2000000 + i}" not in out
        reformatted += "1628.50" not in out
        dropped += len(_PLACEHOLDER.findall(out)) < 2
    assert abs(variant / n - ENTITY_VARIANT_RATE) < 0.03
    assert abs(translated_ids / n - IDENTIFIER_TRANSLATION_RATE) < 0.02
    assert abs(reformatted / n - NUMBER_REFORMAT_RATE) < 0.02
    assert abs(dropped / n - PLACEHOLDER_DROP_RATE) < 0.012
    # the model's own bookkeeping agrees with what is visible in the output
    assert model.events["entity_variant"] == variant and model.events["placeholder_dropped"] == dropped
    assert model.events["identifier_translated"] == translated_ids and model.events["number_reformatted"] == reformatted
    assert model.opportunities["placeholder_dropped"] == n
    # rates are configurable and zero means zero
    clean = SimulatedModelTranslator(seed=11, rates=ErrorRates(0.0, 0.0, 0.0, 0.0))
    clean.translate(_request(segments[:500]))
    assert not clean.events and clean.opportunities["placeholder_dropped"] == 500


def test_placeholders_are_never_altered_only_dropped_whole():
    model = SimulatedModelTranslator(seed=5, rates=ErrorRates(0.3, 0.5, 0.5, 0.5))  # error-prone on purpose
    seen_drop = False
    for i in range(600):
        text = f"Item{i}⟦0⟧x ⟦1⟧ 12345 ⟦12⟧,Ana ⟦3⟧⟦4⟧ user_{i} ⟦5⟧."
        out = model.render(text, f"ctx {i}")
        before, after = Counter(_PLACEHOLDER.findall(text)), Counter(_PLACEHOLDER.findall(out))
        assert not after - before  # nothing invented or changed
        assert sum((before - after).values()) <= 1  # at most one dropped, and whole
        assert out.count("⟦") == out.count("⟧") == sum(after.values())  # no mangled brackets
        seen_drop |= after != before
    assert seen_drop


def test_protected_ids_and_numbers_reach_the_model_as_placeholders_only():
    """What a pipeline protects cannot be mistranslated: after restore, ids and numbers are intact
    (or the unit fails loudly because a placeholder was dropped)."""
    model = SimulatedModelTranslator(
        seed=2, rates=ErrorRates(0.3, 1.0, 0.03, 1.0)
    )  # every visible id/number would be wrong
    source = "Order #W2378156 for user mia_garcia_1234 costs 1628.50, zip 94301."
    protected = protect(source)
    assert "#W2378156" not in protected.text and "1628.50" not in protected.text
    restored = failed = 0
    for i in range(300):
        out = model.render(protected.text, f"ctx {i}")
        try:
            text = restore(out, protected)
        except PlaceholderError:
            failed += 1
            continue
        restored += 1
        for token in ("#W2378156", "mia_garcia_1234", "1628.50", "94301"):
            assert token in text
    assert restored > 250 and failed > 0
    # unprotected, the same text does get its ids and numbers changed
    assert "#W2378156" not in model.render(source, "ctx 0") or "1628.50" not in model.render(source, "ctx 0")


def _ablation_module():
    import bench.ablation

    return bench.ablation


def test_tiny_ablation_on_tau2_mock(tmp_path):
    ablation = _ablation_module()
    results = {r.arm: r for r in ablation.run_ablation(["tau2-mock"], "en-XA", seed=0, work=tmp_path)}
    assert set(results) == {"independent", "canonical", "full"}
    independent, full = results["independent"], results["full"]
    assert independent.tasks == full.tasks == 9
    assert len(independent.broken) >= 1  # translating entity fields on their own breaks the benchmark
    assert full.broken == [] and full.mismatch == [], full.reasons
    assert full.converged and full.review_rounds is not None
    assert full.characters_sent < independent.characters_sent and full.tokens < independent.tokens
    # the naive arms really did translate entities; babelflow kept them
    assert independent.fields_translated > full.fields_translated
    # the full workflow's model validators read the variant on every validation pass, one ledger row per agent
    assert full.validator_tokens > 0 and full.workflow_tokens == full.tokens + full.validator_tokens
    assert [c["agent"] for c in full.validator_costs if c["stage"] != "total"] == [
        "validator-1-simulated",
        "validator-2-simulated",
        "validator-3-simulated",
    ]
