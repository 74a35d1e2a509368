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
