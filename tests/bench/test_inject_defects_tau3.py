"""The τ³ coupling defects (bench/defects/tau3.py) through the project's own validators, the way
bench/inject_defects.py runs every catalogued kind: planted into a copy of a clean
tau3-banking_knowledge en-XA variant, each is caught by a finding above note that names the file
and the field it was planted in; the clean variant itself has no finding.

Skipped without τ³ (.venv-tau3). Slow: banking's analysis (~1 min warm, a few minutes cold) and
three validations of 97 tasks, 698 documents and their replays."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.console import Console

from bench.defects import CATALOGUE, caught_by
from bench.inject_defects import Prepared
from source_benchmarks import family_of
from validators.findings import Layer, Severity

BENCHMARK = "tau3-banking_knowledge"
KINDS = ("tau3_class_name_renamed_in_data", "tau3_tool_name_translated_in_document")
MISSING = family_of(BENCHMARK).unavailable(BENCHMARK)
pytestmark = [pytest.mark.slow, pytest.mark.skipif(MISSING is not None, reason=f"τ³ not installed: {MISSING}")]


@pytest.fixture(scope="module")
def banking(analyzed, tmp_path_factory) -> Prepared:
    """The clean en-XA variant, built once from the session's IR, with the source replayed once."""
    root = tmp_path_factory.mktemp("tau3-defects")
    return Prepared(BENCHMARK, "en-XA", root, Console(quiet=True), ir=analyzed(BENCHMARK))


def test_the_kinds_are_catalogued_for_banking() -> None:
    assert all(CATALOGUE[kind].benchmarks == (BENCHMARK,) for kind in KINDS)


def test_the_clean_banking_variant_has_no_finding(banking: Prepared) -> None:
    assert [(f.layer.value, f.kind, f.artifact, f.location) for f in banking.clean.findings] == []


@pytest.mark.parametrize("kind", KINDS)
def test_a_planted_coupling_defect_is_caught_and_located(kind: str, banking: Prepared, tmp_path: Path) -> None:
    defect, failures = banking.plant(kind, tmp_path / kind)
    hits = [f for f in caught_by(failures, defect) if f.severity is not Severity.NOTE]
    assert hits, (
        f"{kind} ({defect.description}) not caught at {defect.artifact} {defect.location}; findings: "
        f"{[(f.layer.value, f.kind, f.artifact, f.location) for f in failures.findings][:20]}"
    )
    # located: the file the defect was planted in and the very field
    assert all(f.artifact == defect.artifact and f.element_id == defect.element_id for f in hits)
    assert hits[0].layer is Layer.CONSISTENCY and hits[0].evidence[0].target != hits[0].evidence[0].source
    # a task's behaviour finding names that task's own file (banking keeps one task per file)
    for finding in failures.findings:
        if finding.layer is Layer.BEHAVIOR and finding.task_id is not None:
            assert finding.artifact.endswith(f"/tasks/{finding.task_id}.json"), finding.artifact
    if kind == "tau3_class_name_renamed_in_data":
        # the name tools.py looks data up by: its renamed data fields are defects, not a naming policy
        assert all(f.kind == "preserved_value_changed" and f.evidence[0].detail.get("tool_code_literal") for f in hits)
        assert not any(f.kind == "canonical_rendering_inferred" for f in failures.findings)
        assert any(f.layer is Layer.BEHAVIOR for f in failures.findings)  # its gold calls return something else
