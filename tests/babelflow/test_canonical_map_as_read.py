"""Canonical targets are compared as a reader tells names apart (babelflow/canonical_map.as_read):
two books whose titles differ only in Unicode form, width, invisible characters or spacing share a
title for the agent, and a target of only a zero-width space empties the field. Each map here gave
no problem before."""

from __future__ import annotations

import pytest

from babelflow.canonical_map import CanonicalEntry, CanonicalMap, map_problems


def _map(*pairs: tuple[str, str]) -> CanonicalMap:
    entries = [CanonicalEntry(group="book_title", source=s, target=t, origin="reviewer") for s, t in pairs]
    return CanonicalMap(benchmark="fixture-library", language="es", entries=entries)


@pytest.mark.parametrize(
    "first,second",
    [
        ("Café del Mar", "Cafe\u0301 del Mar"),  # NFC and NFD
        ("Team Sync", "Ｔｅａｍ Ｓｙｎｃ"),  # full-width forms
        ("Team Sync", "Team  Sync"),  # a doubled space
        ("Team Sync", "Team\u00a0Sync"),  # a no-break space
        ("Team Sync", "Team\u200bSync".replace("\u200b", " \u200b")),  # a zero-width space
        ("El Camino", "el camino"),  # case (held before)
    ],
)
def test_targets_that_read_the_same_collide(first, second):
    problems = map_problems(_map(("The Road", first), ("The Path", second)))
    assert len(problems) == 1 and "'The Path'" in problems[0] and "'The Road'" in problems[0]


@pytest.mark.parametrize(
    "target",
    ["", "  ", "\u200b", "\u200b\u2060 \ufeff", "\u2800", "\u0301", "\u3164\u3164", " \u0301\u0308 "],
)  # braille blank, a lone combining accent, Hangul fillers (issue 44): they draw nothing
def test_targets_that_read_as_nothing_are_empty(target):
    assert map_problems(_map(("The Road", target))) == ["entry (book_title, 'The Road') has an empty target"]


def test_sources_that_read_the_same_may_share_a_target_and_distinct_names_pass():
    assert map_problems(_map(("Café", "Kafe"), ("Cafe\u0301", "Kafe"), ("CAFÉ", "Kafe"))) == []
    assert map_problems(_map(("The Road", "El Camino"), ("The Path", "La Senda"), ("Tablet", "Tableta"))) == []


@pytest.mark.parametrize(
    "first,second",
    [
        ("Cafe", "Cafе"),  # a Cyrillic е for the Latin e
        ("Rojo", "Rоjо"),  # Cyrillic о twice
        ("Apple", "Αpple"),  # a Greek capital alpha
    ],
)
def test_targets_that_look_the_same_collide(first, second):
    """Issue 44: renderings that a reader (and a model) cannot tell apart passed adapt and validate."""
    [problem] = map_problems(_map(("The Road", first), ("The Path", second)))
    assert "look the same" in problem and repr(second) in problem


def test_distinct_accented_targets_do_not_look_the_same():
    assert map_problems(_map(("A", "azul"), ("B", "azúl"), ("C", "Año"), ("D", "Ano"))) == []
