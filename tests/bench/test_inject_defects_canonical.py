"""Planted defects on variants with localized entities (issue 23): a DB value renamed without its task
mentions, and a golden value left in the source language while the DB renders it, are each caught by
a finding naming the planted field; the clean variant has no finding above note.

fixture-library (book titles Translate-Canonical) runs in seconds; tau2-retail with its catalogue
(product names, option values) localized is slow (cold analysis and 114 replays on each side).
"""

from __future__ import annotations

import json
import random
import shutil

import pytest
from rich.console import Console

from babelflow.adapt_request import AdaptRequest
from babelflow.canonical_map import load_canonical_map
from babelflow.ir import TranslationType
from babelflow.settings import BabelflowSettings
from bench.defects import CATALOGUE, caught_by, inject_defect
from bench.inject_defects import Prepared
from source_benchmarks import get_benchmark
from validators.findings import Severity
from validators.run import validate_variant, variant_context

KINDS = ("canonical_db_value_renamed", "canonical_gold_value_left_in_source")


def _above_note(failures) -> list[tuple]:
    return [(f.layer.value, f.kind, f.artifact, f.location) for f in failures.findings if f.severity != Severity.NOTE]


def _check_caught(prepared: Prepared, kind: str, tmp_path) -> None:
    defect, failures = prepared.plant(kind, tmp_path / kind)
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


def _tasks_naming(source, segments: set[str]) -> set[str]:
    """Ids of the tasks whose golden actions name one of `segments` (an order or product id)."""
    spec = next(s for s in source.artifacts() if s.role.value == "tasks")
    tasks = json.loads(source.artifact_path(spec).read_text(encoding="utf-8"))
    return {
        t["id"]
        for t in tasks
        for action in (t.get("evaluation_criteria") or {}).get("actions") or []
        if segments & {v for v in action["arguments"].values() if isinstance(v, str)}
    }


@pytest.mark.slow
def test_retail_with_its_entities_localized(tmp_path_factory, analyzed):
    """Retail en-XA as the bundled profile and the pseudo-locale render it (catalogue translated,
    people and places transformed): clean 0 findings above note, both kinds caught and located.
    Every file is checked; the behaviour layer replays the tasks the defects touch (the whole domain's
    clean replays are tests/flows/test_adapt_variants.py's)."""
    from flows.pipeline.adapt import adapt

    root = tmp_path_factory.mktemp("canonical-defects-retail")
    ir = analyzed("tau2-retail")
    result = adapt(
        AdaptRequest.of_options("tau2-retail", "en-XA"), settings=BabelflowSettings(project_root=root), ir=ir
    )
    cmap = load_canonical_map(result.paths.canonical_map, "tau2-retail", "en-XA")
    source = get_benchmark("tau2-retail")
    assert any(e.translation_type is TranslationType.TRANSLATE_CANONICAL for e in result.ir.elements)
    planted = {}
    for kind in KINDS:
        work = root / kind
        shutil.copytree(result.paths.variant, work)
        planted[kind] = (work, inject_defect(kind, work, result.ir, random.Random(0)))
    by_id = result.ir.by_id()
    segments = {
        p for _, d in planted.values() for p in getattr(by_id[d.element_id].locator, "path", ()) if isinstance(p, str)
    }
    tasks = sorted({d.task_id for _, d in planted.values() if d.task_id} | _tasks_naming(source, segments))
    assert tasks

    def validate(variant):
        return validate_variant(
            variant_context(source, variant, result.ir, "en-XA", canonical_map=cmap, task_ids=tasks)
        )

    assert _above_note(validate(result.paths.variant)) == []
    for kind, (work, defect) in planted.items():
        failures = validate(work)
        located = [f for f in caught_by(failures, defect) if f.artifact == defect.artifact]
        assert located and located[0].kind == "canonical_inconsistent", (kind, _above_note(failures))
        assert located[0].severity is Severity.CRITICAL and located[0].location.endswith(defect.location)
        if kind == "canonical_db_value_renamed":  # a golden call reads the renamed record
            assert any(f.layer.value == "behavior" for f in failures.findings), (kind, _above_note(failures))
