"""A family's capabilities are typed hooks (source_benchmarks/family.py): what each built-in family
provides, the views the engines ask for, and the code version that keys the analysis cache."""

from __future__ import annotations

from pathlib import Path

import pytest

from analyzers import trace_cache
from source_benchmarks.family import FamilyOption, files_version
from source_benchmarks.registry import families, family_of, get_benchmark


def test_each_built_in_family_declares_its_hooks():
    declared = {name: family.hooks() for name, family in families().items() if name != "toy"}
    assert declared == {
        "agentdojo": ("perturbation", "behaviour scores", "agent evaluation", "formatted data"),
        "fixture": (),
        "tau2": ("traced replay", "code trials", "replay memo", "agent evaluation"),
        "tau3": ("traced replay", "agent evaluation"),
        "vita": ("traced replay", "agent evaluation"),
    }
    options = {name: family.options for name, family in families().items() if name != "toy"}
    assert options == {
        "agentdojo": frozenset({FamilyOption.VERSION}),
        "fixture": frozenset(),
        "tau2": frozenset({FamilyOption.DOMAIN_PACKAGE}),
        "tau3": frozenset(),
        "vita": frozenset(),
    }
    languages = {name: {f.source_language_of(i) for i in f.benchmark_ids()} for name, f in families().items()}
    assert languages.pop("vita") == {"en", "zh"}  # VitaBench's delivery is Chinese, its instore English
    assert set().union(*(v for name, v in languages.items() if name != "toy")) == {"en"}


def test_a_view_hook_answers_for_its_own_adapter_only():
    mock, fixture = get_benchmark("tau2-mock"), get_benchmark("fixture-library")
    tau2 = family_of("tau2-mock")
    assert tau2.traced_replay(mock) is mock and tau2.code_trials(mock) is mock
    assert tau2.traced_replay(fixture) is None and tau2.code_trials(fixture) is None
    assert family_of("fixture-library").traced_replay(fixture) is None
    assert tau2.replay_memo() is not None and family_of("fixture-library").replay_memo() is None
    assert family_of("fixture-library").behaviour_scores() is None


def test_the_family_code_version_keys_the_analysis_cache(monkeypatch):
    """An edit to a family's replay code (its code_version) never reads an observation the old code made."""
    bench = get_benchmark("tau2-mock")
    tau2 = type(family_of("tau2-mock"))
    before = trace_cache.cache_key(bench, "trace")
    assert before == trace_cache.cache_key(bench, "trace")
    monkeypatch.setattr(tau2, "code_version", lambda self: "edited")
    assert trace_cache.cache_key(bench, "trace") != before


def test_files_version_follows_the_contents(tmp_path: Path):
    (tmp_path / "a.py").write_text("x = 1\n")
    first = files_version(tmp_path, ("a.py", "missing.py"))
    assert first == files_version(tmp_path, ("a.py",))  # a missing file counts as empty
    (tmp_path / "a.py").write_text("x = 2\n")
    assert files_version(tmp_path, ("a.py", "missing.py")) != first


@pytest.mark.parametrize("family", ["tau2", "tau3"])
def test_the_tau_families_version_their_replay_code(family):
    assert len(families()[family].code_version()) >= 32


def test_a_family_option_goes_to_the_family_that_declares_it(monkeypatch):
    from babelflow.errors import BabelflowError
    from source_benchmarks.registry import resolve_benchmark

    assert resolve_benchmark("agentdojo-travel", version="v1.1.1") == "agentdojo-travel@v1.1.1"
    with pytest.raises(BabelflowError, match="--version applies to AgentDojo"):
        resolve_benchmark("tau2-mock", version="v1.1.1")
    monkeypatch.setattr(type(families()["agentdojo"]), "options", frozenset())
    with pytest.raises(BabelflowError, match="--version is not taken by any installed benchmark family"):
        resolve_benchmark("agentdojo-travel", version="v1.1.1")
