"""The registry of finding kinds: closed, one meaning per (layer, name), preconditions that decide
which layers skip an artifact integrity could not vouch for."""

from __future__ import annotations

import pytest

from validators.finding_kinds import KINDS, Layer, Precondition, Severity, finding_kind, layers_needing, register_kind
from validators.findings import make_finding


def test_undeclared_kinds_are_refused_with_the_fix():
    with pytest.raises(ValueError, match="register_kind"):
        make_finding("probes", Layer.FIDELITY, "tone_shfit", Severity.MAJOR, "a.json", "x", "typo in a kind")


def test_a_kind_belongs_to_its_layer():
    make_finding(
        "probes", Layer.BEHAVIOR, "golden_reward_changed", Severity.CRITICAL, "tasks.json", "task 1", "reward differs"
    )
    with pytest.raises(ValueError, match="undeclared fidelity"):
        make_finding(
            "probes",
            Layer.FIDELITY,
            "golden_reward_changed",
            Severity.CRITICAL,
            "tasks.json",
            "task 1",
            "reward differs",
        )


def test_redeclaring_with_another_meaning_is_an_error():
    kind = finding_kind(Layer.FIDELITY, "untranslated")
    assert register_kind(kind.name, kind.layer, kind.severity, kind.needs, kind.summary) == kind  # same meaning: fine
    with pytest.raises(ValueError, match="declared twice"):
        register_kind("untranslated", Layer.FIDELITY, Severity.NOTE, kind.needs, kind.summary)


def test_preconditions_decide_the_skipped_layers():
    # a file that does not parse: nothing field-level or behavioural can be checked on it
    assert layers_needing(Precondition.PARSED) == {Layer.CONSISTENCY, Layer.FIDELITY, Layer.BEHAVIOR}
    # fields no longer paired by position: field checks skip it, replays still run the variant
    assert layers_needing(Precondition.PAIRED) == {Layer.CONSISTENCY, Layer.FIDELITY}
    assert layers_needing(Precondition.LOADS) == {Layer.BEHAVIOR}


def test_every_kind_has_a_summary_and_the_agents_catch_all_on_every_layer():
    assert all(kind.summary for kind in KINDS.values())
    assert {layer for layer, name in KINDS if name == "reviewer_judgement"} == set(Layer)
