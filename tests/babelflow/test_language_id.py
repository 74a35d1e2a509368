"""judge_language (babelflow/language_id.py): a translation target left in English is refused, a real
translation, an Apertium draft of a sibling language, a kept name or code is not. The units are real
(tests/data/language_id/README.md: SEATauBench vi/th/id/tl, Apertium es/ca/gl drafts, VitaBench zh),
labelled by where they came from; bench/language_id.py measures the same thing on the whole corpora."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from babelflow.language_id import (
    DEFAULT_THRESHOLDS,
    LanguageVerdict,
    identifier_code,
    judge_language,
    prose_of,
)

UNITS = json.loads((Path(__file__).parent.parent / "data" / "language_id" / "units.json").read_text(encoding="utf-8"))


def _units(language: str, *groups: str) -> list[dict]:
    chosen = [u for u in UNITS if u["language"] == language and u["group"] in groups]
    assert chosen, (language, groups)
    return chosen


def _verdicts(units: list[dict]) -> list[tuple[dict, LanguageVerdict | None]]:
    return [(u, judge_language(u["text"], u["language"], u["kept"])) for u in units]


@pytest.mark.parametrize("language", ["es", "ca", "gl", "zh-Hans", "vi", "th", "id", "tl"])
def test_english_left_in_place_is_refused(language):
    verdicts = _verdicts(_units(language, "english"))
    judged = [(u, v) for u, v in verdicts if v is not None]
    assert len(judged) >= 20  # of 30: most English fields are prose enough to judge
    missed = [u["text"] for u, v in judged if not v.wrong]
    assert len(missed) <= 0.05 * len(judged), missed  # bench: 96-100% of judged English refused per language
    for _, verdict in judged:
        if verdict.wrong:
            confident = verdict.probability >= DEFAULT_THRESHOLDS.min_probability
            assert verdict.detected == "en" and (confident or "not one Han letter" in verdict.message)
            assert "English left in place" in verdict.message and "Translate it into" in verdict.message


@pytest.mark.parametrize("language", ["vi", "th", "id", "tl", "zh-Hans", "es", "ca", "gl"])
def test_real_translations_drafts_kept_values_and_mixed_names_are_accepted(language):
    verdicts = _verdicts(_units(language, "translation", "draft", "kept", "mixed"))
    refused = [u["text"] for u, v in verdicts if v is not None and v.wrong]
    assert not refused
    assert sum(v is not None for _, v in verdicts) >= 10  # accepted, not merely skipped (zh: short names are)


@pytest.mark.parametrize("language", ["es", "ca", "gl"])
def test_sibling_drafts_are_never_refused(language):
    verdicts = _verdicts(_units(language, "sibling"))
    assert not [u["text"] for u, v in verdicts if v is not None and v.wrong]
    # a Catalan draft under an es tag reads as Catalan: accepted as a close relative, not as Spanish
    close = [v for _, v in verdicts if v is not None and v.detected not in (v.expected, "en")]
    assert close and all("close relative" in v.message for v in close)


def test_a_draft_mixing_spanish_catalan_and_galician_is_not_refused_for_any_of_them():
    mixed = "Quiero cambiar la meva comanda porque o teclado non funciona ben."
    for language in ("es", "ca", "gl", "pt"):
        verdict = judge_language(mixed, language)
        assert verdict is not None and not verdict.wrong, (language, verdict)


@pytest.mark.parametrize(
    "text",
    [
        "#W2378156",
        "credit_card_9513926",
        "noah.brown7922@example.com",
        "Suite 356",
        "Smart Thermostat",
        "{user_id} ⟦0⟧ %s %(name)s",
        "https://example.com/orders/list",
        "getOrderDetails HomeKit RGB USB-C",
        "src/tools/retail.py",
        "`exchange_delivered_order_items`",
        "1000ml, 64GB, 4K",
    ],
)
def test_codes_ids_and_short_names_are_not_judged(text):
    for language in ("es", "vi", "zh-Hans", "th"):
        assert judge_language(text, language) is None, (text, language)


def test_kept_values_are_stripped_before_judging():
    names = ["Mechanical Keyboard", "Smart Thermostat", "Google Home", "Apple HomeKit", "Yusuf Rossi"]
    assert judge_language("Mechanical Keyboard, Smart Thermostat; Google Home (Yusuf Rossi)", "es", kept=names) is None
    # the English around kept names is still English left in place
    text = "Mechanical Keyboard, Smart Thermostat compatible with Google Home and Apple HomeKit, for Yusuf Rossi"
    assert judge_language(text, "es", kept=names).wrong
    spanish = "Eres Yusuf Rossi y quieres cambiar el Mechanical Keyboard y el Smart Thermostat por uno con Google Home."
    verdict = judge_language(spanish, "es", kept=names)
    assert verdict is not None and not verdict.wrong and verdict.detected != "en"
    assert "Mechanical" not in verdict.judged and "Rossi" not in verdict.judged
    # a kept size "M" is a word, not a letter: the M of "Make" stays
    assert prose_of("Make sure the M size fits.", ["M"]) == "Make sure the size fits."


def test_prose_of_strips_what_is_not_prose():
    text = (
        "## Cancel order\n- **Please** call `get_order_details` with {order_id} and ⟦3⟧ for #W2378156, "
        "mail noah.brown7922@example.com or see [the policy](https://example.com/p) of HomeKit RGB users."
    )
    assert prose_of(text) == "Cancel order Please call with and for , mail or see the policy of users."


@pytest.mark.parametrize("tag", ["en-XA", "ar-XB", "es-XA", "zh-XB", "fr-XC", "qps-ploc", "qaa", "en-QM"])
def test_pseudo_locales_and_private_use_are_never_judged(tag):
    assert identifier_code(tag) is None
    assert judge_language("Make sure your shipping address is correct before you confirm the order.", tag) is None


@pytest.mark.parametrize(
    ("tag", "code"),
    [("es", "es"), ("zh-Hans", "zh"), ("zh-TW", "zh"), ("pt-BR", "pt"), ("fil", "tl"), ("tl", "tl"), ("nb", "no")],
)
def test_language_tags_map_to_the_identifier_codes(tag, code):
    assert identifier_code(tag) == code


def test_unknown_tags_and_english_targets_are_not_judged():
    sentence = "Make sure your shipping address is correct before you confirm the order."
    assert judge_language(sentence, "not a tag") is None
    assert judge_language(sentence, "x" * 300) is None
    assert judge_language(sentence, "en") is None and judge_language(sentence, "en-GB") is None
    # another source language: Chinese left in an English target is refused
    verdict = judge_language("请在确认订单之前检查您的收货地址是否正确。", "en", source="zh")
    assert verdict is not None and verdict.wrong and verdict.detected == "zh"


def test_latin_text_in_a_non_latin_target_needs_only_to_read_as_english():
    # langid's zh, wuu and yue classes take a share of short Latin texts; no Han letter at all settles it
    verdict = judge_language("Small Shrimp Wontons with rice", "zh-Hans")
    assert verdict is not None and verdict.wrong and "not one Han letter" in verdict.message
    thai = judge_language("คุณต้องการเปลี่ยน Smart Thermostat เป็นรุ่นที่รองรับ Google Home", "th")
    assert thai is not None and not thai.wrong


def test_too_little_prose_is_not_judged_and_thresholds_are_honoured():
    assert judge_language("Water bottle", "vi") is None  # 2 words
    assert judge_language("Cancel pending order", "vi", thresholds=DEFAULT_THRESHOLDS) is not None
    strict = DEFAULT_THRESHOLDS.model_copy(update={"min_probability": 1.01})
    assert not judge_language("Make sure your address is correct before confirming.", "vi", thresholds=strict).wrong


def test_a_thousand_units_take_well_under_two_seconds():
    judge_language("Load the model first.", "es")
    texts = [(u["text"], u["language"], u["kept"]) for u in UNITS]
    started = time.perf_counter()
    for text, language, kept in (texts * 2)[:1000]:
        judge_language(text, language, kept)
    assert time.perf_counter() - started < 2.0  # measured ~0.3 s on one core
