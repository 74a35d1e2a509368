"""Planted defects on variants with localized entities (issue 23): a DB value renamed without its task
mentions, and a golden value left in the source language while the DB renders it, are each caught by
a finding naming the planted field; the clean variant has no finding above note.

fixture-library (book titles Translate-Canonical) runs in seconds; tau2-retail with its catalogue
(product names, option values) localized is slow (cold analysis and 114 replays on each side).
"""

from __future__ import annotations

import random
import shutil

import pytest
from rich.console import Console

from bench.defects import CATALOGUE, caught_by, inject_defect
from bench.inject_defects import Prepared
from validators.findings import Severity

KINDS = ("canonical_db_value_renamed", "canonical_gold_value_left_in_source")


def _above_note(failures) -> list[tuple]:
    return [(f.layer.value, f.kind, f.artifact, f.location) for f in failures.findings if f.severity != Severity.NOTE]


def _check_caught(prepared: Prepared, kind: str, tmp_path) -> None:
    work = tmp_path / kind
    shutil.copytree(prepared.variant, work)
    defect = inject_defect(kind, work, prepared.ir, random.Random(0))
    failures = prepared.validate(work)
    hits = caught_by(failures, defect)
    assert hits, f"{kind} missed: {[(f.kind, f.location) for f in failures.findings]}"
    located = [f for f in hits if f.artifact == defect.artifact and f.element_id == defect.element_id]
    assert located and located[0].kind == "canonical_inconsistent" and located[0].severity is Severity.CRITICAL
    assert located[0].location.endswith(defect.location)  # the field's JSON path, in the planted file


def test_both_kinds_are_catalogued_for_localized_variants():
    for kind in KINDS:
        assert CATALOGUE[kind].benchmarks[:2] == ("fixture-library", "tau2-retail")


@pytest.fixture(scope="module")
def fixture_library(tmp_path_factory, analyzed):
    root = tmp_path_factory.mktemp("canonical-defects")
    return Prepared("fixture-library", "en-XA", root, Console(quiet=True), ir=analyzed("fixture-library"))


def test_clean_localized_fixture_has_no_finding(fixture_library):
    assert fixture_library.clean.findings == []


@pytest.mark.parametrize("kind", KINDS)
def test_fixture_defect_is_caught_and_located(fixture_library, kind, tmp_path):
    _check_caught(fixture_library, kind, tmp_path)


@pytest.mark.slow
def test_retail_with_its_entities_localized(tmp_path_factory, analyzed):
    """Retail en-XA as the bundled profile and the pseudo-locale render it (catalogue translated,
    people and places transformed): clean 0 findings above note, both kinds caught and located."""
    root = tmp_path_factory.mktemp("canonical-defects-retail")
    retail = Prepared("tau2-retail", "en-XA", root, Console(quiet=True), ir=analyzed("tau2-retail"))
    assert any(e.translation_type.value == "translate_canonical" for e in retail.ir.elements)
    assert _above_note(retail.clean) == []
    for kind in KINDS:
        _check_caught(retail, kind, root)
