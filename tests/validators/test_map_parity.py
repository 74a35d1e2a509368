"""Validators compare a variant with localized entities through its canonical map (issue 23).

Unit tests of the comparison (validators/map_parity.py), then the behaviour and consistency layers on
fixture-library, whose book titles are Translate-Canonical (rendered once in the DB, the task prose,
the golden arguments): a clean variant is no behaviour change, a value the map missed in one place is.
"""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

import orjson
import pytest

from babelflow.adapt_request import AdaptRequest
from babelflow.canonical_map import load_canonical_map
from babelflow.ir import TranslationType
from babelflow.settings import BabelflowSettings
from source_benchmarks import get_benchmark
from validators.findings import Layer
from validators.map_parity import Renderings, equal_modulo, explain, parse_output
from validators.probes.behavior import replay_pairs_of
from validators.run import validate_variant, variant_context

RENDER = Renderings(
    allowed={"Water Bottle": {"Botella de agua"}, "blue": {"azul"}, "color": {"color"}},
    must_change={"Water Bottle", "blue"},
)


def test_a_localized_value_is_that_value_and_english_left_in_is_not():
    source = {"name": "Water Bottle", "options": {"color": "blue"}, "price": 9.5}
    assert equal_modulo(source, {"name": "Botella de agua", "options": {"color": "azul"}, "price": 9.5}, RENDER)
    # the DB (and so the tool) still says 'blue' where the map renders it: a mention the map missed
    assert not equal_modulo(source, {"name": "Botella de agua", "options": {"color": "blue"}, "price": 9.5}, RENDER)
    # rendered another way than the map's
    assert not equal_modulo(source, {"name": "Botella", "options": {"color": "azul"}, "price": 9.5}, RENDER)
    # whole values, not substrings: a text that merely contains a mapped value is compared as it is
    assert equal_modulo("a blue bottle", "a blue bottle", RENDER)
    assert not equal_modulo({"price": 9.5}, {"price": 9.6}, RENDER)


def test_a_text_the_db_also_keeps_unchanged_may_stay():
    ambiguous = Renderings(allowed={"blue": {"azul"}}, must_change=set())
    assert equal_modulo(["blue"], ["blue"], ambiguous) and equal_modulo(["blue"], ["azul"], ambiguous)


def test_dict_keys_go_through_the_map():
    keyed = Renderings(allowed={"Water Bottle": {"Botella de agua"}}, must_change={"Water Bottle"})
    assert equal_modulo({"Water Bottle": 3}, {"Botella de agua": 3}, keyed)
    assert not equal_modulo({"Water Bottle": 3}, {"Water Bottle": 3}, keyed)


def test_outputs_parse_as_json_or_yaml_and_plain_text_stays_text():
    assert parse_output('{"a": [1, "x"]}') == {"a": [1, "x"]}
    assert parse_output("- title: Harbor\n  year: 2001\n") == [{"title": "Harbor", "year": 2001}]
    assert parse_output("Order #W1 cancelled") is None and parse_output("42") == 42


def test_a_mismatch_is_explained_at_its_path_after_the_map():
    text = explain({"items": [{"name": "Water Bottle"}]}, {"items": [{"name": "Botella"}]}, RENDER)
    assert "root['items'][0]['name']" in text and "Botella de agua" in text and "Botella" in text


# ---- the layers on fixture-library ---------------------------------------------------------------


@pytest.fixture(scope="module")
def localized(tmp_path_factory, analyzed):
    """A clean en-XA fixture-library variant (book titles rendered through the map) and its source replays."""
    from flows.pipeline.adapt import adapt

    root = tmp_path_factory.mktemp("map-parity")
    ir = analyzed("fixture-library")
    result = adapt(
        AdaptRequest.of_options("fixture-library", "en-XA"), settings=BabelflowSettings(project_root=root), ir=ir
    )
    cmap = load_canonical_map(result.paths.canonical_map, "fixture-library", "en-XA")
    source = get_benchmark("fixture-library")
    pairs = replay_pairs_of(source, source.task_ids(None), "source replays")
    return source, result.ir, cmap, result.paths.variant, pairs


def _validate(localized, variant: Path, ir=None):
    source, clean_ir, cmap, _, pairs = localized
    return validate_variant(
        variant_context(source, variant, ir or clean_ir, "en-XA", canonical_map=cmap, source_pairs=pairs)
    )


def _copy(localized, to: Path) -> Path:
    shutil.copytree(localized[3], to)
    return to


def _title_element(ir, book: str):
    return next(
        e
        for e in ir.elements
        if e.artifact == "data/db.json" and list(getattr(e.locator, "path", [])) == ["books", book, "title"]
    )


def _set_db_title(variant: Path, book: str, title: str) -> None:
    path = variant / "data/db.json"
    db = orjson.loads(path.read_bytes())
    db["books"][book]["title"] = title
    path.write_bytes(orjson.dumps(db, option=orjson.OPT_INDENT_2))


def test_clean_localized_variant_has_no_finding_and_its_db_is_translated(localized):
    _, ir, cmap, variant, _ = localized
    assert any(e.translation_type is TranslationType.TRANSLATE_CANONICAL for e in ir.elements)
    db = json.loads((variant / "data/db.json").read_text())
    titles = {b["title"] for b in db["books"].values()}
    assert titles and titles <= {e.target for e in cmap.entries}  # every title is the map's rendering
    assert _validate(localized, variant).findings == []


