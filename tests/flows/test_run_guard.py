"""A served deployment's run may not name endpoints, paths or code of its own (flows/pipeline/run_guard.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from babelflow.errors import BabelflowError
from babelflow.settings import BabelflowSettings
from flows.pipeline.run_guard import check_deployment_run, check_inside_project


def _settings(tmp_path: Path) -> BabelflowSettings:
    return BabelflowSettings(project_root=tmp_path / "project")


def _field(call) -> str | None:
    with pytest.raises(BabelflowError) as caught:
        call()
    assert caught.value.fix
    return caught.value.field


def test_a_run_may_not_override_what_the_deployment_fixed(tmp_path: Path) -> None:
    settings = _settings(tmp_path)
    deployed = {
        "translator": "pseudo",
        "validators": "",
        "profile": None,
        "source_dir": None,
        "out": None,
        "project_root": None,
    }
    check_deployment_run(dict(deployed), deployed, settings)  # the deployment's own values pass
    assert _field(lambda: check_deployment_run({**deployed, "translator": "auto"}, deployed, settings)) == "translator"
    assert _field(lambda: check_deployment_run({**deployed, "out": "adapted/x"}, deployed, settings)) == "out"


def test_paths_outside_the_project_are_refused_even_through_a_symlink(tmp_path: Path) -> None:
    settings = _settings(tmp_path)
    root = settings.project_root
    (root / "src").mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    (root / "escape").symlink_to(tmp_path / "elsewhere")
    check_inside_project(
        {"source_dir": str(root / "src"), "out": "adapted/tau2-mock/xx", "profile": root / "p.toml"}, settings
    )
    assert _field(lambda: check_inside_project({"out": str(tmp_path / "elsewhere")}, settings)) == "out"
    assert _field(lambda: check_inside_project({"source_dir": "../elsewhere"}, settings)) == "source_dir"
    assert _field(lambda: check_inside_project({"profile": root / "escape" / "p.toml"}, settings)) == "profile"
    assert _field(lambda: check_inside_project({"project_root": str(tmp_path)}, settings)) == "project_root"
    check_inside_project({"project_root": str(root)}, settings)


def test_only_configured_endpoints_may_be_named(tmp_path: Path, monkeypatch) -> None:
    settings = _settings(tmp_path)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    check_inside_project({"translator": "openai:gpt-4o-mini"}, settings)  # the provider's default endpoint
    assert (
        _field(
            lambda: check_inside_project({"translator": "openai:gpt-4o-mini@https://collector.example/v1"}, settings)
        )
        == "translator"
    )
    assert (
        _field(
            lambda: check_inside_project(
                {"validators": "pseudo, anthropic:claude@http://10.0.0.9/v1?timeout=5"}, settings
            )
        )
        == "validators"
    )
    monkeypatch.setenv("OPENAI_COMPATIBLE_BASE_URL", "http://127.0.0.1:8000/v1")
    check_inside_project({"translator": "openai-compatible:local@http://127.0.0.1:8000/v1/"}, settings)


def test_a_domain_package_must_live_in_the_project(tmp_path: Path, monkeypatch) -> None:
    settings = _settings(tmp_path)
    package = settings.project_root / "acme_domain"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    monkeypatch.syspath_prepend(str(settings.project_root))
    check_inside_project({"benchmark": "tau2-pkg:acme_domain"}, settings)
    assert (
        _field(lambda: check_inside_project({"benchmark": "tau2-pkg:json"}, settings)) == "benchmark"
    )  # installed code
    assert _field(lambda: check_inside_project({"benchmark": "tau2-pkg:no_such_module_xyz"}, settings)) == "benchmark"


def test_a_run_request_gets_what_the_deployment_fixed_and_may_not_ask_for_other(tmp_path: Path) -> None:
    from babelflow.adapt_request import AdaptRequest, ApertiumSpec, PseudoSpec
    from flows.pipeline.run_guard import check_against_deployment, deployed_parameters

    settings = _settings(tmp_path)
    fixed = deployed_parameters(AdaptRequest(benchmark="", language="", translator=PseudoSpec(), validators=""))
    assert fixed == {"request": {"translator": {"kind": "pseudo"}}}  # only what differs from the defaults
    run = AdaptRequest(benchmark="fixture-library", language="en-XA")  # leaves the translator at `auto`
    assert check_against_deployment(run, fixed["request"], settings).translator == PseudoSpec()
    other = run.model_copy(update={"translator": ApertiumSpec()})
    assert _field(lambda: check_against_deployment(other, fixed["request"], settings)) == "translator"
    outside = run.model_copy(update={"out": tmp_path / "elsewhere"})
    assert _field(lambda: check_against_deployment(outside, {}, settings)) == "out"
