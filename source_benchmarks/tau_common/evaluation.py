"""Run agents on a registered tau2 domain (source or variant) with tau2's own orchestrator.

The agent and user simulator are the registered classes (`llm_agent_<lang>`, `user_simulator_<lang>`
for a variant: translated prompts) with one change: their model call goes to a `ChatModel` instead
of litellm, so babelflow's provider layer (keys, limits, retries, token accounting) serves them.
The orchestrator is tau2's, subclassed only to greet in the variant's language: tau2 hard-codes
"Hi! How can I help you today?" as the agent's first message. Scoring is tau2's
`evaluate_simulation` (env + action + communicate, the same basis the golden replays use).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from babelflow.text import first_sentence
from source_benchmarks.agent_runs import (
    GoldScript,
    PreparedRun,
    ToolCallMade,
    TrialRecord,
    TrialSpec,
    Turn,
    TurnRole,
)
from source_benchmarks.protocol import ChatModel, ChatReply
from source_benchmarks.tau_common.domains import DOMAINS
from source_benchmarks.tau_common.registration import register_variant
from source_benchmarks.tau_common.run_task_parts import SimulationCast, user_simulator

STOP_TOKEN = "###STOP###"  # tau2's UserSimulator ends the conversation on it


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


@dataclass
class _Opened:
    bench: Any
    greeting: str | None  # the variant's translated greeting; None: tau2's own


def user_opener(task: Any) -> str | None:
    scenario = getattr(task, "user_scenario", None)
    instructions = getattr(scenario, "instructions", None)
    if instructions is None:
        return None
    reason = getattr(instructions, "reason_for_call", None)
    text = reason if isinstance(reason, str) and reason.strip() else str(instructions)
    return first_sentence(text) or None


def gold_calls(task: Any, requestor: str) -> list[ToolCallMade]:
    criteria = getattr(task, "evaluation_criteria", None)
    return [
        ToolCallMade(name=action.name, arguments=dict(action.arguments or {}))
        for action in ((criteria.actions or []) if criteria is not None else [])
        if action.requestor == requestor
    ]


def gold_order(task: Any) -> list[Literal["agent", "user"]]:
    """Who makes each gold call, in the task's order (agent or user)."""
    criteria = getattr(task, "evaluation_criteria", None)
    actions = (criteria.actions or []) if criteria is not None else []
    return ["user" if action.requestor == "user" else "agent" for action in actions]


class Tau2AgentEvaluation:
    """tau2's orchestrator and evaluator with the registered (localized) roles: `AgentEvaluation`."""

    has_user_simulator = True
    uses_judge_model = False

    def prepare(self, benchmark_id: str, language: str, variant: Path | None, *, verbose: bool = False) -> PreparedRun:
        from loguru import logger

        from babelflow.variant import OVERLAY_NAME, load_overlay
        from source_benchmarks import get_benchmark, open_variant

        # before tau2 is imported: its modules log at import (.env, LiteLLM cache, the registry dump)
        (logger.enable if verbose else logger.disable)("tau2")

        if variant is None:
            bench = get_benchmark(benchmark_id)
            domain, agent, user, greeting = source_domain(benchmark_id), "llm_agent", "user_simulator", None
        else:
            domain = register_variant(variant)
            bench = open_variant(benchmark_id, variant)
            agent, user = f"llm_agent_{language}", f"user_simulator_{language}"
            overlay = load_overlay(variant / OVERLAY_NAME)
            greeting = overlay.translated("orchestrator/orchestrator.py", default_greeting()) if overlay else None
        return PreparedRun(
            benchmark_id=benchmark_id,
            language=language,
            harness_name=domain,
            variant=variant,
            task_ids=bench.task_ids(None),
            agent_name=agent,
            user_name=user,
            handle=_Opened(bench, greeting),
        )

    def gold_script(self, run: PreparedRun, task_id: str) -> GoldScript:
        opened: _Opened = run.handle
        task = opened.bench.task(task_id)
        # the agent's closing line says what the task's evaluator wants communicated (its
        # communicate_info, in the run's language), else the one agent sentence every variant
        # translates: tau2's greeting
        criteria = getattr(task, "evaluation_criteria", None)
        info = [str(i) for i in (getattr(criteria, "communicate_info", None) or [])]
        return GoldScript(
            calls=gold_calls(task, "assistant"),
            user_calls=gold_calls(task, "user"),
            order=gold_order(task),
            answer=" ".join(info) or opened.greeting or default_greeting(),
            source_answer=default_greeting(),
            user_opener=user_opener(task),
            stop_token=STOP_TOKEN,
            verbatim=info,
        )

    def run_trial(
        self,
        run: PreparedRun,
        spec: TrialSpec,
        agent: ChatModel,
        user: ChatModel | None,
        *,
        judge: ChatModel | None = None,  # unused: uses_judge_model is False
        verbose: bool = False,
    ) -> TrialRecord:
        opened: _Opened = run.handle
        task = opened.bench.task(spec.task_id)
        if user is None:
            raise ValueError("tau2 runs need a user simulator model")
        players = Players(agent_name=run.agent_name, user_name=run.user_name, agent=agent, user=user)
        simulation, unscored = run_trial(run.harness_name, task, players, greeting=opened.greeting, seed=spec.trial)
        reward = float(simulation.reward_info.reward) if simulation.reward_info else 0.0
        return TrialRecord(
            task_id=spec.task_id,
            trial=spec.trial,
            reward=reward,
            termination=simulation.termination_reason.value,
            turns=turns_of(simulation, task),
            unscored=unscored,
        )


