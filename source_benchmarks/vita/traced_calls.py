"""The scripted calls with every text of the task location-tagged: where each string and key goes.

Each task is validated afresh from the file and tagged (source_benchmarks.tracing): its environment,
its user scenario and its criteria. What runs is VitaBench's own code: `get_environment` keeps the
environment keys it knows, its DB models read theirs, the tools look records up, compare and format
them into the text the agent reads. Observed per location:
- read by code: a comparison or lookup while the environment is built or a tool runs (the keys
  VitaBench's models and `get_environment` read, statuses the tools compare);
- passed to a tool, and under which argument (the scripted calls are built from the tagged task);
- shown: formatted into a tool's text result (the DB is tagged again once built: the models copy
  the strings they validate), or found in the prompt VitaBench's user simulator is given (its persona
  is `str(user_profile)`, vita/run.py) or in the rubrics its judge reads (deduplicated by equality).
"""

from __future__ import annotations

from typing import Any

from source_benchmarks.tracing import (
    RECORDER,
    Kind,
    Traced,
    note_arguments,
    note_formatted,
    phase,
    tag_tree,
    traced_leaves,
)
from source_benchmarks.vita.domains import VitaDomain
from source_benchmarks.vita.harness import environment, probe_clock, vita_module
from source_benchmarks.vita.scripted_calls import play, scripted_calls


def _use_tool(env: Any, name: str, arguments: dict[str, Any]) -> Any:
    what = f"scripted call {name}"
    note_arguments(arguments, what)
    RECORDER.formatted = []
    try:
        with phase(what):
            try:
                result = env.use_tool(name, **arguments)
            except Exception as exc:  # a failing call is an outcome (the replay records it as VitaBench does)
                result = f"Error: {exc}"
        formatted = RECORDER.formatted
    finally:
        RECORDER.formatted = None
    for leaf in traced_leaves(result):
        RECORDER.note(leaf.loc, Kind.TOOL_OUTPUT, what)
    if formatted and isinstance(result, str):
        note_formatted(formatted, result, what)
    elif isinstance(result, str):
        # a tool answering str(dict) (get_user_historical_behaviors) formats nothing we see: its text is
        # searched for the DB's strings as str(dict) writes them (quoted: 'name' is not inside shop_name=)
        with phase(None):
            for leaf in traced_leaves(env.tools.db):
                if leaf.loc is not None and len(leaf) and repr(str(leaf)) in result:
                    RECORDER.note(leaf.loc, Kind.TOOL_OUTPUT, f"{what} (in the str() of a record it returned)")
    return result


def trace_task(domain: VitaDomain, task: Any, task_index: int, artifact: str) -> None:
    """Observations of one private, freshly validated task go to RECORDER (call under the harness lock)."""
    RECORDER.task_id = task.id
    tag_tree(task, artifact, (task_index,))
    with phase("get_environment and VitaBench's DB models"):
        env = environment(domain, task)
    tag_tree(env.tools.db, artifact, (task_index, "environment"))
    with phase("scripted calls: the records and orders the task names"):  # what our probe reads is read by code
        calls = scripted_calls(domain, task)

    def run(name: str, arguments: dict[str, Any]) -> bool:
        _use_tool(env, name, arguments)
        return True  # a create that failed made no record: its follow-ups find none to act on

    with probe_clock(task):
        play(calls, env.tools.db, run)
    _trace_simulator_and_judge(domain, task)
    RECORDER.task_id = None


def _trace_simulator_and_judge(domain: VitaDomain, task: Any) -> None:
    """What the two models offline replays never run are given: the user simulator's system prompt, built by
    its own class as vita/run.py builds it, and the rubric list the judge starts from."""
    user = vita_module("vita.user.user_simulator").UserSimulator(
        instructions=str(task.instructions),
        persona=str(task.user_scenario.user_profile),
        language=domain.harness_language,
    )
    with phase(None):
        note_formatted(list(traced_leaves(task.user_scenario)), user.system_prompt, "the user simulator's prompt")
        note_formatted(list(traced_leaves(task.instructions)), user.system_prompt, "the user simulator's prompt")
    judge = vita_module("vita.evaluator.evaluator_traj").TrajectoryEvaluator
    criteria = task.evaluation_criteria
    if criteria is not None:
        with phase("the judge's rubric list (duplicates merged by equality)", evaluator=True):
            states = judge._initialize_rubric_states(criteria)
        rubrics = [state["rubric"] for state in states.values()]
        with phase(None):
            for rubric in rubrics:
                if isinstance(rubric, Traced):
                    RECORDER.note(rubric.loc, Kind.TOOL_OUTPUT, "the judge's rubric list")
