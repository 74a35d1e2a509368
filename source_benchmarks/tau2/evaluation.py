"""Run agents on a registered tau2 domain (source or variant) with tau2's own orchestrator.

The agent and user simulator are the registered classes (`llm_agent_<lang>`, `user_simulator_<lang>`
for a variant: translated prompts) with one change: their model call goes to a `ChatModel` instead
of litellm, so babelflow's provider layer (keys, limits, retries, token accounting) serves them.
The orchestrator is tau2's, subclassed only to greet in the variant's language: tau2 hard-codes
"Hi! How can I help you today?" as the agent's first message. Scoring is tau2's
`evaluate_simulation` (env + action + communicate, the same basis the golden replays use).
"""

from __future__ import annotations

from typing import Any

from source_benchmarks.protocol import ChatModel, ChatReply
from source_benchmarks.tau2.domains import DOMAINS
from source_benchmarks.tau2.registration import register_variant

__all__ = [
    "agent_texts",
    "default_greeting",
    "register_variant",
    "run_trial",
    "source_domain",
]  # the capability (family.agent_evaluation)


def _openai_messages(messages: list[Any]) -> list[dict]:
    from tau2.utils.llm_utils import to_litellm_messages  # a pure converter; no model call

    return to_litellm_messages(messages)


def _tool_calls(reply: ChatReply, requestor: str):
    from tau2.data_model.message import ToolCall

    return [
        ToolCall(id=call_id, name=name, arguments=arguments, requestor=requestor)
        for call_id, name, arguments in reply.tool_calls
    ] or None


def model_agent_class(base: type, model: ChatModel) -> type:
    from tau2.data_model.message import AssistantMessage, MultiToolMessage

    class ModelAgent(base):
        def generate_next_message(self, message, state):
            if isinstance(message, MultiToolMessage):
                state.messages.extend(message.tool_messages)
            elif message is not None:
                state.messages.append(message)
            reply = model.chat(
                _openai_messages(state.system_messages + state.messages),
                [tool.openai_schema for tool in self.tools] or None,
            )
            answer = AssistantMessage(
                role="assistant", content=reply.content, tool_calls=_tool_calls(reply, "assistant"), cost=0.0
            )
            state.messages.append(answer)
            return answer, state

    ModelAgent.__name__ = base.__name__
    return ModelAgent


def model_user_class(base: type, model: ChatModel) -> type:
    from tau2.data_model.message import MultiToolMessage, UserMessage

    class ModelUser(base):
        def _generate_next_message(self, message, state):
            if isinstance(message, MultiToolMessage):
                state.messages.extend(message.tool_messages)
            else:
                state.messages.append(message)
            tools = [tool.openai_schema for tool in self.tools] if self.tools else None
            reply = model.chat(_openai_messages(state.system_messages + state.flip_roles()), tools)
            answer = UserMessage(role="user", content=reply.content, tool_calls=_tool_calls(reply, "user"), cost=0.0)
            state.messages.append(answer)
            return answer, state

    ModelUser.__name__ = base.__name__
    return ModelUser


def localized_orchestrator_class(greeting: str | None) -> type:
    """tau2's Orchestrator whose hard-coded first agent message is replaced by `greeting`."""
    from tau2.data_model.message import AssistantMessage
    from tau2.orchestrator.orchestrator import DEFAULT_FIRST_AGENT_MESSAGE, Orchestrator

    class LocalizedOrchestrator(Orchestrator):
        def initialize(self):
            super().initialize()
            if not greeting:
                return
            # tau2 deep-copies its module constant into the trajectory and the agent's history;
            # only those copies change, never the constant (the source runs in the same process)
            seen = [self.message, *self.trajectory, *getattr(self.agent_state, "messages", [])]
            for message in seen:
                if isinstance(message, AssistantMessage) and message.content == DEFAULT_FIRST_AGENT_MESSAGE.content:
                    message.content = greeting

    return LocalizedOrchestrator


def source_domain(benchmark_id: str) -> str:
    """The domain name tau2 registers the packaged source under (tau2-retail -> retail)."""
    return DOMAINS[benchmark_id].domain


def default_greeting() -> str:
    from tau2.orchestrator.orchestrator import DEFAULT_FIRST_AGENT_MESSAGE

    return DEFAULT_FIRST_AGENT_MESSAGE.content


def run_trial(
    domain: str,
    task: Any,
    agent_name: str,
    user_name: str,
    agent_model: ChatModel,
    user_model: ChatModel,
    *,
    greeting: str | None,
    seed: int,
    max_steps: int = 100,
    max_errors: int = 10,
):
    """One simulation of `task` on `domain`, scored by tau2; returns tau2's SimulationRun."""
    from tau2.evaluator.evaluator import EvaluationType, evaluate_simulation
    from tau2.registry import registry

    environment = registry.get_env_constructor(domain)()
    agent_class = model_agent_class(registry.get_agent_constructor(agent_name), agent_model)
    agent = agent_class(tools=environment.get_tools(), domain_policy=environment.get_policy(), llm=agent_model.label)
    try:
        user_tools = environment.get_user_tools()
    except Exception:  # tau2's own run_task treats any failure here as "this domain has no user tools"
        user_tools = None
    user_class = model_user_class(registry.get_user_constructor(user_name), user_model)
    user = user_class(tools=user_tools, instructions=str(task.user_scenario), llm=user_model.label)
    orchestrator = localized_orchestrator_class(greeting)(
        domain=domain,
        agent=agent,
        user=user,
        environment=environment,
        task=task,
        max_steps=max_steps,
        max_errors=max_errors,
        seed=seed,
    )
    simulation = orchestrator.run()
    simulation.reward_info = evaluate_simulation(
        simulation=simulation, task=task, evaluation_type=EvaluationType.ALL, solo_mode=False, domain=domain
    )
    return simulation


def agent_texts(simulation: Any, task: Any) -> list[str]:
    """What the agent model said to the user: tool calls, the task's scripted message history and
    the greeting the orchestrator injects are not the model's words."""
    from tau2.data_model.message import AssistantMessage

    history = list(task.initial_state.message_history or []) if task.initial_state else []
    messages = simulation.messages[len(history) if history else 1 :]
    return [m.content for m in messages if isinstance(m, AssistantMessage) and m.content and not m.is_tool_call()]
