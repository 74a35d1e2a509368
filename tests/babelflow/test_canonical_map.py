"""Canonical maps: CLDR seeding, versioning by content, refusal of corrupt or foreign maps."""

from __future__ import annotations

import pytest

from babelflow.canonical_map import CanonicalEntry, CanonicalMap, load_canonical_map, save_canonical_map, seed_from_cldr
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
    cmap.upsert(CanonicalEntry(group="product_name", source="T-Shirt", target="T恤", origin="reviewer", review_state="confirmed"))
    assert cmap.version() != empty
    path = tmp_path / "zh-Hans.json"
    save_canonical_map(cmap, path)
    assert load_canonical_map(path, "tau2-retail", "zh-Hans").version() == cmap.version()
    with pytest.raises(StaleArtifactError, match="not tau2-airline"):
        load_canonical_map(path, "tau2-airline", "zh-Hans")
    path.write_text("{oops", encoding="utf-8")
    with pytest.raises(StaleArtifactError, match="corrupt"):
        load_canonical_map(path, "tau2-retail", "zh-Hans")
