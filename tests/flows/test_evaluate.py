"""`babelflow evaluate` against a loopback OpenAI-compatible fake (tests/flows/evaluation_fake.py) that
plays the agent from the golden actions and the user from the task's scenario: tau2's own
orchestrator and scorer, the localized agent, user and greeting, pass^k, language consistency."""

from __future__ import annotations

import shutil

import orjson
import pytest
from evaluation_fake import FakeAgentServer

from babelflow.adapt_request import AdaptRequest, AgentRunRequest, EvaluationRequest
from babelflow.settings import BabelflowSettings
from source_benchmarks import get_benchmark, open_variant

pytestmark = pytest.mark.skipif(
    shutil.which("apertium") is None,
    reason="apertium is not installed (scripts/install.sh installs apertium-eng-spa as root; CI does)",
)


@pytest.fixture(scope="module")
def mock_es(tmp_path_factory, analyzed):
    from flows.pipeline.adapt import adapt

    root = tmp_path_factory.mktemp("evaluate")
    settings = BabelflowSettings(project_root=root)
    result = adapt(AdaptRequest.of_options("tau2-mock", "es"), settings=settings, ir=analyzed("tau2-mock"))
    return settings, result.paths.variant


@pytest.fixture(scope="module")
def fake(mock_es):
    _, variant_dir = mock_es
    source, variant = get_benchmark("tau2-mock"), open_variant("tau2-mock", variant_dir)
    tasks = [source.task(t) for t in source.task_ids(None)] + [variant.task(t) for t in variant.task_ids(None)]
    with FakeAgentServer(tasks) as server:
        yield server


def test_scripted_agent_scores_the_same_on_the_variant_as_on_the_source(mock_es, fake):
    from flows.evaluation.evaluate import evaluate, evaluation_path

    settings, variant = mock_es
    report = evaluate(
        AgentRunRequest(
            benchmark="tau2-mock",
            language="es",
            models=EvaluationRequest(
                agent=f"openai-compatible:agent@{fake.url}", user=f"openai-compatible:user@{fake.url}"
            ),
            with_source=True,
        ),
        settings=settings,
    )
    ours = {t.task_id: t.rewards for t in report.variant_run.tasks}
    theirs = {t.task_id: t.rewards for t in report.source_run.tasks}
    assert ours == theirs and len(ours) == 9
    assert sum(r == [1.0] for r in ours.values()) >= 6  # the golden actions, played through tau2's orchestrator
    assert (
        report.variant_run.domain == "mock_es"
        and report.variant_run.agent == "llm_agent_es"
        and report.variant_run.user == "user_simulator_es"
    )
    assert report.variant_run.language_consistency >= 0.6 and report.source_run.language_consistency == 1.0
    saved = orjson.loads(evaluation_path(variant).read_bytes())
    assert saved["schema_version"] == "babelflow.evaluation/2" and saved["variant_run"]["pass_hat_k"] == {
        "1": report.variant_run.pass_hat_k[1]
    }
    stages = {row.stage: row for row in report.costs.rows}
    assert stages["evaluate-agent"].requests > 9 and stages["evaluate-user"].input_tokens > 0
    assert "user" in fake.requests and "agent" in fake.requests  # every model call went to the loopback fake


def test_an_agent_replying_in_english_has_low_language_consistency(mock_es, fake):
    from flows.evaluation.evaluate import evaluate

    settings, _ = mock_es
    report = evaluate(
        AgentRunRequest(
            benchmark="tau2-mock",
            language="es",
            models=EvaluationRequest(
                agent=f"openai-compatible:agent-english@{fake.url}", user=f"openai-compatible:user@{fake.url}"
            ),
            task_ids=["create_task_1", "update_task_1"],
        ),
        settings=settings,
    )
    assert report.variant_run.language_consistency is not None and report.variant_run.language_consistency <= 0.2
    assert all(trial.agent_reply_languages.get("en", 0) >= 1 for trial in report.variant_run.trials)
    assert [t.rewards for t in report.variant_run.tasks] == [[1.0], [1.0]]  # scoring does not depend on the language


