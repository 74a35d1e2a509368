"""`babelflow flow --pool`: refused before any work without shared state; provider limits parsed strictly."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from typer.testing import CliRunner

from babelflow.errors import BabelflowError
from flows.cli.app import app
from flows.pipeline.shared_run import parse_provider_limits, providers_of


def test_pool_without_shared_state_is_refused_before_any_work(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    for name in ("BABELFLOW_SHARED_OBJECTS", "BABELFLOW_SHARED_DATABASE", "PREFECT_API_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("BABELFLOW_PROJECT_ROOT", str(tmp_path))
    result = CliRunner().invoke(app, ["flow", "tau2-mock", "--lang", "en-XA", "--pool", "p"], env={"COLUMNS": "300"})
    assert result.exit_code == 2
    assert "--pool needs shared state" in result.output and "BABELFLOW_SHARED_OBJECTS" in result.output
    assert not (tmp_path / ".babelflow" / "prefect" / "server.json").exists()  # no server was started


def test_provider_limits() -> None:
    assert parse_provider_limits(["openai=4", "anthropic=1"]) == {"openai": 4, "anthropic": 1}
    for bad in ("openai", "openai=0", "=3", "openai=x"):
        with pytest.raises(BabelflowError, match="PROVIDER=N"):
            parse_provider_limits([bad])


def test_the_stages_that_hold_a_provider_slot() -> None:
    run = SimpleNamespace(translator_spec="openai:gpt-4o-mini", validators="anthropic:claude-x,backtranslation")
    assert providers_of(run, "translate") == ["openai"]  # type: ignore[arg-type]
    assert providers_of(run, "validate") == ["anthropic"]  # type: ignore[arg-type]
    assert providers_of(run, "analyze") == []  # type: ignore[arg-type]
    offline = SimpleNamespace(translator_spec="apertium", validators="")
    assert providers_of(offline, "translate") == []  # type: ignore[arg-type]


def _submitted_with_pool(monkeypatch: pytest.MonkeyPatch, tmp_path, args: list[str]) -> tuple[dict, dict]:
    """Run `babelflow flow ... --pool p` up to what reaches Prefect (no server, no worker): returns the
    deployment `prepare_pool` declared (its keyword arguments) and the parameters of the first run submitted."""
    import flows.pipeline.pools as pools
    import flows.server.local_server as local_server
    from babelflow.shared_state import config as shared_config
    from flows.pipeline.flow_results import AdaptFlowResult

    monkeypatch.setenv("BABELFLOW_PROJECT_ROOT", str(tmp_path))
    monkeypatch.setattr(shared_config, "require_shared_config", lambda: SimpleNamespace())
    monkeypatch.setattr(local_server, "ensure_server", lambda settings: ("http://127.0.0.1:1/api", None))
    declared: dict = {}
    submitted: list[dict] = []

    def prepare(pool, parameters, provider_limits, config, **options):
        declared.update(parameters=parameters, **options)
        return "adapt-language/p"

    def run_deployment(name, parameters, **_):
        submitted.append(parameters)
        return SimpleNamespace(id="run-1")

    def wait(runs, resubmit, config, benchmark, **_):
        return {lang: None for lang in runs}, {lang: SimpleNamespace() for lang in runs}

    monkeypatch.setattr(pools, "prepare_pool", prepare)
    monkeypatch.setattr(pools, "require_shared_config", lambda: SimpleNamespace())
    monkeypatch.setattr(pools, "run_deployment", run_deployment)
    monkeypatch.setattr(pools, "wait_for_runs", wait)
    monkeypatch.setattr(
        pools,
        "outcome",
        lambda state: AdaptFlowResult(
            benchmark="tau2-mock", language="en-XA", status="signed", rounds=[], open_findings=[],
            variant_dir=tmp_path,
        ),
    )  # fmt: skip
    result = CliRunner().invoke(app, ["flow", "tau2-mock", "--lang", "en-XA", "--pool", "p", *args])
    assert result.exit_code == 0, result.output
    return declared, submitted[0]


def test_pool_runs_get_every_option_the_command_checked(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    """Issue 37: --profile, --source-dir and the evaluation options were checked, then not forwarded to
    the pool's runs (which ran with the packaged profile and no evaluation); --max-concurrency bounds
    the runs of the pool's deployment."""
    from source_benchmarks import get_benchmark
    from translators.rebuild import source_folders

    profile = tmp_path / "profile.toml"
    profile.write_text("")
    source_dir = source_folders(get_benchmark("tau2-mock"))[0][0]
    declared, run = _submitted_with_pool(
        monkeypatch,
        tmp_path,
        ["--profile", str(profile), "--source-dir", str(source_dir), "--evaluate-agent", "scripted",
         "--evaluate-user", "scripted", "--evaluate-trials", "3", "--max-concurrency", "5"],
    )  # fmt: skip
    from babelflow.adapt_request import AdaptRequest

    asked = AdaptRequest.model_validate({**declared["parameters"], **run}["request"])  # what the flow run gets
    assert asked.profile == profile and asked.source_dir == source_dir
    assert (asked.evaluation.agent, asked.evaluation.user, asked.evaluation.trials) == ("scripted", "scripted", 3)
    assert declared["parameters"]["request"]["profile"] == str(profile)  # fixed by the deployment too
    assert declared.get("concurrency_limit") == 5


def test_without_max_concurrency_the_pools_deployment_runs_as_many_as_its_workers_take(
    monkeypatch: pytest.MonkeyPatch, tmp_path
) -> None:
    declared, _ = _submitted_with_pool(monkeypatch, tmp_path, [])
    assert declared.get("concurrency_limit") is None
