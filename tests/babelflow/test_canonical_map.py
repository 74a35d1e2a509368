"""Canonical maps: CLDR seeding, versioning by content, refusal of corrupt or foreign maps."""

from __future__ import annotations

import orjson
import pytest

from babelflow.canonical_map import (
    CanonicalEntry,
    CanonicalMap,
    drafts_path,
    load_canonical_map,
    map_problems,
    mark_worlds,
    save_canonical_map,
    seed_from_cldr,
)
from babelflow.errors import BabelflowError, StaleArtifactError


def test_weekdays_months_territories_and_currencies_come_from_cldr(tmp_path):
    cmap = CanonicalMap(benchmark="tau2-airline", language="zh-Hans")
    assert seed_from_cldr(cmap, "weekday", "weekdays", ["Monday", "Sunday", "Blursday"]) == 2
    assert seed_from_cldr(cmap, "country", "territories", ["France"]) == 1
    assert seed_from_cldr(cmap, "currency", "currencies", ["US Dollar"]) == 1
    assert cmap.target_of("weekday", "Monday") == "星期一" and cmap.target_of("country", "France") == "法国"
    assert all(e.origin == "cldr" and e.review_state == "confirmed" for e in cmap.entries)
    hindi = CanonicalMap(benchmark="tau2-airline", language="hi")
    seed_from_cldr(hindi, "month", "months", ["May"])
    assert hindi.target_of("month", "May") == "मई"
    with pytest.raises(BabelflowError, match="CLDR has no locale"):
        seed_from_cldr(CanonicalMap(benchmark="x", language="en-XA"), "weekday", "weekdays", ["Monday"])


def test_version_follows_content_and_foreign_or_corrupt_maps_are_refused(tmp_path):
    cmap = CanonicalMap(benchmark="tau2-retail", language="zh-Hans")
    empty = cmap.version()
    cmap.upsert(
        CanonicalEntry(
            group="product_name", source="T-Shirt", target="T恤", origin="reviewer", review_state="confirmed"
        )
    )
    assert cmap.version() != empty
    path = tmp_path / "zh-Hans.json"
    save_canonical_map(cmap, path)
    assert load_canonical_map(path, "tau2-retail", "zh-Hans").version() == cmap.version()
    with pytest.raises(StaleArtifactError, match="not tau2-airline"):
        load_canonical_map(path, "tau2-airline", "zh-Hans")
    path.write_text("{oops", encoding="utf-8")
    with pytest.raises(StaleArtifactError, match="corrupt"):
        load_canonical_map(path, "tau2-retail", "zh-Hans")


def _entry(source: str, target: str, group: str = "book_title", **extra) -> CanonicalEntry:
    return CanonicalEntry(group=group, source=source, target=target, origin=extra.pop("origin", "translator"), **extra)


def test_empty_targets_and_collisions_are_found():
    cmap = CanonicalMap(benchmark="fixture-library", language="es")
    cmap.entries = [
        _entry("The Salt Road", "El camino de sal"),
        _entry("Salt Road", "el Camino de Sal "),  # same title once case and spacing are ignored
        _entry("Letters in Winter", "  "),
        _entry("Tablet", "Tableta", group="product"),
        _entry("tablet", "tableta", group="product"),  # one term spelled twice: not a collision
        _entry("Monday", "Lunes", group="weekday"),
        _entry("Lunes", "Lunes", group="city"),  # another group may share a rendering
        _entry("Old Title", "El camino de sal", review_state="rejected"),  # rejected entries are not used
    ]
    problems = map_problems(cmap)
    assert len(problems) == 2
    assert "entry (book_title, 'Letters in Winter') has an empty target" in problems[0]
    assert "'Salt Road' (translator) and 'The Salt Road' (translator) share the target" in problems[1]


