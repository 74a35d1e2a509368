"""The registry of checks and finding kinds: a check declares its kind beside it, the finding is made
from that declaration, one meaning per (layer, name), preconditions decide which layers skip an
artifact integrity could not vouch for."""

from __future__ import annotations

import pytest

from tests.validators.findings_by_hand import a_finding
from validators.checks import CHECKS, Check, check, checks_of
from validators.finding_kinds import (
    PAIRED,
    Layer,
    Precondition,
    Severity,
    declare_kind,
    declared,
    finding_kind,
    layers_needing,
)
from validators.findings import Hit


def test_undeclared_kinds_are_refused_with_the_fix():
    with pytest.raises(ValueError, match="@check"):
        a_finding("probes", Layer.FIDELITY, "tone_shfit", Severity.MAJOR, "a.json", "x", "typo in a kind")


def test_a_kind_belongs_to_its_layer():
    a_finding("probes", Layer.BEHAVIOR, "golden_reward_changed", Severity.CRITICAL, "tasks.json", "task 1", "differs")
    with pytest.raises(ValueError, match="undeclared fidelity"):
        a_finding(
            "probes", Layer.FIDELITY, "golden_reward_changed", Severity.CRITICAL, "tasks.json", "task 1", "differs"
        )


def test_redeclaring_with_another_meaning_is_an_error():
    kind = finding_kind(Layer.FIDELITY, "untranslated")
    assert declare_kind(kind.name, kind.layer, kind.severity, kind.needs, kind.summary) == kind  # same meaning: fine
    with pytest.raises(ValueError, match="declared twice"):
        declare_kind("untranslated", Layer.FIDELITY, Severity.NOTE, kind.needs, kind.summary)


def test_a_finding_is_made_from_its_checks_declaration():
    def doubled_space(ctx, scope):
        yield Hit(artifact="a.json", location="x", message="two spaces")
        yield Hit(artifact="a.json", location="y", message="harmless here", severity=Severity.NOTE)

    try:
        check("test_doubled_space", Layer.FIDELITY, Severity.MINOR, needs=PAIRED, summary="two spaces in a row")(
            doubled_space
        )
        registered = next(c for c in CHECKS if c.function is doubled_space)
        first, second = (registered.finding("probes", hit) for hit in doubled_space(None, None))
        assert (first.layer, first.kind, first.severity) == (Layer.FIDELITY, "test_doubled_space", Severity.MINOR)
        assert second.severity is Severity.NOTE  # a check may lower the default for a harmless case
        assert registered.kinds[0].needs == PAIRED and registered.kinds[0].summary == "two spaces in a row"
    finally:
        CHECKS[:] = [c for c in CHECKS if c.function is not doubled_space]
        declared().pop((Layer.FIDELITY, "test_doubled_space"), None)


def test_a_check_raises_only_the_kinds_it_declares():
    registered = Check(function=lambda ctx, scope: [], kinds=(finding_kind(Layer.FIDELITY, "untranslated"),))
    with pytest.raises(ValueError, match="does not declare"):
        registered.finding("probes", Hit(kind="number_changed", artifact="a.json", location="x", message="m"))


def test_a_declaration_needs_its_layer_severity_and_summary():
    with pytest.raises(ValueError, match="declare its layer"):
        check("test_half_declared", Layer.FIDELITY)


def test_the_layers_run_their_registered_checks_integrity_first():
    names = {layer: [c.name for c in checks_of(layer)] for layer in Layer}
    assert names[Layer.INTEGRITY][0] == "artifact_missing"  # what it finds missing suppresses the rest
    # behaviour: one check a kind (a family's scores beside the golden reward), over replays run once a context
    assert names[Layer.BEHAVIOR] == [
        "harness_crash",
        "task_missing",
        "golden_reward_changed",
        "do_nothing_reward_changed",
        "tool_calls_changed",
        "final_state_changed",
        "tool_output_escaped",
        "initial_state_changed",
        "rendered_output_broken",  # issue 38: what code texts render, read back through them
    ]
    # the pseudo-locale check reads what the pair catalogue found before it (a broken translator's fields)
    assert names[Layer.FIDELITY].index("field_pairs") < names[Layer.FIDELITY].index("pseudo_words_left")
    assert all(c.layer is layer for layer in Layer for c in checks_of(layer))


def test_preconditions_decide_the_skipped_layers():
    # a file that does not parse: nothing field-level or behavioural can be checked on it
    assert layers_needing(Precondition.PARSED) == {Layer.CONSISTENCY, Layer.FIDELITY, Layer.BEHAVIOR}
    # fields no longer paired by position: field checks skip it, replays still run the variant
    assert layers_needing(Precondition.PAIRED) == {Layer.CONSISTENCY, Layer.FIDELITY}
    assert layers_needing(Precondition.LOADS) == {Layer.BEHAVIOR}


def test_every_kind_has_a_summary_and_the_agents_catch_all_on_every_layer():
    kinds = declared()
    assert all(kind.summary for kind in kinds.values())
    assert {layer for layer, name in kinds if name == "reviewer_judgement"} == set(Layer)
    assert kinds[(Layer.CONSISTENCY, "profile_contradicts_evidence")].route == "analysis"
