"""Agents on VitaBench (`babelflow evaluate vita-*`): its own environment, agent, user simulator,
orchestrator and judge, in this process.

VitaBench calls every model through one function, `vita.utils.llm_utils.generate`: an HTTP POST to the
URL and with the keys of its models.yaml. During a trial the agent, the user simulator and the judge
each get babelflow's provider layer in its place (`model_routes`): keys stay in babelflow's environment
and go through the official SDKs, with its limits, retries and token accounting. Everything else is
VitaBench's: `LLMAgent` and `UserSimulator` with their prompts, the `Orchestrator` with its greeting,
and `evaluate_simulation` with its sliding-window rubric judge.

VitaBench's reward is its judge's reading of the rubrics. Without a judge model (`--judge-llm`) no
trial is scored: its reward is None and `unscored` names the basis (NL_ASSERTION).

VitaBench ships its prompts, tool descriptions, greeting and weekday names in Chinese and English
(its `language=`). A Chinese variant runs with the Chinese ones; any other with the English ones, the
agent's policy ending with the language pack's clause. Those texts are VitaBench's code, not part of
the variant. Order ids are hashed from VitaBench's clock, pinned to the task's time as in the probe
(harness.probe_clock), so a scripted agent's follow-up calls name the orders it created.
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from babelflow.errors import BabelflowError
from babelflow.language_pack import load_pack
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
from source_benchmarks.protocol import ChatModel
from source_benchmarks.registry import get_benchmark, open_variant
from source_benchmarks.vita.adapter import VitaBenchmark
from source_benchmarks.vita.domains import HarnessLanguage, VitaDomain
from source_benchmarks.vita.harness import LOCK, environment, probe_clock, vita_module
from source_benchmarks.vita.replay import play_scripted

STOP_TOKEN = "###STOP###"  # vita.user.base.STOP: the user simulator ends the conversation on it
UNSCORED = "NL_ASSERTION"  # VitaBench's only reward basis: the judge's reading of the rubrics
MAX_STEPS, MAX_ERRORS = 300, 10  # VitaBench's defaults (vita.config)
# the modules that call `generate`, each under its own name for it
CALLERS = ("vita.agent.llm_agent", "vita.user.user_simulator", "vita.evaluator.evaluator_traj")
AGENT, USER, JUDGE = "babelflow:agent", "babelflow:user", "babelflow:judge"


def prompts_language(language: str) -> HarnessLanguage:
    """The language of VitaBench's own texts for a run in `language`: Chinese for Chinese, else English."""
    return "chinese" if language.split("-")[0].lower() == "zh" else "english"


def _closing_line(task: Any) -> str:
    """A line of the task's own text for the scripted agent to end with: its first rubric's first sentence."""
    criteria = task.evaluation_criteria
    rubrics = [r for state in (criteria.expected_states or []) for r in (state.state_rubrics or [])] if criteria else []
    rubrics += list(criteria.overall_rubrics or []) if criteria else []
    return first_sentence(str(rubrics[0])) if rubrics else first_sentence(str(task.instructions))


@contextlib.contextmanager
def model_routes(models: dict[str, ChatModel]) -> Iterator[None]:
    """VitaBench's `generate` replaced, where its agent, user simulator and judge call it, by the model its
    `model=` argument names (hold LOCK)."""
    llm_utils = vita_module("vita.utils.llm_utils")
    messages_module = vita_module("vita.data_model.message")

    def generate(model: str, messages: list[Any], tools: list[Any] | None = None, **_: Any) -> Any:
        if model not in models:
            raise BabelflowError(f"VitaBench asked for model {model!r}, which this run did not give it")
        schemas = [tool.openai_schema for tool in tools] if tools else None
        reply = models[model].chat(llm_utils.format_messages(messages), schemas)
        calls = [
            messages_module.ToolCall(id=call_id, name=name, arguments=arguments)
            for call_id, name, arguments in reply.tool_calls
        ]
        return messages_module.AssistantMessage(
            role="assistant", content=reply.content, tool_calls=calls or None, cost=0.0
        )

    modules = [vita_module(name) for name in CALLERS]
    saved = [vars(module)["generate"] for module in modules]
    for module in modules:
        vars(module)["generate"] = generate
    try:
        yield
    finally:
        for module, original in zip(modules, saved, strict=True):
            vars(module)["generate"] = original


@dataclass
class _Opened:
    bench: VitaBenchmark
    source: VitaBenchmark  # the packaged source: the scripted agent's source-language line
    prompts: HarnessLanguage
    clause: str  # the pack's agent-language clause ('' for the source)


def turns_of(messages: list[Any]) -> list[Turn]:
    """VitaBench's trajectory as shared turns; the orchestrator's greeting is not a model's (model_made False)."""
    turns: list[Turn] = []
    for index, message in enumerate(messages):
        role: TurnRole
        kind = type(message).__name__
        if kind == "ToolMessage":
            turns.append(Turn(role="tool", text=message.content or "", tool_error=bool(message.error)))
            continue
        if kind == "AssistantMessage":
            role = "agent"
        elif kind == "UserMessage":
            role = "user"
        else:
            continue
        calls = [ToolCallMade(name=c.name, arguments=dict(c.arguments or {})) for c in message.tool_calls or []]
        turns.append(Turn(role=role, text=message.content or "", tool_calls=calls, model_made=index > 0))
    return turns


