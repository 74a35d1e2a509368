"""Golden + do-nothing replay of one tau2 task with every text field location-tagged.

What runs is what tau2 runs (set_state with initialization data/actions and message history, the
golden actions through `Environment.get_response`, env assertions, the action and communicate
evaluators); what is added is observation:
- every tool call, including the functions set_state's initialization actions and the env
  assertions call, notes which tagged values it received (and under which argument names);
- write tools, initialization actions and `update_db` are bracketed by a DB diff: a changed DB
  leaf marks the DB location *and* the call's argument locations holding the written value;
- tool results are walked for tagged DB values (what the agent is shown);
- set_state parses the recorded tool messages it checks against re-executed calls: observed by
  wrapping the `json` module the environment module uses;
- comparisons are observed by `Traced.__eq__` (see tracing.py) with the phase they ran in;
- with `formatted_outputs` (τ³), a tool answering with text is searched for the traced values it
  formatted (f-strings, `json.dumps`) while it ran: they are shown to the agent as much as a record is.

`trace_read_tools` is a coverage replay: every read-only tool on every DB value its parameters name,
on a fresh environment, so what the tools compare and return is seen for the records no gold call reaches.
"""

from __future__ import annotations

import json as _json
import sys
from collections.abc import Callable, Mapping
from typing import Any

from babelflow.errors import BabelflowError
from source_benchmarks.task_selection import covering_sample
from source_benchmarks.tracing import (
    RECORDER,
    Kind,
    Traced,
    copy_traced,
    leaf_values,
    note_arguments,
    note_formatted,
    phase,
    string_leaves,
    tag_tree,
    traced_leaves,
)


