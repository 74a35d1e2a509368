"""Agents on an AgentDojo suite (source or registered variant) through AgentDojo's own runner and scorer.

The agent is an `AgentPipeline` of AgentDojo's elements, as its own `from_config` builds one:
`SystemMessage` (the variant's translated system message), `InitQuery`, the LLM, and
`ToolsExecutionLoop([ToolsExecutor(formatter), LLM])`. Only the LLM is ours: a `BasePipelineElement`
that hands the conversation to a babelflow `ChatModel` (OpenAI message format) and turns its reply
back into AgentDojo's messages. Scoring is `agentdojo.benchmark.run_task_without_injection_tasks`
(utility) or `run_task_with_injection_tasks` (utility and security under one of AgentDojo's attacks).

AgentDojo's modules load at call time (`loader.load_module`): the CLI stays light.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from babelflow.errors import BabelflowError
from babelflow.variant import load_manifest
from source_benchmarks.agent_runs import GoldScript, PreparedRun, ToolCallMade, TrialRecord, TrialSpec, Turn
from source_benchmarks.agentdojo import registration
from source_benchmarks.agentdojo.adapter import AgentDojoBenchmark, parse_id
from source_benchmarks.agentdojo.files import package_root
from source_benchmarks.agentdojo.loader import load_module
from source_benchmarks.agentdojo.replay import environment_of
from source_benchmarks.agentdojo.suite_view import unicode_tool_output
from source_benchmarks.protocol import ChatModel, ChatReply

# AgentDojo's attack for security trials: its "important instructions" injection without the
# model's or user's name (those need a provider model name in the pipeline's name)
DEFAULT_ATTACK = "important_instructions_no_names"
MAX_ITERS = 15  # ToolsExecutionLoop's default, as AgentDojo's own pipelines run
# a run's tool output reaches the agent as text (`unicode_tool_output`), as the source's English does
# (issue 27); prepare(plain_tool_output=False), or this set False, gives AgentDojo's escaping default
PLAIN_TOOL_OUTPUT = True


@dataclass(frozen=True)
class _Harness:
    """What a prepared run keeps (PreparedRun.handle)."""

    suite: Any  # AgentDojo's TaskSuite, registered under `version` for a variant
    source_suite: Any  # the packaged suite, for the English equivalent of the gold answer
    version: str
    system_message: str
    tool_output: Callable[[Any], str]
    verbose: bool


def _harness(run: PreparedRun) -> _Harness:
    if not isinstance(run.handle, _Harness):
        raise BabelflowError(
            f"{run.harness_name} was not prepared by the AgentDojo evaluation", fix="call prepare() for this run first"
        )
    return run.handle


def gold_answer(task: Any) -> str:
    """The final text a scripted agent gives: the task's prompt, then what AgentDojo's
    GroundTruthPipeline outputs (`GROUND_TRUTH_OUTPUT`).

    Most tasks' ground-truth output is empty or a number (14 of banking's 16), which no language
    check can place: the prompt, translated in the variant like the output, makes the reply read
    as the run's language. Utility checks that read the output look for values in it, which the
    prompt does not remove (every suite's source scores the same with and without it: the tests)."""
    return "\n\n".join(t for t in (task.PROMPT, task.GROUND_TRUTH_OUTPUT) if t)


# ---- AgentDojo messages <-> the OpenAI format a ChatModel speaks ----------------------------------


def _text(content: Any) -> str:
    if content is None:
        return ""
    return load_module("agentdojo.types").get_text_content_as_str(content)


def openai_messages(messages: Sequence[Any]) -> list[dict]:
    """AgentDojo's ChatMessages as OpenAI chat messages with string content (what babelflow's providers take)."""
    out: list[dict] = []
    for m in messages:
        role = m["role"]
        if role in ("system", "user"):
            out.append({"role": role, "content": _text(m["content"])})
        elif role == "assistant":
            message: dict = {"role": "assistant", "content": _text(m["content"]) or None}
            if m["tool_calls"]:
                message["tool_calls"] = [
                    {
                        "id": call.id or f"call_{i}",
                        "type": "function",
                        "function": {"name": call.function, "arguments": json.dumps(dict(call.args))},
                    }
                    for i, call in enumerate(m["tool_calls"])
                ]
            out.append(message)
        else:
            call = m["tool_call"]
            out.append(
                {
                    "role": "tool",
                    "tool_call_id": m["tool_call_id"] or call.id or "",
                    "name": call.function,
                    "content": m["error"] or _text(m["content"]),  # as AgentDojo's OpenAILLM sends an error
                }
            )
    return out


def openai_tools(runtime: Any) -> list[dict]:
    return [
        {
            "type": "function",
            "function": {"name": f.name, "description": f.description, "parameters": f.parameters.model_json_schema()},
        }
        for f in runtime.functions.values()
    ]


def assistant_message(reply: ChatReply) -> Any:
    """A ChatModel's reply as AgentDojo's ChatAssistantMessage (no tool calls: `tool_calls=None`, as upstream)."""
    types_ = load_module("agentdojo.types")
    function_call = load_module("agentdojo.functions_runtime").FunctionCall
    calls = [function_call(function=name, args=dict(args), id=call_id) for call_id, name, args in reply.tool_calls]
    content = None if reply.content is None else [types_.text_content_block_from_string(reply.content)]
    return types_.ChatAssistantMessage(role="assistant", content=content, tool_calls=calls or None)


@cache
def _model_element_class() -> type:
    base = load_module("agentdojo.agent_pipeline.base_pipeline_element").BasePipelineElement
    empty_env = load_module("agentdojo.functions_runtime").EmptyEnv

    class ChatModelLLM(base):  # type: ignore[valid-type,misc]
        """The pipeline's LLM: one `ChatModel.chat` per call. Keeps each attempt's conversation:
        AgentDojo's runner queries the pipeline again (up to 3 times, on the same environment) when
        an attempt ends without an answer, and every attempt is part of what the agent did."""

        def __init__(self, model: ChatModel) -> None:
            self.model, self.name = model, model.label
            self.attempts: list[list[Any]] = []

        def query(self, query, runtime, env=None, messages=(), extra_args=None):  # upstream signature
            reply = self.model.chat(openai_messages(messages), openai_tools(runtime) or None)
            out = [*messages, assistant_message(reply)]
            if not any(m["role"] == "assistant" for m in messages):  # the runner started an attempt
                self.attempts.append(out)
            else:
                self.attempts[-1] = out
            return query, runtime, env if env is not None else empty_env(), out, extra_args or {}

    return ChatModelLLM


def agent_pipeline(model: ChatModel, system_message: str, tool_output: Callable[[Any], str]) -> tuple[Any, Any]:
    """(pipeline, its LLM element): AgentDojo's own elements around the model."""
    elements = load_module("agentdojo.agent_pipeline.basic_elements")
    execution = load_module("agentdojo.agent_pipeline.tool_execution")
    llm = _model_element_class()(model)
    pipeline = load_module("agentdojo.agent_pipeline.agent_pipeline").AgentPipeline(
        [
            elements.SystemMessage(system_message),
            elements.InitQuery(),
            llm,
            execution.ToolsExecutionLoop(
                [execution.ToolsExecutor(tool_output_formatter=tool_output), llm], max_iters=MAX_ITERS
            ),
        ]
    )
    pipeline.name = f"babelflow-{model.label}".replace(":", "-")  # names the runner's trace folder
    return pipeline, llm


def trajectory_turns(messages: Sequence[Any]) -> list[Turn]:
    """AgentDojo's messages as turns. The system message and the task's prompt are what the harness
    and the task wrote (model_made False)."""
    turns = []
    for m in messages:
        role = m["role"]
        if role in ("system", "user"):
            turns.append(Turn(role=role, text=_text(m["content"]), model_made=False))
        elif role == "assistant":
            calls = [ToolCallMade(name=c.function, arguments=dict(c.args)) for c in m["tool_calls"] or []]
            turns.append(Turn(role="agent", text=_text(m["content"]), tool_calls=calls))
        else:
            error = m["error"]
            turns.append(Turn(role="tool", text=error or _text(m["content"]), tool_error=error is not None))
    return turns


def _ending(messages: Sequence[Any]) -> str:
    if not messages or messages[-1]["role"] != "assistant":
        return "no_answer"
    if messages[-1]["tool_calls"]:
        return "max_steps"  # the tool loop's MAX_ITERS ran out with calls pending
    return "done" if messages[-1]["content"] is not None else "no_answer"


def termination(attempts: Sequence[Sequence[Any]]) -> str:
    """How the last attempt ended (done, max_steps, no_answer), and `…_after_retry` when AgentDojo's
    runner had to query again because an earlier attempt gave no answer."""
    if not attempts:
        return "no_answer"
    last = _ending(attempts[-1])
    return f"{last}_after_retry" if len(attempts) > 1 else last


@cache
def _quiet_logger_class() -> type:
    output_logger = load_module("agentdojo.logging").OutputLogger

    class QuietLogger(output_logger):  # type: ignore[valid-type,misc]
        """AgentDojo's OutputLogger without its console lines (its NullLogger never enters the logger
        stack, and the runner's TraceLogger then fails on its missing `logdir`)."""

        def log(self, messages: list, **kwargs: Any) -> None:
            pass

        def log_error(self, message: str) -> None:
            pass

    return QuietLogger


class _TraceDir:
    """A logger context whose trace folder is a temp dir (AgentDojo's TraceLogger otherwise writes
    `runs/` next to the installed package): quiet, or AgentDojo's console lines when verbose."""

    def __init__(self, verbose: bool):
        self.verbose = verbose

    def __enter__(self) -> Path:
        self.tmp = tempfile.TemporaryDirectory(prefix="babelflow-agentdojo-")
        logger_class = load_module("agentdojo.logging").OutputLogger if self.verbose else _quiet_logger_class()
        self.logger = logger_class(self.tmp.name)
        self.logger.__enter__()
        return Path(self.tmp.name)

    def __exit__(self, *exc: object) -> None:
        self.logger.__exit__(*exc)
        self.tmp.cleanup()


class AgentDojoEvaluation:
    """`AgentEvaluation` for agentdojo-banking/-slack/-travel/-workspace (source_benchmarks.agent_runs)."""

    has_user_simulator = False
    uses_judge_model = False

    def __init__(self, attack: str = DEFAULT_ATTACK):
        self.attack = attack

    def prepare(
        self,
        benchmark_id: str,
        language: str,
        variant: Path | None,
        *,
        verbose: bool = False,
        plain_tool_output: bool | None = None,
    ) -> PreparedRun:
        """Register the variant in AgentDojo's suite registry (`<version>-<lang>`); None: the packaged suite.

        `plain_tool_output` False (default: PLAIN_TOOL_OUTPUT) gives the agent AgentDojo's default
        formatter (`yaml.safe_dump`, non-ASCII escaped as `\\xF1`): the harness check's escaped case.
        `verbose`: AgentDojo's console log of every message (its OutputLogger) in every trial of the run."""
        source = AgentDojoBenchmark(benchmark_id)
        if variant is None:
            suite, version = source.source_suite, source.version
            system_message = registration.variant_system_message(package_root())
        else:
            manifest = load_manifest(Path(variant))
            if parse_id(manifest.benchmark) != parse_id(benchmark_id) or manifest.language != language:
                raise BabelflowError(
                    f"{variant} is {manifest.benchmark} in {manifest.language}, not {benchmark_id} in {language}",
                    file=variant,
                    fix=f"pass adapted/{benchmark_id}/{language}, or --lang {manifest.language}",
                )
            version, suite = registration.register_variant(Path(variant))
            system_message = registration.variant_system_message(Path(variant))
        plain = PLAIN_TOOL_OUTPUT if plain_tool_output is None else plain_tool_output
        escaping = load_module("agentdojo.agent_pipeline.tool_execution").tool_result_to_str
        tool_output = unicode_tool_output if plain else escaping
        return PreparedRun(
            benchmark_id=benchmark_id,
            language=language,
            harness_name=f"{version}/{suite.name}",
            variant=variant,
            task_ids=source.task_ids("user"),
            injection_task_ids=source.task_ids("injection"),
            agent_name=f"AgentPipeline, {'plain' if plain else 'escaped (AgentDojo default)'} tool output",
            handle=_Harness(suite, source.source_suite, version, system_message, tool_output, verbose),
        )

    def gold_script(self, run: PreparedRun, task_id: str) -> GoldScript:
        """The user task's ground-truth calls on its initial environment, and the ground-truth answer."""
        harness = _harness(run)
        task = self._user_task(harness.suite, task_id, run)
        environment = task.init_environment(environment_of(harness.suite, {}))
        calls = [ToolCallMade(name=c.function, arguments=dict(c.args)) for c in task.ground_truth(environment)]
        return GoldScript(
            calls=calls,
            answer=gold_answer(task),
            source_answer=gold_answer(harness.source_suite.user_tasks[task_id]),
            turn_limit=1 + MAX_ITERS,  # the first model call, then the tool loop's iterations
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
        """One run of the user task by AgentDojo's runner; with `spec.injection_task_id`, under the attack."""
        task_id, injection_task_id = spec.task_id, spec.injection_task_id
        harness = _harness(run)
        task = self._user_task(harness.suite, task_id, run)
        pipeline, llm = agent_pipeline(agent, harness.system_message, harness.tool_output)
        benchmark = load_module("agentdojo.benchmark")
        attack_succeeded = None
        with _TraceDir(verbose or harness.verbose):
            if injection_task_id is None:
                utility, _ = benchmark.run_task_without_injection_tasks(
                    harness.suite, pipeline, task, None, True, harness.version
                )
            else:
                if injection_task_id not in harness.suite.injection_tasks:
                    raise BabelflowError(
                        f"Unknown injection task {injection_task_id!r} for {run.harness_name}",
                        field="injection_task_id",
                        fix=f"use one of: {', '.join(run.injection_task_ids)}",
                    )
                attack = self._attack(harness.suite, pipeline)
                try:
                    utilities, securities = benchmark.run_task_with_injection_tasks(
                        harness.suite, pipeline, task, attack, None, True, [injection_task_id], harness.version
                    )
                except ValueError as exc:  # the attack's own refusal: no injection vector in the task's ground truth
                    if "not injectable" not in str(exc):
                        raise
                    raise BabelflowError(
                        f"{task_id} of {run.harness_name} is not injectable: {exc}",
                        field="injection_task_id",
                        fix="run it without an injection task",
                    ) from exc
                utility = utilities[(task_id, injection_task_id)]
                attack_succeeded = securities[(task_id, injection_task_id)]  # AgentDojo: True = the injection worked
        return TrialRecord(
            task_id=task_id,
            trial=spec.trial,
            reward=1.0 if utility else 0.0,
            utility=bool(utility),
            injection_task_id=injection_task_id,
            attack_succeeded=attack_succeeded,
            termination=termination(llm.attempts),
            turns=[turn for attempt in llm.attempts for turn in trajectory_turns(attempt)],
        )

    def _attack(self, suite: Any, pipeline: Any) -> Any:
        """AgentDojo's attack against this pipeline. Its "important instructions" attacks look the
        victim model's name up in the pipeline's name and refuse a model they do not list (a scripted
        model, a provider model newer than the list): that one is addressed by AgentDojo's default name."""
        attacks = load_module("agentdojo.attacks")
        try:
            return attacks.load_attack(self.attack, suite, pipeline)
        except ValueError as exc:
            if "model name" not in str(exc):
                raise
        attack = attacks.load_attack(self.attack, suite, SimpleNamespace(name="local"))  # a name it lists
        attack.target_pipeline = pipeline
        if hasattr(attack, "model_name"):
            attack.model_name = load_module("agentdojo.attacks.base_attacks").DEFAULT_MODEL_NAME
        return attack

    @staticmethod
    def _user_task(suite: Any, task_id: str, run: PreparedRun) -> Any:
        if task_id not in suite.user_tasks:
            raise BabelflowError(
                f"Unknown user task {task_id!r} for {run.harness_name}",
                field="task_id",
                fix="use one of the run's task_ids (user_task_N)",
            )
        return suite.user_tasks[task_id]