class VitaAgentEvaluation:
    """VitaBench's orchestrator and judge on a source or variant: `AgentEvaluation`."""

    has_user_simulator = True
    uses_judge_model = True

    def prepare(self, benchmark_id: str, language: str, variant: Path | None, *, verbose: bool = False) -> PreparedRun:
        bench = get_benchmark(benchmark_id) if variant is None else open_variant(benchmark_id, variant)
        if not isinstance(bench, VitaBenchmark):
            raise BabelflowError(
                f"{benchmark_id} is not a VitaBench benchmark", file=variant, fix="evaluate a vita-* source or variant"
            )
        source = bench if variant is None else get_benchmark(benchmark_id)
        assert isinstance(source, VitaBenchmark)
        clause = load_pack(language).agent_language_clause if variant is not None else ""
        return PreparedRun(
            benchmark_id=benchmark_id,
            language=language,
            harness_name=bench.domain.domain,
            variant=variant,
            task_ids=bench.task_ids(),
            agent_name="llm_agent",
            user_name="user_simulator",
            handle=_Opened(bench, source, prompts_language(language), clause),
        )

    def gold_script(self, run: PreparedRun, task_id: str) -> GoldScript:
        """The task's scripted calls as they ran (the orders they create named by the pinned clock)."""
        opened: _Opened = run.handle
        task = opened.bench.task(task_id)
        played = play_scripted(opened.bench.domain, task)
        return GoldScript(
            calls=[ToolCallMade(name=call.name, arguments=dict(call.arguments)) for call in played.tool_calls],
            answer=_closing_line(task),
            source_answer=_closing_line(opened.source.task(task_id)),
            user_opener=first_sentence(str(task.instructions)) or None,
            stop_token=STOP_TOKEN,
        )

    def run_trial(
        self,
        run: PreparedRun,
        spec: TrialSpec,
        agent: ChatModel,
        user: ChatModel | None,
        *,
        judge: ChatModel | None = None,
        verbose: bool = False,
    ) -> TrialRecord:
        if user is None:
            fix = "pass --user-llm"
            raise BabelflowError("VitaBench runs need a user simulator model", field="--user-llm", fix=fix)
        opened: _Opened = run.handle
        task = opened.bench.task(spec.task_id)
        models = {AGENT: agent, USER: user} | ({JUDGE: judge} if judge is not None else {})
        quiet = contextlib.nullcontext() if verbose else contextlib.redirect_stdout(io.StringIO())
        with LOCK, quiet, probe_clock(task), model_routes(models):
            simulation = _simulate(opened.bench.domain, task, opened, seed=spec.trial)
            reward = None
            if judge is not None:
                judged = vita_module("vita.evaluator.evaluator").evaluate_simulation(
                    simulation=simulation,
                    task=task,
                    evaluation_type="trajectory",
                    domain=opened.bench.domain.domain,
                    llm_evaluator=JUDGE,
                    llm_args_evaluator={},
                    language=opened.prompts,
                )
                reward = float(judged.reward)
        return TrialRecord(
            task_id=spec.task_id,
            trial=spec.trial,
            reward=reward,
            termination=str(getattr(simulation.termination_reason, "value", simulation.termination_reason)),
            turns=turns_of(simulation.messages),
            unscored=[] if judge is not None else [UNSCORED],
        )


def _simulate(domain: VitaDomain, task: Any, opened: _Opened, *, seed: int) -> Any:
    """One conversation, built as VitaBench's runner builds it (vita.run._run_task_internal)."""
    llm_agent = vita_module("vita.agent.llm_agent")
    user_simulator = vita_module("vita.user.user_simulator")
    orchestrator = vita_module("vita.orchestrator.orchestrator")
    env = environment(domain, task, opened.prompts)
    policy = env.get_policy()
    if opened.clause:  # the policy is a format string ({time}): the clause's braces stay literal
        policy = f"{policy}\n\n{opened.clause.replace('{', '{{').replace('}', '}}')}"
    agent = llm_agent.LLMAgent(
        tools=env.get_tools(), domain_policy=policy, llm=AGENT, time=env.tools.db.time, language=opened.prompts
    )
    user = user_simulator.UserSimulator(
        persona=str(task.user_scenario.user_profile),
        instructions=str(task.instructions),
        llm=USER,
        language=opened.prompts,
    )
    return orchestrator.Orchestrator(
        domain=domain.domain,
        agent=agent,
        user=user,
        environment=env,
        task=task,
        max_steps=MAX_STEPS,
        max_errors=MAX_ERRORS,
        seed=seed,
        language=opened.prompts,
    ).run()


AGENT_EVALUATION = VitaAgentEvaluation()  # the capability (family.agent_evaluation)
