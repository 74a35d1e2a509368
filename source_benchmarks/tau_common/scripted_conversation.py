"""Whole tau2 conversations with scripted models: what reads the prompts' control tokens and templates.

The golden replay never runs the agent or user simulator, so the texts only they read (system
prompt templates, `###STOP###` and its siblings, the solo agent's stop tool) get no observation
there. Here tau2 composes agent, user and orchestrator exactly as its `run_task` does (LLMAgent,
LLMGTAgent or LLMSoloAgent; UserSimulator or DummyUser); only the model call (`generate`, the
network edge) is scripted, and the script does what the prompts tell a model to do:
- the agent makes the task's golden tool calls one per turn, then answers in text; in solo mode it
  ends with a call to the tool its system prompt names in backticks;
- the user opens with one line, and once the agent has answered, ends the conversation with the
  n-th `###...###` token its own system prompt (the guideline file) names — one conversation per token.
The outcome is what tau2 decides: termination reason, messages, tool errors, or the exception raised.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal

from babelflow.ir import Record
from source_benchmarks.tau_common.run_task_parts import SimulationCast, user_simulator

AgentKind = Literal["llm_agent", "llm_agent_gt", "llm_agent_solo"]
AGENT_MODEL, USER_MODEL = "babelflow-scripted-agent", "babelflow-scripted-user"
CONTROL_TOKEN = re.compile(
    r"###[^#\s]+###"
)  # wider than babelflow.text's: a perturbed (accented) token must still be said
BACKTICKED = re.compile(r"`([^`\s]+)`")


class ConversationPlan(Record):
    """One scripted conversation: which agent, which task, which of the user's tokens ends it."""

    agent: AgentKind
    task_id: str
    user_token: int = 0


class ConversationOutcome(Record):
    plan: ConversationPlan
    termination: str  # tau2's TerminationReason, or "raised <ExceptionType>"
    messages: int
    tool_errors: int

    @property
    def signature(self) -> tuple[str, int, int]:
        return (self.termination, self.messages, self.tool_errors)


def _text(message: Any) -> str:
    return message.content if isinstance(getattr(message, "content", None), str) else ""


def scripted_generate(task: Any, user_token: int = 0) -> Callable[..., Any]:
    """A stand-in for tau2's `generate(model, messages, tools, tool_choice, **kwargs)`."""
    from tau2.data_model.message import AssistantMessage, ToolCall

    golden = [
        a
        for a in ((task.evaluation_criteria.actions or []) if task.evaluation_criteria else [])
        if a.requestor == "assistant"
    ]

    def generate(
        model: str, messages: list[Any], tools: list[Any] | None = None, tool_choice: str | None = None, **_: Any
    ) -> Any:
        system = _text(messages[0]) if messages else ""
        turns = messages[1:]
        if model == USER_MODEL:
            tokens = CONTROL_TOKEN.findall(system)
            user_turns = sum(
                1 for m in turns if getattr(m, "role", None) == "assistant"
            )  # the user's own turns, roles flipped
            if user_turns == 0 or not tokens:
                return AssistantMessage(role="assistant", content="Hello, I need help with my request.")
            return AssistantMessage(role="assistant", content=tokens[user_token % len(tokens)])
        names = {tool.name for tool in tools or []}
        made = sum(len(m.tool_calls or []) for m in turns if getattr(m, "role", None) == "assistant")
        remaining = [a for a in golden if a.name in names][made:]
        if remaining:
            action = remaining[0]
            return AssistantMessage(
                role="assistant",
                tool_calls=[ToolCall(id=f"scripted_{made}", name=action.name, arguments=dict(action.arguments))],
            )
        if tool_choice == "required":  # solo: the stop tool the prompt names
            named = [name for name in BACKTICKED.findall(system) if name in names]
            name = named[0] if named else "unnamed_stop_tool"
            return AssistantMessage(
                role="assistant", tool_calls=[ToolCall(id=f"scripted_{made}", name=name, arguments={})]
            )
        return AssistantMessage(role="assistant", content="Your request has been handled.")

    return generate


