"""Golden and do-nothing replays through the adapter score exactly as tau2-bench's own evaluator."""

from __future__ import annotations

from collections import Counter

import pytest

from babelflow.errors import BabelflowError
from source_benchmarks import benchmarks_of, get_benchmark
from source_benchmarks.tau_common.replay import golden_trajectory

TAU2_BENCHMARKS = benchmarks_of("tau2")

TASKS = {"tau2-mock": 9, "tau2-retail": 114, "tau2-airline": 50, "tau2-telecom": 2285}
# measured on the stock package before this project (do-nothing trajectories that score 1.0)
DO_NOTHING_PASSES = {"tau2-mock": 1, "tau2-airline": 19, "tau2-retail": 7, "tau2-telecom": 0}
GOLD_TOOL_ERRORS = {"tau2-mock": 0, "tau2-airline": 0, "tau2-retail": 23, "tau2-telecom": 0}


@pytest.mark.parametrize("benchmark_id", TAU2_BENCHMARKS)
def test_every_task_golden_and_do_nothing(benchmark_id, source_pairs):
    pairs = source_pairs(benchmark_id)
    assert len(pairs) == TASKS[benchmark_id]
    golden = [g for g, _ in pairs.values()]
    nothing = [n for _, n in pairs.values()]
    not_replayable = [g.task_id for g in golden if not g.replayable]
    assert not_replayable == (["update_task_with_history_and_env_assertions"] if benchmark_id == "tau2-mock" else [])
    assert all(g.reward == 1.0 for g in golden if g.replayable)
    assert [g.reward for g in golden if not g.replayable] == [0.0] * len(not_replayable)
    assert sum(len(g.tool_error_sequence) for g in golden) == GOLD_TOOL_ERRORS[benchmark_id]
    assert sum(n.reward == 1.0 for n in nothing) == DO_NOTHING_PASSES[benchmark_id]
    # mock's assert_task_status raises on a state without task_2 instead of returning False
    assert sum(n.evaluator_error is not None for n in nothing) == (1 if benchmark_id == "tau2-mock" else 0)


def test_telecom_base_split():
    bench = get_benchmark("tau2-telecom")
    base = bench.task_ids("base")
    assert len(base) == 114 and set(base) <= set(bench.task_ids(None))
    with pytest.raises(BabelflowError, match="Unknown split"):
        bench.task_ids("nope")


SAMPLES = {"tau2-mock": 1, "tau2-retail": 12, "tau2-airline": 12, "tau2-telecom": 60}


@pytest.mark.parametrize("benchmark_id", TAU2_BENCHMARKS)
def test_scores_equal_the_stock_evaluate_simulation(benchmark_id, source_pairs):
    """Both our paths (3-env evaluator classes, 1-env paired replay) vs tau2's evaluate_simulation via its registry."""
    from tau2.data_model.simulation import SimulationRun, TerminationReason
    from tau2.evaluator.evaluator import EvaluationType, evaluate_simulation

    bench = get_benchmark(benchmark_id)
    ids = bench.task_ids(None)[:: SAMPLES[benchmark_id]]
    pairs = source_pairs(benchmark_id)
    domain = benchmark_id.removeprefix("tau2-")
    outcomes = Counter()
    for task_id in ids:
        task = bench.task(task_id)
        messages, _, _ = golden_trajectory(task, bench.environment_factory, task_id, None)
        run = SimulationRun(
            id="r",
            task_id=task_id,
            start_time="",
            end_time="",
            duration=0.0,
            termination_reason=TerminationReason.AGENT_STOP,
            messages=messages,
        )
        stock = evaluate_simulation(run, task, EvaluationType.ALL, solo_mode=False, domain=domain).reward
        ours = bench.replay_golden([task_id])[0].reward
        fast_golden, fast_nothing = pairs[task_id]
        assert stock == ours == fast_golden.reward, task_id
        history = list(task.initial_state.message_history or []) if task.initial_state else []
        try:
            stock_nothing = evaluate_simulation(
                run.model_copy(update={"messages": history}), task, EvaluationType.ALL, solo_mode=False, domain=domain
            ).reward
        except ValueError:  # mock's assert_task_status raises on a state without the task
            stock_nothing = "crash"
        assert stock_nothing == (fast_nothing.reward if fast_nothing.evaluator_error is None else "crash"), task_id
        outcomes[(stock, stock_nothing)] += 1
    assert sum(outcomes.values()) == len(ids)
