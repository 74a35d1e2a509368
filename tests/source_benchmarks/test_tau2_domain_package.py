"""A copy of tau2's mock domain renamed into its own package outside tau2's tree is analyzed,
adapted to en-XA and validated with 0 findings, with no edit to babelflow (issue 13)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from babelflow.adapt_request import AdaptRequest
from tests.source_benchmarks.domain_package_copy import build_mock_copy


@pytest.fixture(scope="module")
def package(tmp_path_factory):
    return build_mock_copy(tmp_path_factory.mktemp("domain_packages"), "mock_copy")


def test_domain_package_is_found_by_introspection(package):
    from source_benchmarks import get_benchmark

    bench = get_benchmark("tau2-pkg:mock_copy")
    assert bench.spec.environment_module == "mock_copy.environment"
    assert (
        bench.spec.tools_class == "mock_copy.tools:MockTools" and bench.spec.db_model == "mock_copy.data_model:MockDB"
    )
    # logical paths are tau2's layout; the files are the package's own
    assert (
        bench.artifact_path(next(a for a in bench.artifacts() if a.path.endswith("/db.json")))
        == package / "data" / "db.json"
    )
    assert (
        bench.artifact_path(next(a for a in bench.artifacts() if a.path.endswith("/tools.py"))) == package / "tools.py"
    )
    golden = [pair[0].reward for pair in bench.replay_pairs(bench.task_ids(None))]
    stock = [pair[0].reward for pair in get_benchmark("tau2-mock").replay_pairs()]
    assert golden == stock


def test_analyze_adapt_validate_a_domain_package_with_zero_findings(package, tmp_path, monkeypatch):
    monkeypatch.setenv(
        "BABELFLOW_STATE_DIR", str(tmp_path / "state")
    )  # the commands' IR and caches stay out of the project
    from babelflow.settings import BabelflowSettings
    from flows.cli.app import app
    from flows.pipeline.adapt import adapt

    runner = CliRunner()
    ir_path = tmp_path / "ir.json"
    starter = tmp_path / "starter.toml"
    result = runner.invoke(
        app,
        ["analyze", "tau2", "--domain-package", str(package), "--out", str(ir_path), "--starter-profile", str(starter)],
    )
    assert result.exit_code == 0, result.output
    assert "decided by the profile alone" in result.output
    # the starter profile drafted from the evidence loads and reproduces the evidence's types
    from analyzers.profile import load_profile

    drafted = load_profile("tau2-pkg:mock_copy", starter)
    assert drafted.rules and all(rule.rule.note for rule in drafted.rules)
    from babelflow.ir import load_ir

    ir = load_ir(ir_path, benchmark="tau2-pkg:mock_copy")
    # the package's own tool code went through the code trials too (its id template is read by an env assertion)
    evidence = {entry.id: entry for entry in ir.evidence}
    template = next(e for e in ir.elements if e.locator.kind == "python_literal" and e.source_text.startswith("task_{"))
    assert template.evidence and "create_task_1_with_env_assertions" in evidence[template.evidence].detail, template
    adapted = adapt(
        AdaptRequest.of_options("tau2-pkg:mock_copy", "en-XA", out=tmp_path / "variant"),
        settings=BabelflowSettings(project_root=tmp_path),
        ir=ir,
    )
    assert adapted.outcome.targets
    report = tmp_path / "findings.json"
    result = runner.invoke(
        app,
        [
            "validate",
            "tau2",
            "--domain-package",
            "mock_copy",
            "--lang",
            "en-XA",
            "--variant",
            str(tmp_path / "variant"),
            "--json",
            str(report),
        ],
    )
    assert result.exit_code == 0, result.output
    assert json.loads(report.read_text())["findings"] == []


def test_domain_package_needs_the_tau2_benchmark(package):
    from flows.cli.app import app

    result = CliRunner().invoke(
        app, ["analyze", "tau2-retail", "--domain-package", "mock_copy", "--out", "/tmp/never.json"]
    )
    assert result.exit_code == 2 and "--domain-package" in result.output