@contextmanager
def _scripted(generate: Callable[..., Any]) -> Iterator[None]:
    from tau2.agent import llm_agent
    from tau2.user import user_simulator

    saved = llm_agent.generate, user_simulator.generate
    llm_agent.generate = user_simulator.generate = generate
    try:
        yield
    finally:
        llm_agent.generate, user_simulator.generate = saved


def conversation_plans(tasks: list[Any], guidelines: str) -> list[ConversationPlan]:
    """The conversations that exercise every prompt: the first task each agent kind accepts
    (tau2's own `check_valid_task`), one user conversation per control token the guidelines name."""
    from tau2.agent.llm_agent import LLMGTAgent, LLMSoloAgent

    plain = next((t for t in tasks if not (t.initial_state and t.initial_state.message_history)), None)
    plans: list[ConversationPlan] = []
    if plain is not None:
        for index in range(max(1, len(CONTROL_TOKEN.findall(guidelines)))):
            plans.append(ConversationPlan(agent="llm_agent", task_id=plain.id, user_token=index))
    gt = next(
        (
            t
            for t in tasks
            if LLMGTAgent.check_valid_task(t) and not (t.initial_state and t.initial_state.message_history)
        ),
        None,
    )
    if gt is not None:
        plans.append(ConversationPlan(agent="llm_agent_gt", task_id=gt.id))
    solo = next((t for t in tasks if LLMSoloAgent.check_valid_task(t) and t.ticket and not t.initial_state), None)
    if solo is not None:
        plans.append(ConversationPlan(agent="llm_agent_solo", task_id=solo.id))
    return plans


def run_conversation(
    plan: ConversationPlan,
    task: Any,
    domain: str,
    env_factory: Callable[..., Any],
    guidelines_dir: Path,
    max_steps: int = 24,
) -> ConversationOutcome:
    """One conversation as tau2's `run_task` composes it; exceptions from tau2's code are outcomes."""
    from tau2.agent.llm_agent import LLMAgent, LLMGTAgent, LLMSoloAgent
    from tau2.orchestrator.orchestrator import Orchestrator
    from tau2.user.user_simulator import DummyUser

    from source_benchmarks.tau_common.localized_roles import localized_user_class

    generate = scripted_generate(task, plan.user_token)
    running = None
    try:
        with _scripted(generate):
            solo = plan.agent == "llm_agent_solo"
            environment = env_factory(solo_mode=solo)
            agent: Any
            if plan.agent == "llm_agent":
                agent = LLMAgent(tools=environment.get_tools(), domain_policy=environment.get_policy(), llm=AGENT_MODEL)
            elif plan.agent == "llm_agent_gt":
                agent = LLMGTAgent(
                    tools=environment.get_tools(), domain_policy=environment.get_policy(), llm=AGENT_MODEL, task=task
                )
            else:
                user_tools = environment.get_user_tools() if environment.user_tools else []
                agent = LLMSoloAgent(
                    tools=environment.get_tools() + user_tools,
                    domain_policy=environment.get_policy(),
                    llm=AGENT_MODEL,
                    task=task,
                )
            user_class = DummyUser if solo else localized_user_class(guidelines_dir)
            user = user_simulator(user_class, environment, task, USER_MODEL, solo=solo)
            cast = SimulationCast(domain, task, environment, agent, user)
            running = cast.orchestrator(Orchestrator, max_steps=max_steps, max_errors=10, seed=0, solo_mode=solo)
            simulation = running.run()
    except Exception as exc:  # tau2's own code refused the (perturbed) prompt: that is the outcome
        return ConversationOutcome(
            plan=plan,
            termination=f"raised {type(exc).__name__}",
            messages=len(getattr(running, "trajectory", []) or []),
            tool_errors=0,
        )
    errors = sum(1 for m in simulation.messages if getattr(m, "role", None) == "tool" and getattr(m, "error", False))
    reason = simulation.termination_reason
    return ConversationOutcome(
        plan=plan,
        termination=str(getattr(reason, "value", reason)),
        messages=len(simulation.messages),
        tool_errors=errors,
    )
