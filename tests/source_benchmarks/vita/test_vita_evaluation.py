"""Agents on VitaBench through its own orchestrator and judge (`babelflow evaluate vita-*`), on its packaged
source; the judge is a loopback fake (judge_fake.py). The variant side is in test_vita_variant.py (slow).
Skipped without VitaBench."""

from __future__ import annotations

import pytest
from judge_fake import FakeJudgeServer

from babelflow.adapt_request import EvaluationRequest
from babelflow.errors import BabelflowError
from babelflow.llm.costs import CostLedger
from flows.evaluation.agent_models import ProviderChatModel
from flows.evaluation.evaluate import check_models
from source_benchmarks.agent_runs import TrialSpec
from source_benchmarks.registry import families, get_benchmark
from source_benchmarks.scripted_models import ScriptedAgent, ScriptedUser
from source_benchmarks.vita.runtime import INSTALL_COMMAND, find_runtime

RUNTIME = find_runtime()
pytestmark = pytest.mark.skipif(isinstance(RUNTIME, str), reason=f"VitaBench not installed: {INSTALL_COMMAND}")


@pytest.fixture(scope="module")
def runner():
    from source_benchmarks.vita.evaluation import AGENT_EVALUATION

    return AGENT_EVALUATION


@pytest.fixture
def judge_server():
    with FakeJudgeServer() as server:
        yield server


def _judge(server: FakeJudgeServer, model: str = "judge") -> ProviderChatModel:
    return ProviderChatModel(
        f"openai-compatible:{model}@{server.url}",
        field="--judge-llm",
        stage="evaluate-judge",
        language="en",
        costs=CostLedger(),
    )


def _scripted_trial(runner, run, task_id: str, judge=None):
    script = runner.gold_script(run, task_id)
    record = runner.run_trial(run, TrialSpec(task_id=task_id), ScriptedAgent(script), ScriptedUser(script), judge=judge)
    return script, record


@pytest.mark.parametrize("benchmark", ["vita-instore", "vita-delivery"])
def test_a_scripted_agent_makes_every_scripted_call_and_no_judge_scores_it(runner, benchmark):
    run = runner.prepare(benchmark, families()["vita"].source_language_of(benchmark), None)
    task_id = run.task_ids[1]
    script, record = _scripted_trial(runner, run, task_id)
    made = [call for turn in record.turns if turn.role == "agent" for call in turn.tool_calls]
    assert [c.name for c in made] == [c.name for c in script.calls] and len(made) >= 5
    writes = {"create_delivery_order", "create_instore_product_order", "instore_book", "instore_reservation"}
    assert writes & {c.name for c in made}  # the writes its required orders imply, made through VitaBench's tools
    # a follow-up names the order VitaBench created: the clock is pinned to the task's time as in the probe
    assert not [t for t in record.turns if t.role == "tool" and t.tool_error]
    assert record.reward is None and record.unscored == ["NL_ASSERTION"]
    assert record.termination == "user_stop"
    assert record.turns[0].role == "agent" and not record.turns[0].model_made  # VitaBench's greeting


def test_the_judge_reads_the_tasks_rubrics_and_vitabench_scores_its_verdict(runner, judge_server):
    run = runner.prepare("vita-instore", "en", None)
    task_id = run.task_ids[0]
    task = get_benchmark("vita-instore").task(task_id)
    criteria = task.evaluation_criteria
    rubrics = {r for state in criteria.expected_states for r in state.state_rubrics} | set(
        criteria.overall_rubrics or []
    )
    _, passed = _scripted_trial(runner, run, task_id, judge=_judge(judge_server))
    assert passed.reward == 1.0 and passed.unscored == []
    assert set(judge_server.rubrics_seen) == rubrics and not judge_server.refused
    assert "User Complete Instruction" in judge_server.system_prompts[0]  # VitaBench's own English template
    _, failed = _scripted_trial(runner, run, task_id, judge=_judge(judge_server, "judge-strict"))
    assert failed.reward == 0.0  # one rubric not met: VitaBench's all-or-nothing reward, from the judge's JSON


def test_a_judge_is_refused_where_the_harness_scores_without_one_and_a_scripted_judge_everywhere():
    with pytest.raises(BabelflowError) as refused:
        check_models(EvaluationRequest(agent="scripted", user="scripted", judge="openai:gpt-4o"), "tau2-retail", "es")
    assert refused.value.field == "--judge-llm" and "without a judge" in str(refused.value)
    with pytest.raises(BabelflowError) as scripted:
        check_models(EvaluationRequest(agent="scripted", user="scripted", judge="scripted"), "vita-instore", "es")
    assert "cannot be scripted" in str(scripted.value)