class _TracingJson:
    """Stands in for `json` inside tau2's environment module while set_state runs."""

    def __getattr__(self, name: str) -> Any:
        return getattr(_json, name)

    @staticmethod
    def loads(text: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(text, Traced) and RECORDER.phase is not None:
            RECORDER.note(
                text.loc,
                Kind.READ_BY_SET_STATE,
                f"{RECORDER.phase}: parsed and compared with the re-executed tool result",
            )
        return _json.loads(text, *args, **kwargs)


class _FormattingJson:
    """Stands in for `json` inside a toolkit's modules while a tool runs: what `json.dumps` serializes
    into the tool's text (τ³ banking's debit-card listing) counts as formatted, like an f-string's slots."""

    def __getattr__(self, name: str) -> Any:
        return getattr(_json, name)

    @staticmethod
    def dumps(value: Any, *args: Any, **kwargs: Any) -> str:
        if RECORDER.formatted is not None:
            RECORDER.formatted.extend(traced_leaves(value))
        return _json.dumps(value, *args, **kwargs)


def _json_users(kit: Any) -> list[Any]:
    """The modules of a toolkit's classes that use the json module (the tools' own code)."""
    modules = (sys.modules.get(cls.__module__) for cls in type(kit).__mro__)
    return [module for module in modules if module is not None and getattr(module, "json", None) is _json]


def _note_writes(before: dict, after: dict, db_artifact: str, inputs: list[Traced], what: str) -> None:
    written: set[str] = set()
    for path, value in after.items():
        if before.get(path, _MISSING) != value:
            if path in before:
                RECORDER.note((db_artifact, path, False), Kind.DB_WRITE, f"changed by {what}")
            if isinstance(value, str):
                written.add(str(value))
    for leaf in inputs:
        if str(leaf) in written:
            RECORDER.note(leaf.loc, Kind.DB_WRITE, f"written to the DB by {what}")


_MISSING = object()


class Instrumented:
    """Installs the observers on one environment (instance attributes only: tau2's classes are untouched)."""

    def __init__(
        self,
        env: Any,
        db_artifacts: tuple[str | None, str | None],
        watch_db: bool,
        formatted_outputs: bool = False,
        label: str = "",
    ):
        self.env = env
        self.formatted_outputs = formatted_outputs  # text results: which traced values were formatted into them
        self.label = label  # names the run in every observation ("coverage replay: tool …")
        pairs = ((env.tools, db_artifacts[0]), (env.user_tools, db_artifacts[1]))
        kits = [(kit, artifact) for kit, artifact in pairs if kit is not None and artifact]
        # Tagging and diffing a 7 MB DB costs seconds per task: done on a sample of tasks that
        # together run every tool (DB roles are per field path); task fields are traced on every task.
        self.kits = kits if watch_db else []
        self.tagged: dict[int, int] = {}
        for kit, artifact in kits:
            if watch_db:
                self._ensure_tagged(kit, artifact)
        for kit, _ in pairs:
            # a toolkit without a DB file of its own (τ³ banking's user tools share the agent's DB) is
            # observed too: its calls, arguments and results
            if kit is not None:
                self._wrap_kit(kit)
        original_call = env.run_env_function_call

        def run_env_function_call(call: Any) -> Any:
            what = f"{RECORDER.phase or 'env function'} {call.func_name}"
            note_arguments(call.arguments, what)
            snapshots = self._snapshots()
            result = original_call(call)
            self._diff(snapshots, list(traced_leaves(call.arguments)), what)
            return result

        env.run_env_function_call = run_env_function_call

    def _ensure_tagged(self, kit: Any, artifact: str) -> None:
        if self.tagged.get(id(kit)) != id(kit.db):
            tag_tree(kit.db, artifact)
            self.tagged[id(kit)] = id(kit.db)

    def _snapshots(self) -> list[dict]:
        return [leaf_values(kit.db) for kit, _ in self.kits]

    def _diff(self, snapshots: list[dict], inputs: list[Traced], what: str) -> None:
        with phase(None):  # our own comparisons are no observation
            self._diff_quiet(snapshots, inputs, what)

    def _diff_quiet(self, snapshots: list[dict], inputs: list[Traced], what: str) -> None:
        for (kit, artifact), before in zip(self.kits, snapshots):
            _note_writes(before, leaf_values(kit.db), artifact, inputs, what)
            self._ensure_tagged(kit, artifact)

    def _wrap_kit(self, kit: Any) -> None:
        from tau2.environment.toolkit import ToolType

        original_use, original_update = kit.use_tool, kit.update_db
        json_users = _json_users(kit)

        def use_tool(tool_name: str, **kwargs: Any) -> Any:
            what = f"{self.label}tool {tool_name}"
            note_arguments(kwargs, what)
            try:
                write = kit.has_tool(tool_name) and kit.tool_type(tool_name) == ToolType.WRITE
            except Exception:  # an unknown tool: tau2 raises below, as it would
                write = False
            snapshots = self._snapshots() if write and self.kits else None
            saved_formatted = RECORDER.formatted
            RECORDER.formatted = [] if self.formatted_outputs else None
            swapped = json_users if self.formatted_outputs else []
            for module in swapped:
                module.json = _FormattingJson()
            try:
                with phase(what, RECORDER.evaluator):
                    result = original_use(tool_name=tool_name, **kwargs)
                formatted = RECORDER.formatted
            finally:
                RECORDER.formatted = saved_formatted
                for module in swapped:
                    module.json = _json
            for leaf in traced_leaves(result):
                RECORDER.note(leaf.loc, Kind.TOOL_OUTPUT, what)
            if formatted and isinstance(result, str):
                note_formatted(formatted, result, what)
            if snapshots is not None:
                self._diff(snapshots, [leaf for value in kwargs.values() for leaf in traced_leaves(value)], what)
            elif write:
                # DB not diffed on this task: a write tool's returned record shows what it stored
                with phase(None):
                    stored = set(string_leaves(result))
                    for value in kwargs.values():
                        for leaf in traced_leaves(value):
                            if str(leaf) in stored:
                                RECORDER.note(leaf.loc, Kind.DB_WRITE, f"stored by {what} (in the record it returned)")
            return result

        def update_db(update_data: Any = None) -> None:
            for leaf in traced_leaves(update_data):
                RECORDER.note(leaf.loc, Kind.DB_WRITE, "merged into the DB by set_state (initialization_data)")
            snapshots = self._snapshots()
            original_update(update_data)
            self._diff(snapshots, list(traced_leaves(update_data)), "set_state initialization_data")

        kit.use_tool, kit.update_db = use_tool, update_db


def _copy_calls_for_evaluator(messages: list[Any]) -> None:
    """The trajectory an agent produced holds its own (equal) strings, not the task's objects:
    without fresh identities, `==` short-circuits on identity and the evaluator's reads go unseen."""
    for message in messages:
        for call in getattr(message, "tool_calls", None) or []:
            call.__dict__["name"] = copy_traced(call.__dict__["name"])
            call.__dict__["arguments"] = copy_traced(call.__dict__["arguments"])


def trace_task(
    task: Any,
    task_path: tuple,
    tasks_artifact: str,
    env_factory: Callable[[], Any],
    db_artifacts: tuple[str | None, str | None],
    watch_db: bool = True,
    formatted_outputs: bool = False,
) -> Any:
    """Replay one (already validated, private) task instrumented; observations go to RECORDER.
    Returns the environment it ran in (a caller may trace more of the task's setup on it)."""
    import tau2.environment.environment as environment_module
    from tau2.data_model.message import AssistantMessage, ToolCall, UserMessage
    from tau2.evaluator.evaluator_action import ActionEvaluator
    from tau2.evaluator.evaluator_communicate import CommunicateEvaluator

    RECORDER.task_id = task.id
    tag_tree(task, tasks_artifact, task_path)
    env = env_factory()
    Instrumented(env, db_artifacts, watch_db, formatted_outputs)
    state = task.initial_state
    criteria = task.evaluation_criteria
    history = list(state.message_history or []) if state else []
    environment_module.json = _TracingJson()
    try:
        with phase("set_state"):
            env.set_state(
                initialization_data=state.initialization_data if state else None,
                initialization_actions=state.initialization_actions if state else None,
                message_history=history,
            )
    except Exception as exc:
        raise BabelflowError(
            f"task {task.id!r}: tau2's set_state raised {type(exc).__name__}: "
            f"{str(exc).splitlines()[0] if str(exc) else ''}",
            file=tasks_artifact,
            field=f"[{task_path[0]}].initial_state"
            if task_path
            else "initial_state",  # a task file of its own: no index
            fix="the task's initialization data/actions or message history must run in the unchanged benchmark",
        ) from exc
    finally:
        environment_module.json = _json
    assertions = (criteria.env_assertions or []) if criteria else []

    def run_assertions(label: str) -> None:
        for assertion in assertions:
            with phase(f"env assertion {assertion.func_name} ({label})", evaluator=True):
                try:
                    env.run_env_assertion(assertion, raise_assertion_error=False)
                except Exception:  # mock's assert_task_status raises on the do-nothing state: a result, not a crash
                    pass

    run_assertions("do-nothing state")
    messages = list(history)
    for index, action in enumerate((criteria.actions or []) if criteria else []):
        call = ToolCall(
            id=f"golden_{index}", name=str(action.name), arguments=action.arguments, requestor=action.requestor
        )
        call.__dict__["name"], call.__dict__["requestor"] = action.name, action.requestor
        with phase("golden action dispatch"):
            response = env.get_response(call)
        message = (
            UserMessage(role="user", tool_calls=[call])
            if action.requestor == "user"
            else AssistantMessage(role="assistant", tool_calls=[call])
        )
        messages += [message, response]
    run_assertions("after the golden actions")
    info = (criteria.communicate_info or []) if criteria else []
    if info:
        messages.append(AssistantMessage(role="assistant", content=" ".join(info)))
        messages[-1].__dict__["content"] = Traced(messages[-1].content, None)
    if criteria is not None:
        _copy_calls_for_evaluator(messages)
        with phase("action evaluator", evaluator=True):
            ActionEvaluator.calculate_reward(task=task, full_trajectory=messages)
        with phase("communicate evaluator", evaluator=True):
            CommunicateEvaluator.calculate_reward(task=task, full_trajectory=messages)
    RECORDER.task_id = None
    return env


def task_functions(task: Any, reached_through: Mapping[str, str] | None = None) -> set[str]:
    """`requestor:name` of every function a task runs: gold actions, initialization actions, env assertions.
    `reached_through`: calls that reach another tool (τ³ banking's discoverable calls: call name -> the
    argument naming the tool), counted by the tool they reach."""
    names: set[str] = set()
    reached_through = reached_through or {}
    criteria, state = task.evaluation_criteria, task.initial_state
    for action in (criteria.actions or []) if criteria else []:
        reached = (action.arguments or {}).get(reached_through.get(action.name, ""), "")
        names.add(f"{action.requestor}:{action.name}" + (f":{reached}" if reached else ""))
    for call in [
        *((state.initialization_actions or []) if state else []),
        *((criteria.env_assertions or []) if criteria else []),
    ]:
        names.add(f"{call.env_type}:{call.func_name}")
    if state and state.initialization_data is not None:
        names.add("initialization_data")
    return names


def db_watch_sample(tasks: list[Any], limit: int, functions: Callable[[Any], set[str]] = task_functions) -> set[str]:
    """Tasks whose DB is tagged and diffed (and whose replays differential trials rerun)."""
    return covering_sample(tasks, limit, functions)
