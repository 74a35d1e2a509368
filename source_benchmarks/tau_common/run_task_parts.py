"""The parties of one tau2 simulation, wired as tau2's own `run_task` wires them: shared by the scored
trials (evaluation.py) and the scripted conversations (scripted_conversation.py)."""

from __future__ import annotations

from typing import Any


def user_simulator(user_class: Any, environment: Any, task: Any, llm: str, *, solo: bool = False) -> Any:
    """The task's user simulator with the domain's user tools: none in solo mode, and none where asking for
    them fails (tau2's run_task treats any failure there as "this domain has no user tools")."""
    try:
        user_tools = None if solo else environment.get_user_tools()
    except Exception:
        user_tools = None
    return user_class(tools=user_tools, instructions=str(task.user_scenario), llm=llm)


def orchestrator(
    orchestrator_class: Any, domain: str, task: Any, environment: Any, agent: Any, user: Any, **limits: Any
) -> Any:
    """The orchestrator that runs `agent` and `user` on `environment` for `task`; `limits` are its
    max_steps, max_errors, seed (and solo_mode)."""
    return orchestrator_class(domain=domain, agent=agent, user=user, environment=environment, task=task, **limits)
