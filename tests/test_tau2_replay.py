"""Golden and do-nothing replays through the adapter score exactly as tau2-bench's own evaluator."""

from __future__ import annotations

from collections import Counter

import pytest

from source_benchmarks import get_benchmark
from source_benchmarks.tau2.replay import golden_trajectory, replay_do_nothing_task

# measured in tau2-facts.md §3 on the stock package: do-nothing trajectories that score 1.0
DO_NOTHING_PASSES = {"tau2-mock": 1, "tau2-airline": 19, "tau2-retail": 7, "tau2-telecom": 0}
RETAIL_GOLD_TOOL_ERRORS = 23


@pytest.mark.parametrize("benchmark_id", ["tau2-mock", "tau2-retail", "tau2-airline", "tau2-telecom"])
def test_golden_replay_of_every_task_scores_one(benchmark_id):
    bench = get_benchmark(benchmark_id)
    ids = bench.task_ids(None)
    outcomes = bench.replay_golden(ids)
    assert len(outcomes) == len(ids) == {"tau2-mock": 9, "tau2-retail": 114, "tau2-airline": 50, "tau2-telecom": 2285}[benchmark_id]
    not_replayable = [o.task_id for o in outcomes if not o.replayable]
    if benchmark_id == "tau2-mock":
        assert not_replayable == ["update_task_with_history_and_env_assertions"]
    else:
        assert not_replayable == []
    assert all(o.reward == 1.0 for o in outcomes if o.replayable), [o.task_id for o in outcomes if o.replayable and o.reward != 1.0]
    assert all(o.evaluator_error is None for o in outcomes)
    errors = sum(len(o.tool_error_sequence) for o in outcomes)
    assert errors == (RETAIL_GOLD_TOOL_ERRORS if benchmark_id == "tau2-retail" else 0)


@pytest.mark.parametrize("benchmark_id", ["tau2-mock", "tau2-retail", "tau2-airline"])
def test_do_nothing_rewards_match_the_measured_baseline(benchmark_id):
    outcomes = get_benchmark(benchmark_id).run_do_nothing()
    assert sum(o.reward == 1.0 for o in outcomes) == DO_NOTHING_PASSES[benchmark_id]
    crashed = [o for o in outcomes if o.evaluator_error]
    # mock's assert_task_status raises on an empty trajectory instead of returning False
    assert len(crashed) == (1 if benchmark_id == "tau2-mock" else 0)


def test_telecom_base_split_and_do_nothing():
    bench = get_benchmark("tau2-telecom")
    base = bench.task_ids("base")
    assert len(base) == 114 and set(base) <= set(bench.task_ids(None))
    outcomes = bench.run_do_nothing(base)
    assert Counter(o.reward for o in outcomes) == Counter({0.0: 114})


@pytest.mark.parametrize("benchmark_id,sample", [("tau2-mock", None), ("tau2-retail", 10), ("tau2-airline", 4), ("tau2-telecom", 40)])
def test_scores_equal_the_stock_evaluate_simulation(benchmark_id, sample):
    """Same trajectories scored by tau2.evaluator.evaluator.evaluate_simulation via tau2's registry."""
    from tau2.data_model.simulation import SimulationRun, TerminationReason
    from tau2.evaluator.evaluator import EvaluationType, evaluate_simulation

    bench = get_benchmark(benchmark_id)
    ids = bench.task_ids(None)
    ids = ids if sample is None else ids[:: max(1, len(ids) // sample)]
    domain = benchmark_id.removeprefix("tau2-")
    compared = 0
    for task_id in ids:
        task = bench.task(task_id)
        ours = bench.replay_golden([task_id])[0]
        messages, _, _ = golden_trajectory(task, bench.environment_factory, task_id, None)
        run = SimulationRun(
            id=f"replay-{task_id}", task_id=task_id, start_time="", end_time="", duration=0.0,
            termination_reason=TerminationReason.AGENT_STOP, messages=messages,
        )
        stock = evaluate_simulation(run, task, EvaluationType.ALL, solo_mode=False, domain=domain)
        assert stock.reward == ours.reward, task_id
        nothing = replay_do_nothing_task(task, bench.environment_factory)
        if nothing.evaluator_error is None:
            empty = run.model_copy(update={"messages": list(task.initial_state.message_history or []) if task.initial_state else []})
            assert evaluate_simulation(empty, task, EvaluationType.ALL, solo_mode=False, domain=domain).reward == nothing.reward, task_id
        compared += 1
    assert compared == len(ids)