@pytest.mark.parametrize("how", ["renamed", "left_in_english"])
def test_a_db_title_the_map_missed_changes_what_a_golden_call_returns(localized, tmp_path, how):
    """genre_inquiry's golden list_books_by_genre('mystery') returns the mystery books' titles: one
    of them renamed against the map, or left in English in the DB alone, is a behaviour change."""
    source, ir, _, variant, _ = localized
    db = json.loads((variant / "data/db.json").read_text())
    book = next(k for k, b in db["books"].items() if b["genre"] == "mystery")
    element = _title_element(ir, book)
    work = _copy(localized, tmp_path / how)
    _set_db_title(work, book, element.source_text if how == "left_in_english" else db["books"][book]["title"] + " II")
    failures = _validate(localized, work)
    changed = [f for f in failures.findings if f.layer is Layer.BEHAVIOR and f.kind == "tool_result_changed"]
    assert any(f.task_id == "genre_inquiry" for f in changed), [(f.kind, f.task_id) for f in failures.findings]
    explained = next(f for f in changed if f.task_id == "genre_inquiry").evidence[0].detail["difference_through_map"]
    assert "title" in explained
    # and the consistency layer names the field
    assert any(f.element_id == element.id and f.kind == "canonical_inconsistent" for f in failures.findings)


def test_preserve_typed_task_fields_follow_the_map_or_are_reported(localized, tmp_path):
    """An IR that keeps the golden title arguments (made with another profile) judges them through the
    map: the map's rendering is no preserved_value_changed; one left in English while the DB holds
    the rendering is reported at the field."""
    _, ir, _, variant, _ = localized
    kept = ir.model_copy(deep=True)
    golden = []
    for element in kept.elements:
        if element.artifact == "data/tasks.json" and element.role.endswith("arguments.title"):
            element.translation_type, element.canonical_group = TranslationType.PRESERVE, None
            golden.append(element)
    assert golden
    clean = _validate(localized, variant, kept)
    assert [f for f in clean.findings if f.layer is Layer.CONSISTENCY] == []
    work = _copy(localized, tmp_path / "left")
    path = work / "data/tasks.json"
    tasks = orjson.loads(path.read_bytes())
    first = golden[0]
    node = tasks
    for segment in first.locator.path[:-1]:
        node = node[segment]
    node[first.locator.path[-1]] = first.source_text
    path.write_bytes(orjson.dumps(tasks, option=orjson.OPT_INDENT_2))
    failures = _validate(localized, work, kept)
    named = [f for f in failures.findings if f.element_id == first.id]
    assert [f.kind for f in named] == ["canonical_inconsistent"], [(f.kind, f.location) for f in failures.findings]
    assert "left in the source language" in named[0].message


def test_a_message_formatted_from_values_is_compared_once_they_are_rendered():
    assert RENDER.composed("Water Bottle added to your cart", "Botella de agua added to your cart")
    assert not RENDER.composed("Water Bottle added to your cart", "Water Bottle added to your cart")
    assert not RENDER.composed("Water Bottle added to your cart", "Botella added to your cart")
    assert not RENDER.composed("Water Bottle", "Botella")  # a value is judged whole, never as composed text


def test_run_clocks_and_sizes_of_translated_text_are_not_data():
    now = datetime.now(UTC)
    assert equal_modulo({"sent": now}, {"sent": now + timedelta(seconds=5)}, RENDER)
    old = datetime(2024, 5, 1, tzinfo=UTC)
    assert not equal_modulo({"sent": old}, {"sent": old + timedelta(seconds=5)}, RENDER)
    prose = Renderings(allowed={"A long note about the team offsite plans": {"Una nota"}}, free_texts=["x" * 5])
    source, target = (
        {"content": "A long note about the team offsite plans", "size": 40},
        {"content": "Una nota", "size": 8},
    )
    assert not equal_modulo(source, target, prose)
    assert equal_modulo(source, target, prose, derived=True)


def test_catalogue_values_the_translator_kept_are_one_note(localized, tmp_path):
    """A canonical value the translator returned unchanged (map origin translator, target == source) is
    rendered that way everywhere: one note listing such values, not a major finding per field."""
    from validators.checks import run_checks
    from validators.context import ValidationContext
    from validators.findings import Layer, Severity

    source, ir, cmap, variant, _ = localized
    entry = next(e for e in cmap.entries if e.group == "book_title")
    kept_map = cmap.model_copy(deep=True)
    for e in kept_map.entries:
        if (e.group, e.source) == (entry.group, entry.source):
            e.target, e.origin = e.source, "translator"
    work = _copy(localized, tmp_path / "kept")
    holders = [e for e in ir.elements if e.canonical_group == "book_title" and e.source_text == entry.source]
    assert holders
    for artifact in {e.artifact for e in holders}:
        path = work / artifact
        document = orjson.loads(path.read_bytes())
        for element in (e for e in holders if e.artifact == artifact):
            node = document
            for segment in element.locator.path[:-1]:
                node = node[segment]
            node[element.locator.path[-1]] = element.source_text
        path.write_bytes(orjson.dumps(document, option=orjson.OPT_INDENT_2))
    findings = run_checks(Layer.FIDELITY, ValidationContext(source, work, ir, "en-XA", kept_map), [])
    about = [f for f in findings if f.kind == "untranslated"]
    assert [f.severity for f in about] == [Severity.NOTE], [(f.severity, f.location) for f in about]
    assert entry.source in about[0].message and json.loads(about[0].evidence[0].detail["values"]) == [entry.source]


def test_a_harness_message_used_as_a_key_follows_the_message_catalog():
    messages = Renderings(allowed={}, messages=lambda text: {"Mode set to": "Modo fijado en"}.get(text, text))
    assert equal_modulo({"Mode set to": "4g"}, {"Modo fijado en": "4g"}, messages)
    assert not equal_modulo({"Mode set to": "4g"}, {"Modo": "4g"}, messages)
