"""The parties of one tau2 simulation, wired as tau2's own `run_task` wires them: shared by the scored
trials (evaluation.py) and the scripted conversations (scripted_conversation.py)."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

_log = logging.getLogger(__name__)


def user_tools_of(environment: Any, **include: Any) -> Any:
    """The domain's user tools, or None where asking for them fails: tau2's run_task (and τ³'s build_user)
    treat any failure there as "this domain has no user tools". The debug log names what failed."""
    try:
        return environment.get_user_tools(**include)
    except Exception as exc:  # tau2's own rule, whatever the domain raises
        _log.debug("no user tools (%s: %s)", type(exc).__name__, exc)
        return None


def user_simulator(user_class: Any, environment: Any, task: Any, llm: str, *, solo: bool = False) -> Any:
    """The task's user simulator with the domain's user tools: none in solo mode, and none where asking for
    them fails (`user_tools_of`)."""
    user_tools = None if solo else user_tools_of(environment)
    return user_class(tools=user_tools, instructions=str(task.user_scenario), llm=llm)


@dataclass(frozen=True)
class SimulationCast:
    """Who and what one tau2 simulation runs: the agent and user on the domain's environment, for a task."""

    domain: str
    task: Any
    environment: Any
    agent: Any
    user: Any

    def orchestrator(self, orchestrator_class: Any, **limits: Any) -> Any:
        """`orchestrator_class` (tau2's, or a subclass) over this cast; `limits` are its max_steps,
        max_errors, seed (and solo_mode)."""
        return orchestrator_class(
            domain=self.domain, agent=self.agent, user=self.user, environment=self.environment, task=self.task, **limits
        )
