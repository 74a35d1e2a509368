"""Golden and do-nothing outcomes of a task from ONE environment, for side-by-side equivalence.

The stock evaluator builds three environments per trajectory (ours, predicted, gold), which makes
a full source+target comparison slower than tau2's own replay. Both trajectories are fixed, so
their scores follow from one execution: the state before the gold actions (what a do-nothing
agent leaves) and after them. Each sub-reward below is the one `evaluate_simulation(ALL)`
computes for that trajectory; tests/source_benchmarks/test_tau2_replay.py checks equality against the stock path.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from source_benchmarks.protocol import ReplayOutcome, ToolCallObserver
from source_benchmarks.tau_common.replay import _initial, golden_trajectory, is_replayable


def _assertions(env: Any, task: Any) -> tuple[float, str | None]:
    """ENV_ASSERTION sub-reward on the env's current state (tau2 runs them on the predicted env)."""
    reward = 1.0
    for assertion in (task.evaluation_criteria.env_assertions or []) if task.evaluation_criteria else []:
        try:
            met = env.run_env_assertion(assertion, raise_assertion_error=False)
        except Exception as exc:  # tau2's evaluator crashes here too (mock's assert_task_status)
            return 0.0, f"{type(exc).__name__}: {exc}"
        reward *= 1.0 if met else 0.0
    return reward, None


def _message_rewards(task: Any, messages: list[Any]) -> tuple[float, float]:
    """ACTION and COMMUNICATE need no environment: tau2's own evaluator classes, as they are."""
    from tau2.evaluator.evaluator_action import ActionEvaluator
    from tau2.evaluator.evaluator_communicate import CommunicateEvaluator

    return ActionEvaluator.calculate_reward(
        task=task, full_trajectory=messages
    ).reward, CommunicateEvaluator.calculate_reward(task=task, full_trajectory=messages).reward


def _combine(task: Any, parts: dict[str, float]) -> tuple[float, dict[str, float]]:
    basis = {getattr(b, "value", str(b)) for b in task.evaluation_criteria.reward_basis}
    reward, breakdown = 1.0, {}
    for name in ("DB", "ENV_ASSERTION", "ACTION", "COMMUNICATE"):
        if name in basis:
            breakdown[name] = parts[name]
            reward *= parts[name]
    return reward, breakdown


def _hashes(env: Any) -> tuple[str, str | None]:
    user = env.get_user_db_hash()
    return str(env.get_db_hash()), None if user is None else str(user)


def sets_nothing(task: Any) -> bool:
    """`set_state` leaves a fresh environment as `set_state(None, None, [])` does: no data, no
    initialization actions, no tool call or tool message in the message history."""
    state = task.initial_state
    if state is None:
        return True
    history = state.message_history or []
    return (
        state.initialization_data is None
        and not state.initialization_actions
        and not any(m.role == "tool" or getattr(m, "tool_calls", None) for m in history)
    )


def replay_pair(
    task: Any, env_factory: Callable[..., Any], observer: ToolCallObserver | None = None
) -> tuple[ReplayOutcome, ReplayOutcome]:
    """(golden, do-nothing) outcomes with tool calls, DB hashes and rewards, from one execution."""
    replayable, note = is_replayable(task)
    criteria = task.evaluation_criteria
    _, _, history = _initial(task)
    golden = ReplayOutcome(task_id=task.id, trajectory="golden", replayable=replayable, note=note)
    nothing = ReplayOutcome(task_id=task.id, trajectory="do_nothing", replayable=True)

    def before_actions(env: Any) -> None:
        # a task that sets nothing starts from the factory's untouched state: its hash, once per factory
        known = (
            env_factory.untouched_hashes() if sets_nothing(task) and hasattr(env_factory, "untouched_hashes") else None
        )
        nothing.final_db_sha256, nothing.final_user_db_sha256 = known or _hashes(env)
        if criteria is not None:
            nothing_assert, nothing.evaluator_error = _assertions(env, task)
            before_actions.assert_reward = nothing_assert  # type: ignore[attr-defined]

    messages, records, env = golden_trajectory(task, env_factory, task.id, observer, before_actions=before_actions)
    golden.tool_calls = records
    # no action and no assertion ran since the do-nothing hash: the same state, not hashed again
    untouched = criteria is None or not (criteria.actions or criteria.env_assertions)
    golden.final_db_sha256, golden.final_user_db_sha256 = (
        (nothing.final_db_sha256, nothing.final_user_db_sha256) if untouched else _hashes(env)
    )
    if criteria is None:
        golden.reward = nothing.reward = 1.0
        return golden, nothing
    golden_assert, golden.evaluator_error = _assertions(env, task)
    golden_action, golden_communicate = _message_rewards(task, messages)
    nothing_action, nothing_communicate = _message_rewards(task, history)
    db_same = (
        golden.final_db_sha256 == nothing.final_db_sha256
        and golden.final_user_db_sha256 == nothing.final_user_db_sha256
    )
    if golden.evaluator_error is None:
        golden.reward, golden.reward_breakdown = _combine(
            task,
            {"DB": 1.0, "ENV_ASSERTION": golden_assert, "ACTION": golden_action, "COMMUNICATE": golden_communicate},
        )
    if nothing.evaluator_error is None:
        nothing.reward, nothing.reward_breakdown = _combine(
            task,
            {
                "DB": 1.0 if db_same else 0.0,
                "ENV_ASSERTION": before_actions.assert_reward,  # type: ignore[attr-defined]
                "ACTION": nothing_action,
                "COMMUNICATE": nothing_communicate,
            },
        )
    return golden, nothing
