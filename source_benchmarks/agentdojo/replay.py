"""Ground-truth replays scored by AgentDojo's own `TaskSuite.run_task_with_pipeline`.

A user task's outcome is its ground-truth utility (reward 1/0) plus whether it is injectable (a
canary placed in every injection vector reaches a tool output of its ground truth); an injection
task's outcome is its ground-truth security against the suite's first user task, as upstream's
`TaskSuite.check` computes it. Injectability is measured here because upstream's `check()` skips
tool messages whose content is a list of blocks (every message since v1.2), so it reports no task
as injectable.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from typing import Any

from source_benchmarks.agentdojo.loader import load_module
from source_benchmarks.agentdojo.suite_view import unicode_tool_output
from source_benchmarks.protocol import ReplayOutcome, ToolCallObserver, ToolCallRecord

_CANARY = "---CANARY_{}---"


def _recording_pipeline(task: Any, records: list[ToolCallRecord]) -> Any:
    base = load_module("agentdojo.agent_pipeline.base_pipeline_element").BasePipelineElement
    types_ = load_module("agentdojo.types")

    # AgentDojo's base, loaded without its package __init__
    class RecordingGroundTruth(base):  # type: ignore[valid-type,misc]
        """Executes the task's `ground_truth()` like upstream's GroundTruthPipeline, recording calls."""

        def query(
            self, query: str, runtime: Any, env: Any = None, messages: Sequence = (), extra_args: dict | None = None
        ):
            new = []
            for call in task.ground_truth(env):
                new.append(
                    types_.ChatAssistantMessage(
                        role="assistant", tool_calls=[call], content=[types_.text_content_block_from_string("")]
                    )
                )
                result, error = runtime.run_function(env, call.function, call.args, raise_on_error=False)
                output = unicode_tool_output(result) if error is None else error
                records.append(
                    ToolCallRecord(
                        name=call.function,
                        requestor="assistant",
                        arguments=dict(call.args),
                        output=output,
                        error=error is not None,
                    )
                )
                new.append(
                    types_.ChatToolResultMessage(
                        role="tool",
                        content=[types_.text_content_block_from_string(output)],
                        tool_call=call,
                        tool_call_id=None,
                        error=error,
                    )
                )
            new.append(
                types_.ChatAssistantMessage(
                    role="assistant",
                    content=[types_.text_content_block_from_string(task.GROUND_TRUTH_OUTPUT)],
                    tool_calls=None,
                )
            )
            return query, runtime, env, [*messages, *new], extra_args or {}

    return RecordingGroundTruth()


_ENVIRONMENTS: weakref.WeakKeyDictionary[Any, dict] = weakref.WeakKeyDictionary()


def environment_of(suite: Any, injections: dict[str, str]) -> Any:
    """The suite's environment with these injections, parsed once per suite object and copied per run
    (parsing the YAML and validating it dominates a replay: travel's takes ~0.2 s)."""
    cache = _ENVIRONMENTS.setdefault(suite, {})  # keyed on the object: a variant is a deep copy of its source
    key = tuple(sorted(injections.items()))
    if key not in cache:
        cache[key] = suite.load_and_inject_default_environment(injections)
    return cache[key].model_copy(deep=True)


def _run(
    suite: Any, task: Any, injection: Any, injections: dict[str, str], records: list[ToolCallRecord], actor: Any
) -> tuple[bool, bool]:
    environment = environment_of(suite, injections)
    return suite.run_task_with_pipeline(
        _recording_pipeline(actor, records), task, injection, injections, environment=environment
    )


def _golden(task_id: str, records: list[ToolCallRecord], **outcome: Any) -> ReplayOutcome:
    """A ground truth's outcome: its recorded calls plus the score (or the error) in `outcome`."""
    return ReplayOutcome(task_id=task_id, trajectory="golden", replayable=True, tool_calls=records, **outcome)


def _crashed(task_id: str, records: list[ToolCallRecord], exc: Exception) -> ReplayOutcome:
    return _golden(task_id, records, reward=None, evaluator_error=f"{type(exc).__name__}: {exc}"[:300])


def replay_user_task(
    suite: Any, task_id: str, observer: ToolCallObserver | None = None, scored: bool = True
) -> ReplayOutcome:
    task = suite.user_tasks[task_id]
    records: list[ToolCallRecord] = []
    try:
        utility, _ = _run(suite, task, None, {}, records, task)
    except Exception as exc:  # noqa: BLE001 - a ground truth or check that raises is an outcome to compare
        return _crashed(task_id, records, exc)
    for record in records:
        if observer is not None:
            observer(task_id, record)
    canaries = {vector: _CANARY.format(vector) for vector in suite.get_injection_vector_defaults()}
    canary_records: list[ToolCallRecord] = []
    try:  # only the ground truth's tool outputs matter here: not scored (upstream's checks diff whole environments)
        runtime = load_module("agentdojo.functions_runtime").FunctionsRuntime(suite.tools)
        _recording_pipeline(task, canary_records).query(
            task.PROMPT, runtime, task.init_environment(environment_of(suite, canaries))
        )
    except Exception:  # noqa: BLE001 - the scored run above already recorded how this task behaves
        pass
    seen = sorted(v for v, c in canaries.items() if any(c in r.output for r in canary_records))
    return _golden(
        task_id,
        records,
        reward=float(utility),
        reward_breakdown={"utility": float(utility), "injectable": float(bool(seen))},
        note=("injection vectors seen: " + ", ".join(seen)) if seen else None,
    )


def replay_injection_task(suite: Any, task_id: str, observer: ToolCallObserver | None = None) -> ReplayOutcome:
    injection = suite.injection_tasks[task_id]
    user_task = next(iter(suite.user_tasks.values()))
    records: list[ToolCallRecord] = []
    try:
        _, security = _run(suite, user_task, injection, {}, records, injection)
    except Exception as exc:  # noqa: BLE001
        return _crashed(task_id, records, exc)
    for record in records:
        if observer is not None:
            observer(task_id, record)
    return _golden(task_id, records, reward=float(security), reward_breakdown={"security": float(security)})


def replay_do_nothing(suite: Any, task_id: str) -> ReplayOutcome:
    """Utility (or security) of an agent that answers with an empty message and calls nothing."""
    types_ = load_module("agentdojo.types")
    environment = environment_of(suite, {})
    if task_id.startswith("user_task_"):
        task = suite.user_tasks[task_id]
        environment = task.init_environment(environment)
    else:
        task = suite.injection_tasks[task_id]
    pre = environment.model_copy(deep=True)
    value = suite._check_task_result(task, [types_.text_content_block_from_string("")], pre, environment, [])
    return ReplayOutcome(task_id=task_id, trajectory="do_nothing", replayable=True, reward=float(value))
