"""Fixed trajectories (golden, do-nothing) run through tau2's environment and scored by its evaluators.

Scoring mirrors `tau2.evaluator.evaluator.evaluate_simulation(..., EvaluationType.ALL)` using the
same three evaluator classes, without importing `tau2.registry` (which pulls litellm and a network
fetch). tests/source_benchmarks/test_tau2_replay.py checks the combination against the stock function.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from loguru import logger

from babelflow.errors import BabelflowError
from source_benchmarks.protocol import ReplayOutcome, ToolCallObserver, ToolCallRecord


def _tau2():
    from tau2.data_model.message import AssistantMessage, ToolCall, UserMessage
    from tau2.data_model.tasks import RewardType
    from tau2.environment.toolkit import ToolType
    from tau2.evaluator.evaluator_action import ActionEvaluator
    from tau2.evaluator.evaluator_communicate import CommunicateEvaluator
    from tau2.evaluator.evaluator_env import EnvironmentEvaluator

    return (
        AssistantMessage,
        ToolCall,
        UserMessage,
        RewardType,
        ToolType,
        ActionEvaluator,
        CommunicateEvaluator,
        EnvironmentEvaluator,
    )


def is_replayable(task: Any) -> tuple[bool, str | None]:
    """A golden trajectory exists iff the criteria can be met by executing the task's actions."""
    criteria = task.evaluation_criteria
    if criteria is None:
        return True, None
    if not criteria.actions and criteria.env_assertions:
        return False, "task has env assertions but no actions: no golden trajectory can be derived"
    return True, None


def _initial(task: Any) -> tuple[Any, Any, list[Any]]:
    state = task.initial_state
    if state is None:
        return None, None, []
    return state.initialization_data, state.initialization_actions, list(state.message_history or [])


def golden_trajectory(
    task: Any,
    env_factory: Callable[..., Any],
    task_id: str,
    observer: ToolCallObserver | None,
    before_actions: Callable[[Any], None] | None = None,
) -> tuple[list[Any], list[ToolCallRecord], Any]:
    AssistantMessage, ToolCall, UserMessage, _, ToolType, *_ = _tau2()
    init_data, init_actions, history = _initial(task)
    env = env_factory()
    try:
        env.set_state(initialization_data=init_data, initialization_actions=init_actions, message_history=history)
    except Exception as exc:  # the benchmark's own code refuses the task: an input error naming it, not a traceback
        raise BabelflowError(
            f"task {task_id!r}: tau2's set_state raised {type(exc).__name__}: "
            f"{str(exc).splitlines()[0] if str(exc) else ''}",
            field=f"task {task_id}.initial_state",
            fix=(
                "the task's initialization_data / initialization_actions / message_history "
                "must run in the unchanged benchmark"
            ),
        ) from exc
    if before_actions is not None:
        before_actions(env)  # the state a do-nothing agent leaves behind
    messages = list(history)
    records: list[ToolCallRecord] = []
    actions = (task.evaluation_criteria.actions or []) if task.evaluation_criteria else []
    for index, action in enumerate(actions):
        call = ToolCall(id=f"golden_{index}", name=action.name, arguments=action.arguments, requestor=action.requestor)
        if action.requestor == "user":
            message = UserMessage(role="user", tool_calls=[call])
            toolkit = env.user_tools
        else:
            message = AssistantMessage(role="assistant", tool_calls=[call])
            toolkit = env.tools
        response = env.get_response(call)
        messages += [message, response]
        is_write = bool(
            toolkit is not None and toolkit.has_tool(action.name) and toolkit.tool_type(action.name) == ToolType.WRITE
        )
        record = ToolCallRecord(
            name=action.name,
            requestor=action.requestor,
            arguments=action.arguments,
            output=response.content or "",
            error=response.error,
            is_write=is_write,
        )
        records.append(record)
        if observer is not None:
            observer(task_id, record)
    info = (task.evaluation_criteria.communicate_info or []) if task.evaluation_criteria else []
    if info:
        messages.append(AssistantMessage(role="assistant", content=" ".join(info)))
    return messages, records, env


def score(task: Any, messages: list[Any], env_factory: Callable[..., Any]) -> tuple[float, dict[str, float]]:
    """The ALL evaluation of tau2 (env/DB + env assertions, actions, communicate)."""
    _, _, _, RewardType, _, ActionEvaluator, CommunicateEvaluator, EnvironmentEvaluator = _tau2()
    if task.evaluation_criteria is None:
        return 1.0, {}
    env_info = EnvironmentEvaluator.calculate_reward(
        environment_constructor=env_factory, task=task, full_trajectory=messages, solo_mode=False
    )
    action_info = ActionEvaluator.calculate_reward(task=task, full_trajectory=messages)
    communicate_info = CommunicateEvaluator.calculate_reward(task=task, full_trajectory=messages)
    basis = set(task.evaluation_criteria.reward_basis)
    reward = 1.0
    breakdown: dict[str, float] = {}
    for bases, info in (
        ({RewardType.DB, RewardType.ENV_ASSERTION}, env_info),
        ({RewardType.ACTION}, action_info),
        ({RewardType.COMMUNICATE}, communicate_info),
    ):
        if basis & bases:
            for key, value in (info.reward_breakdown or {}).items():
                breakdown[getattr(key, "value", str(key))] = float(value)
            reward *= info.reward
    if RewardType.NL_ASSERTION in basis:
        raise ValueError(f"task {task.id}: NL_ASSERTION in reward_basis needs an LLM judge")
    return reward, breakdown


def _hash(env: Any, user: bool) -> str | None:
    value = env.get_user_db_hash() if user else env.get_db_hash()
    return value if value is None else str(value)


def replay_golden_task(
    task: Any, env_factory: Callable[..., Any], observer: ToolCallObserver | None = None, scored: bool = True
) -> ReplayOutcome:
    """Run the golden actions; with `scored`, also hash the final DBs and run the evaluators."""
    replayable, note = is_replayable(task)
    messages, records, env = golden_trajectory(task, env_factory, task.id, observer)
    outcome = ReplayOutcome(task_id=task.id, trajectory="golden", replayable=replayable, note=note, tool_calls=records)
    if not scored:
        return outcome
    outcome.final_db_sha256, outcome.final_user_db_sha256 = _hash(env, False), _hash(env, True)
    try:
        outcome.reward, outcome.reward_breakdown = score(task, messages, env_factory)
    except Exception as exc:  # an evaluator crash is a result to compare, not a reason to stop
        logger.warning(f"evaluator raised on golden replay of task {task.id}: {exc!r}")
        outcome.evaluator_error = f"{type(exc).__name__}: {exc}"
    return outcome


def replay_do_nothing_task(task: Any, env_factory: Callable[..., Any]) -> ReplayOutcome:
    _, _, history = _initial(task)
    outcome = ReplayOutcome(task_id=task.id, trajectory="do_nothing", replayable=True)
    try:
        outcome.reward, outcome.reward_breakdown = score(task, list(history), env_factory)
    except Exception as exc:  # mock's assert_task_status raises on a missing task: recorded as such
        outcome.evaluator_error = f"{type(exc).__name__}: {exc}"
    return outcome