def test_values_of_two_tasks_may_share_a_rendering_and_values_of_one_task_may_not():
    """VitaBench: each task carries its own stores, so '猪肉生煎' (task 12) and '鲜肉生煎包' (task 40) may both
    read 'Pork Pan-fried Buns'; mark_worlds names the tasks of each, and a third value in task 12 collides."""
    cmap = CanonicalMap(benchmark="vita-delivery", language="en")
    cmap.entries = [
        _entry("猪肉生煎", "Pork Pan-fried Buns", group="product_name"),
        _entry("鲜肉生煎包", "Pork Pan-fried Buns", group="product_name"),
    ]
    assert len(map_problems(cmap)) == 1  # no worlds known: every value meets every other
    worlds = {
        ("product_name", "猪肉生煎"): frozenset({"tasks.json#12"}),
        ("product_name", "鲜肉生煎包"): frozenset({"tasks.json#40"}),
        ("product_name", "生煎"): frozenset({"tasks.json#12", "tasks.json#7"}),
    }
    mark_worlds(cmap, worlds)
    assert map_problems(cmap) == []
    assert cmap.lookup()[("product_name", "猪肉生煎")].worlds == ["tasks.json#12"]
    cmap.upsert(_entry("生煎", "Pork Pan-fried Buns", group="product_name"))
    mark_worlds(cmap, worlds)
    [problem] = map_problems(cmap)
    assert "'生煎' (translator)" in problem
    cmap.upsert(_entry("生煎", "Pan-fried Buns", group="product_name"))
    mark_worlds(cmap, worlds)  # shares nothing any more: its worlds are taken off
    assert map_problems(cmap) == [] and cmap.lookup()[("product_name", "生煎")].worlds is None


def test_a_damaged_map_is_refused_on_load_and_never_written(tmp_path):
    path = tmp_path / "es.json"
    good = CanonicalMap(
        benchmark="fixture-library",
        language="es",
        entries=[_entry("The Salt Road", "El camino de sal", origin="reviewer")],
    )
    save_canonical_map(good, path)
    saved = path.read_bytes()
    collision = good.model_copy(deep=True)
    collision.upsert(_entry("Murder at Millbrook", "El camino de sal", origin="reviewer"))
    with pytest.raises(BabelflowError, match="share the target") as caught:
        save_canonical_map(collision, path)
    assert (
        caught.value.exit_code == 2 and caught.value.file == str(path) and "Murder at Millbrook" in caught.value.message
    )
    assert path.read_bytes() == saved  # refused before the write
    empty = good.model_copy(deep=True)
    empty.upsert(_entry("The Salt Road", ""))
    with pytest.raises(BabelflowError, match="empty target"):
        save_canonical_map(empty, path)
    path.write_bytes(orjson.dumps(collision.model_dump()))  # edited by hand
    with pytest.raises(BabelflowError, match="Murder at Millbrook") as caught:
        load_canonical_map(path, "fixture-library", "es")
    assert caught.value.fix and "reviewer" in caught.value.fix


def test_reviewed_entries_and_run_drafts_live_in_two_files(tmp_path):
    """The tracked map holds only people's decisions; a run's own entries go to the ignored drafts file,
    so a run that changes no decision leaves the tracked file byte for byte as it was (issue 41)."""
    path = tmp_path / "es.json"
    cmap = CanonicalMap(benchmark="fixture-library", language="es")
    cmap.entries = [
        _entry("The Salt Road", "El camino de sal", origin="reviewer"),
        _entry("Murder at Millbrook", "Asesinato en Millbrook"),
        _entry("Old Title", "Viejo", review_state="rejected"),  # a rejection is a decision too
    ]
    save_canonical_map(cmap, path)
    reviewed = orjson.loads(path.read_bytes())["entries"]
    drafts = orjson.loads(drafts_path(path).read_bytes())["entries"]
    assert [e["source"] for e in reviewed] == ["Old Title", "The Salt Road"]
    assert [e["source"] for e in drafts] == ["Murder at Millbrook"]
    tracked = path.stat().st_mtime_ns, path.read_bytes()
    again = load_canonical_map(path, "fixture-library", "es")
    again.upsert(_entry("Letters in Winter", "Cartas en invierno"))  # a run adds a draft
    save_canonical_map(again, path)
    assert (path.stat().st_mtime_ns, path.read_bytes()) == tracked
    assert len(orjson.loads(drafts_path(path).read_bytes())["entries"]) == 2
    # a reviewer's entry wins over a stale draft of the same term
    stale = orjson.loads(drafts_path(path).read_bytes())
    stale["entries"].append(_entry("The Salt Road", "La ruta").model_dump())
    drafts_path(path).write_bytes(orjson.dumps(stale))
    assert (
        load_canonical_map(path, "fixture-library", "es").target_of("book_title", "The Salt Road") == "El camino de sal"
    )


def test_a_map_nobody_reviewed_writes_no_tracked_file(tmp_path):
    path = tmp_path / "en-XA.json"
    cmap = CanonicalMap(benchmark="fixture-library", language="en-XA", entries=[_entry("The Salt Road", "Ţĥé")])
    save_canonical_map(cmap, path)
    assert not path.exists() and drafts_path(path).exists()
    save_canonical_map(cmap, tmp_path / "variant_map.json", whole=True)  # the copy a variant carries: one file
    assert orjson.loads((tmp_path / "variant_map.json").read_bytes())["entries"][0]["source"] == "The Salt Road"
