"""An import whose writes fail half-way, or whose rebuild is interrupted, leaves the stored texts
and canonical map as they were (flows/importing.write_import, flows/cli_interchange): before, the
canonical map stayed written when the reviewed translations could not be, and only a BabelflowError
from the rebuild was rolled back (Ctrl-C left the import's files in place)."""

from __future__ import annotations

import errno

import pytest

from babelflow.atomic_io import write_bytes_atomic
from babelflow.canonical_map import CanonicalEntry, CanonicalMap, save_canonical_map
from babelflow.settings import BabelflowSettings
from flows.review.importing import write_import
from translators.interchange import ImportPlan, PlannedEntry


def _plan() -> ImportPlan:
    def entry(key: str, group: str | None, source: str, target: str) -> PlannedEntry:
        return PlannedEntry(
            unit_key=key, where="line 1", element_ids=[key], canonical_group=group, source=source, target=target
        )

    return ImportPlan(
        entries=[entry("t1", "book_title", "The Salt Road", "El camino de sal"), entry("e1", None, "Hi", "Hola")],
        empty_units=0,
        problems=[],
    )


def test_a_failed_second_write_puts_the_first_back(tmp_path, monkeypatch):
    settings = BabelflowSettings(project_root=tmp_path)
    map_path = tmp_path / "canonical_maps" / "fixture-library" / "es.json"
    reviewed = tmp_path / "reviewed_translations.json"
    old = CanonicalMap(benchmark="fixture-library", language="es")
    old.entries = [CanonicalEntry(group="book_title", source="The Salt Road", target="Ruta", origin="reviewer")]
    save_canonical_map(old, map_path)
    map_before = map_path.read_bytes()

    def disk_full(path, data):
        if path == reviewed:  # the map's restore goes through
            raise OSError(errno.ENOSPC, "No space left on device")
        write_bytes_atomic(path, data)

    monkeypatch.setattr("flows.review.importing.write_bytes_atomic", disk_full)
    with pytest.raises(OSError, match="No space"):
        write_import(settings, "fixture-library", "es", reviewed, map_path, _plan(), holder="test")
    assert map_path.read_bytes() == map_before and not reviewed.exists()


def test_a_failed_second_write_removes_a_map_the_import_created(tmp_path, monkeypatch):
    settings = BabelflowSettings(project_root=tmp_path)
    map_path = tmp_path / "canonical_maps" / "fixture-library" / "es.json"
    monkeypatch.setattr(
        "flows.review.importing.write_bytes_atomic", lambda path, data: (_ for _ in ()).throw(KeyboardInterrupt)
    )
    with pytest.raises(KeyboardInterrupt):
        write_import(settings, "fixture-library", "es", tmp_path / "r.json", map_path, _plan(), holder="test")
    assert not map_path.exists()
