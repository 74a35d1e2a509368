"""Without τ³'s environment, every tau3-* id is refused with the install command (exit 2), before any
work, and the other families are untouched. Runs always (it points the runtime at an empty folder)."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from babelflow.errors import BabelflowError
from flows.cli.app import app
from source_benchmarks.registry import family_of, get_benchmark, resolve_benchmark
from source_benchmarks.tau3.domains import TAU3_DOMAINS
from source_benchmarks.tau3.runtime import ENV_VARIABLE, INSTALL_COMMAND, forget_runtime


@pytest.fixture
def no_tau3(tmp_path, monkeypatch):
    monkeypatch.setenv(ENV_VARIABLE, str(tmp_path / "no-venv-tau3"))
    forget_runtime()
    yield tmp_path
    forget_runtime()


def test_every_tau3_id_belongs_to_the_family_and_is_refused(no_tau3):
    assert set(family_of("tau3-retail").benchmark_ids()) == set(TAU3_DOMAINS)
    for benchmark in TAU3_DOMAINS:
        with pytest.raises(BabelflowError) as caught:
            resolve_benchmark(benchmark)
        assert "τ³ not installed" in caught.value.message and caught.value.fix == INSTALL_COMMAND
    with pytest.raises(BabelflowError, match="τ³ not installed"):
        get_benchmark("tau3-banking_knowledge")
    assert get_benchmark("tau2-mock").id == "tau2-mock"  # nothing else changes


@pytest.mark.parametrize(
    "command",
    [
        ["analyze", "tau3-banking_knowledge", "--out", "ir.json"],
        ["adapt", "tau3-retail", "--lang", "en-XA"],
        ["validate", "tau3-retail", "--lang", "vi"],
        ["flow", "tau3-airline", "--lang", "es"],
    ],
)
def test_the_cli_refuses_with_the_install_command(no_tau3, command):
    result = CliRunner().invoke(
        app, command, env={"BABELFLOW_PROJECT_ROOT": str(no_tau3 / "project"), "COLUMNS": "300"}
    )
    assert result.exit_code == 2, result.output
    assert "τ³ not installed" in result.output and INSTALL_COMMAND in result.output
    assert "Traceback" not in result.output
    assert not (no_tau3 / "project" / "adapted").exists()


def test_an_unfinished_install_is_not_installed(no_tau3, monkeypatch):
    """A folder with an interpreter but no install record (the install failed half-way) is refused too."""
    env = no_tau3 / "half"
    (env / "bin").mkdir(parents=True)
    (env / "bin" / "python").write_text("")
    monkeypatch.setenv(ENV_VARIABLE, str(env))
    forget_runtime()
    assert family_of("tau3-mock").unavailable("tau3-mock") is not None