@dataclass(frozen=True)
class Players:
    """Who plays a trial: the agent and user simulator as registered in tau2 (localized roles) and the models."""

    agent_name: str
    user_name: str
    agent: ChatModel
    user: ChatModel


def run_trial(
    domain: str,
    task: Any,
    players: Players,
    *,
    greeting: str | None,
    seed: int,
    max_steps: int = 100,
    max_errors: int = 10,
):
    """One simulation of `task` on `domain`, scored by tau2: tau2's SimulationRun, and the reward bases it did
    not score. A task whose basis holds NL_ASSERTION (SEATau's and τ³'s retail tasks) needs tau2's judge model
    (EvaluationType.ALL_WITH_NL_ASSERTIONS), which babelflow does not configure: tau2 with ALL refuses such a
    task, so its other bases are scored, the same on source and variant, and the NL basis is reported unscored."""
    from tau2.evaluator.evaluator import EvaluationType, evaluate_simulation
    from tau2.registry import registry

    environment = registry.get_env_constructor(domain)()
    agent_model, user_model = players.agent, players.user
    agent_class = model_agent_class(registry.get_agent_constructor(players.agent_name), agent_model)
    agent = agent_class(tools=environment.get_tools(), domain_policy=environment.get_policy(), llm=agent_model.label)
    user_class = model_user_class(registry.get_user_constructor(players.user_name), user_model)
    user = user_simulator(user_class, environment, task, user_model.label)
    cast = SimulationCast(domain, task, environment, agent, user)
    simulation = cast.orchestrator(
        localized_orchestrator_class(greeting), max_steps=max_steps, max_errors=max_errors, seed=seed
    ).run()
    scored, unscored = judged_offline(task)
    simulation.reward_info = evaluate_simulation(
        simulation=simulation, task=scored, evaluation_type=EvaluationType.ALL, solo_mode=False, domain=domain
    )
    return simulation, unscored


def judged_offline(task: Any) -> tuple[Any, list[str]]:
    """The task as scored without a judge model (its NL_ASSERTION basis left out), and what was left out: τ's
    NL judge is a model called through litellm with keys babelflow never gives it, and tau2 with
    EvaluationType.ALL refuses a task whose basis holds NL_ASSERTION. The golden replays score it so too
    (banking_knowledge task 102, SEATau's retail: DB + NL_ASSERTION)."""
    criteria = getattr(task, "evaluation_criteria", None)
    bases = list(getattr(criteria, "reward_basis", None) or [])
    judged = [b for b in bases if getattr(b, "value", b) != "NL_ASSERTION"]
    if criteria is None or len(judged) == len(bases):
        return task, []
    scored = task.model_copy(update={"evaluation_criteria": criteria.model_copy(update={"reward_basis": judged})})
    return scored, ["NL_ASSERTION"]


def turns_of(simulation: Any, task: Any) -> list[Turn]:
    """The trajectory as shared turns. The task's scripted message history and the greeting the
    orchestrator injects are not the models' words (model_made False)."""
    from tau2.data_model.message import AssistantMessage, ToolMessage, UserMessage

    history = len(task.initial_state.message_history or []) if task.initial_state else 0
    injected = history or 1
    turns: list[Turn] = []
    for index, message in enumerate(simulation.messages):
        calls = (
            [ToolCallMade(name=c.name, arguments=dict(c.arguments or {})) for c in (message.tool_calls or [])]
            if (isinstance(message, AssistantMessage | UserMessage))
            else []
        )
        role: TurnRole
        if isinstance(message, AssistantMessage):
            role = "agent"
        elif isinstance(message, UserMessage):
            role = "user"
        elif isinstance(message, ToolMessage):
            turns.append(Turn(role="tool", text=message.content or "", tool_error=bool(message.error)))
            continue
        else:
            continue
        turns.append(Turn(role=role, text=message.content or "", tool_calls=calls, model_made=index >= injected))
    return turns


AGENT_EVALUATION = Tau2AgentEvaluation()  # the capability (family.agent_evaluation)
