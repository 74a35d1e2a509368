"""Issue 38's planted kinds (bench/defects/code_slots.py), caught at the code text and critical: a translated
slot expression, a dropped slot, a swapped pair of slots and a translated key the judge's code parses.
τ² mock and AgentDojo travel here, in en-XA; `python -m bench.inject_defects --lang es --kinds ...
--on tau2-telecom,agentdojo-travel,tau3-banking_knowledge` runs them on the three families in Spanish."""

from __future__ import annotations

import pytest
from rich.console import Console

from bench.defects import caught_by
from bench.inject_defects import Prepared
from validators.findings import Severity


@pytest.fixture(scope="module")
def mock_en_xa(tmp_path_factory, analyzed):
    root = tmp_path_factory.mktemp("slot-defects-mock")
    return Prepared("tau2-mock", "en-XA", root, Console(quiet=True), ir=analyzed("tau2-mock"))


@pytest.fixture(scope="module")
def travel_en_xa(tmp_path_factory, analyzed):
    root = tmp_path_factory.mktemp("slot-defects-travel")
    return Prepared("agentdojo-travel", "en-XA", root, Console(quiet=True), ir=analyzed("agentdojo-travel"))


def _critical_at_the_text(prepared: Prepared, kind: str, tmp_path) -> None:
    assert [f for f in prepared.clean.findings if f.severity is not Severity.NOTE] == []
    defect, failures = prepared.plant(kind, tmp_path / kind)
    hits = [f for f in caught_by(failures, defect) if f.kind == "code_slot_changed"]
    assert hits, f"{kind} missed: {[(f.kind, f.location) for f in failures.findings]}"
    assert all(f.severity is Severity.CRITICAL and f.location == defect.location for f in hits)


@pytest.mark.parametrize("kind", ["code_slot_expression_translated", "code_slot_dropped", "parsed_key_translated"])
def test_mock(mock_en_xa, kind, tmp_path):
    _critical_at_the_text(mock_en_xa, kind, tmp_path)


@pytest.mark.parametrize("kind", ["code_slots_swapped", "code_slot_expression_translated"])
def test_agentdojo_travel(travel_en_xa, kind, tmp_path):
    _critical_at_the_text(travel_en_xa, kind, tmp_path)