def test_the_orchestrator_greets_in_the_variants_language(mock_es, fake):
    from babelflow.llm.costs import CostLedger
    from babelflow.variant import OVERLAY_NAME, load_overlay
    from flows.evaluation.agent_models import ProviderChatModel
    from source_benchmarks.tau_common.evaluation import Players, default_greeting, run_trial
    from source_benchmarks.tau_common.registration import register_variant

    _, variant_dir = mock_es
    domain = register_variant(variant_dir)
    variant = open_variant("tau2-mock", variant_dir)
    overlay = load_overlay(variant_dir / OVERLAY_NAME)
    greeting = overlay.translated("orchestrator/orchestrator.py", default_greeting()) if overlay else None
    assert greeting and greeting != default_greeting()
    ledger = CostLedger()
    agent = ProviderChatModel(
        f"openai-compatible:agent@{fake.url}", field="--agent-llm", stage="evaluate-agent", language="es", costs=ledger
    )
    user = ProviderChatModel(
        f"openai-compatible:user@{fake.url}", field="--user-llm", stage="evaluate-user", language="es", costs=ledger
    )
    simulation, unscored = run_trial(
        domain,
        variant.task("create_task_1"),
        Players(agent_name="llm_agent_es", user_name="user_simulator_es", agent=agent, user=user),
        greeting=greeting,
        seed=0,
    )
    assert simulation.messages[0].content == greeting and simulation.reward_info.reward == 1.0
    assert unscored == []  # the mock task's basis needs no judge model
    # the module constant is untouched: the English source still greets in English
    from tau2.orchestrator.orchestrator import DEFAULT_FIRST_AGENT_MESSAGE

    assert DEFAULT_FIRST_AGENT_MESSAGE.content == "Hi! How can I help you today?"


def test_cli_reports_pass_hat_k_and_saves_json(mock_es, fake, monkeypatch):
    from typer.testing import CliRunner

    from flows.cli.app import app

    settings, variant = mock_es
    monkeypatch.chdir(settings.project_root)
    monkeypatch.setenv("BABELFLOW_PROJECT_ROOT", str(settings.project_root))
    result = CliRunner().invoke(
        app,
        [
            "evaluate",
            "tau2-mock",
            "--lang",
            "es",
            "--agent-llm",
            f"openai-compatible:agent@{fake.url}",
            "--user-llm",
            f"openai-compatible:user@{fake.url}",
            "--trials",
            "2",
            "--tasks",
            "create_task_1,update_task_1",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "pass^" in result.output and "es.evaluation.json" in result.output.replace("\n", "")
    saved = orjson.loads((variant.parent / "es.evaluation.json").read_bytes())
    assert saved["variant_run"]["pass_hat_k"] == {"1": 1.0, "2": 1.0} and saved["trials_per_task"] == 2
    missing = CliRunner().invoke(
        app,
        [
            "evaluate",
            "tau2-mock",
            "--lang",
            "es",
            "--agent-llm",
            f"openai-compatible:agent@{fake.url}",
            "--user-llm",
            f"openai-compatible:user@{fake.url}",
            "--tasks",
            "nope",
        ],
    )
    assert missing.exit_code == 2 and "Unknown task id" in missing.output


def test_pass_hat_k():
    from flows.evaluation.report import pass_hat_k

    assert pass_hat_k([2, 1, 0], 2) == {1: 0.5, 2: 1 / 3}


def test_a_task_scored_by_an_nl_judge_is_scored_on_its_other_bases_and_says_so():
    """SEATau's retail tasks (τ³'s) score DB and NL_ASSERTION; tau2 with EvaluationType.ALL refused them
    ("NL assertions are part of the reward basis, but they are not being evaluated") and `babelflow evaluate`
    ended in a traceback. Without a judge model the other bases are scored and NL_ASSERTION is reported."""
    import gzip
    import json
    from pathlib import Path

    from tau2.data_model.tasks import Task

    from source_benchmarks.tau_common.evaluation import judged_offline

    raw = json.loads(gzip.open(Path(__file__).parents[1] / "data" / "seatau" / "en.tasks.json.gz").read())
    task = Task.model_validate(next(t for t in raw if "NL_ASSERTION" in t["evaluation_criteria"]["reward_basis"]))
    scored, unscored = judged_offline(task)
    assert unscored == ["NL_ASSERTION"]
    assert [b.value for b in scored.evaluation_criteria.reward_basis] == ["DB"]
    assert "NL_ASSERTION" in [b.value for b in task.evaluation_criteria.reward_basis]  # the task itself unchanged
    plain = Task.model_validate(next(t for t in raw if t["evaluation_criteria"]["reward_basis"] == ["DB"]))
    assert judged_offline(plain) == (plain, [])
