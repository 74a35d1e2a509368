"""Two terms of one class that a translator renders alike (translators/term_renderings.py).

The rubrics are VitaBench instore's (task 10826026, data/vita/domains/instore/tasks_en.json, MIT): its
English words one criterion twice ('… within 1000m (inclusive) of …' in a state, '… from …' overall),
and Apertium eng-spa renders both 'de'. VitaBench counts a rubric once by its text, so the variant must
keep two texts; the Spanish renderings below are Apertium's."""

from __future__ import annotations

from babelflow.language_data import language_data
from translators.term_renderings import distinct_renderings, one_thing_two_wordings, with_other_stop
from translators.units import Translated, TranslationUnit

OF = "The massage shop should be within 1000m (inclusive) of Room 502, Unit 1, Building 3, Jinyu Huafu"
FROM = "The massage shop should be within 1000m (inclusive) from Room 502, Unit 1, Building 3, Jinyu Huafu"
APERTIUM = "La tienda de masaje tendría que ser dentro 1000m (inclusive) de Sala 502, Unidad 1, Edificio 3, Jinyu Huafu"
ENGLISH = language_data("en").function_words


def _unit(key: str, text: str, group: str) -> TranslationUnit:
    return TranslationUnit(key=key, text=text, kind="canonical", context="", canonical_group=group, inline_tokens=())


def _rendered(pairs: list[tuple[str, str]], group: str, source_language: str = "en") -> dict[str, str]:
    units = [_unit(f"u{i}", source, group) for i, (source, _) in enumerate(pairs)]
    results = {f"u{i}": Translated(target) for i, (_, target) in enumerate(pairs)}
    distinct_renderings(units, results, [], {}, source_language, "es")
    return {unit.text: results[unit.key].text for unit in units}  # type: ignore[union-attr]


def test_one_criterion_worded_twice_is_told_apart_by_a_full_stop_not_by_english():
    rendered = _rendered([(OF, APERTIUM), (FROM, APERTIUM)], "rubric")
    assert set(rendered.values()) == {APERTIUM, APERTIUM + "."}
    assert all("massage" not in text for text in rendered.values())


def test_two_names_rendered_alike_still_show_their_source():
    """'on-ear' and 'over-ear' differ in a content word: the agent must see which is which."""
    rendered = _rendered([("on-ear", "encima-oreja"), ("over-ear", "encima-oreja")], "option_value")
    assert set(rendered.values()) == {"encima-oreja", "encima-oreja (over-ear)"}


def test_two_sentences_that_differ_in_a_content_word_show_their_source():
    """'reserved' and 'booked' are synonyms to a reader, not to this rule: a content word differs."""
    reserved = "The reserved escape room should be Puzzle Solver Escape Room"
    booked = "The booked escape room should be Puzzle Solver Escape Room"
    spanish = "La sala de evasión reservada tendría que ser Rompecabezas Solver Sala de Evasión"
    rendered = _rendered([(reserved, spanish), (booked, spanish)], "rubric")
    assert set(rendered.values()) == {spanish, f"{spanish} ({reserved})"}


def test_the_wordings_rule_needs_the_source_languages_function_words():
    """A source language without a list (zh here) keeps the parentheses: the rule is data, not English."""
    rendered = _rendered([(OF, APERTIUM), (FROM, APERTIUM)], "rubric", source_language="zh")
    assert APERTIUM + "." not in rendered.values()
    assert not one_thing_two_wordings(OF, FROM, frozenset())


def test_what_counts_as_one_thing_in_two_wordings():
    lamb = "The whole roasted lamb restaurant's rating should be 4.2 or above"
    reworded = "The rating of the whole roasted lamb restaurant should be 4.2 or above"
    assert one_thing_two_wordings(lamb, reworded, ENGLISH)
    assert not one_thing_two_wordings(lamb, lamb.replace("4.2", "4.5"), ENGLISH)
    assert not one_thing_two_wordings("Health Preservation Sauna Package", "Health Sauna Package", ENGLISH)
    assert not one_thing_two_wordings("the bag of tea", "the bag from tea", ENGLISH)  # names, not sentences


def test_the_stop_is_the_targets_own():
    assert with_other_stop("Hola", "es") == "Hola."
    assert with_other_stop("Hola.", "es") == "Hola"
    assert with_other_stop("按摩店应在1000米内", "zh") == "按摩店应在1000米内。"
