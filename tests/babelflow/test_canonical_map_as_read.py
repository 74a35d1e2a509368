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


@pytest.mark.parametrize("target", ["", "  ", "\u200b", "\u200b\u2060 \ufeff"])
def test_targets_that_read_as_nothing_are_empty(target):
    assert map_problems(_map(("The Road", target))) == ["entry (book_title, 'The Road') has an empty target"]


def test_sources_that_read_the_same_may_share_a_target_and_distinct_names_pass():
    assert map_problems(_map(("Café", "Kafe"), ("Cafe\u0301", "Kafe"), ("CAFÉ", "Kafe"))) == []
    assert map_problems(_map(("The Road", "El Camino"), ("The Path", "La Senda"), ("Tablet", "Tableta"))) == []
