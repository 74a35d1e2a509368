"""Agents on τ³ (`babelflow evaluate tau3-*`): the family's `AgentEvaluation`, run by the worker.

The main process holds no τ³ code: `prepare` asks the worker to register the source or the variant
in τ³'s registry (trials.py), `gold_script` reads the task there, and `run_trial` runs τ³'s own
Orchestrator and `evaluate_simulation` there. Scripted models travel as their script and are built
in the worker; any other model stays here and answers each turn the worker asks over the pipe
(`model_call` / `model_answer`), so provider keys, limits and token accounting never leave this process.

banking_knowledge's agent gets τ³'s offline retrieval configuration `bm25_grep` (BM25 search + grep
over the documents, the tools the analysis recorded); τ³'s default `alltools` needs an embedding API.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from babelflow.errors import BabelflowError
from babelflow.language_pack import load_pack
from source_benchmarks.agent_runs import GoldScript, PreparedRun, TrialRecord, TrialSpec
from source_benchmarks.protocol import ChatModel
from source_benchmarks.registry import get_benchmark, open_variant
from source_benchmarks.scripted_models import ScriptedAgent, ScriptedUser
from source_benchmarks.tau3.adapter import Tau3Benchmark
from source_benchmarks.tau3.client import worker_for
from source_benchmarks.tau3.domains import SCHEMA_RETRIEVAL_VARIANT
from source_benchmarks.tau3.messages import (
    EvaluationRef,
    ModelAnswer,
    ModelCall,
    ModelSpec,
    ModelToolCall,
    TrialRequest,
    WorkerReply,
)

AGENT_RETRIEVAL_VARIANT = SCHEMA_RETRIEVAL_VARIANT


@dataclass
class _Opened:
    bench: Tau3Benchmark
    evaluation: EvaluationRef
    verbose: bool


def _spec(model: ChatModel, role: str) -> ModelSpec:
    if isinstance(model, ScriptedAgent):
        return ModelSpec(
            kind="scripted",
            label=model.label,
            script=model.script,
            misbehaviour=model.misbehaviour.value,
            counterparts=dict(model.counterparts),
            native_zero=model.native_zero,
        )
    if isinstance(model, ScriptedUser):
        return ModelSpec(kind="scripted", label=model.label, script=model.script)
    return ModelSpec(kind="bridged", label=getattr(model, "label", f"{role} model"))


class Tau3AgentEvaluation:
    """τ³'s orchestrator and evaluator in the worker, with the registered (localized) roles."""

    has_user_simulator = True
    uses_judge_model = False

    def __init__(self, *, plain_tool_output: bool | None = None, retrieval_variant: str = AGENT_RETRIEVAL_VARIANT):
        # plain_tool_output: a variant's tool results keep non-ASCII as text; False shows τ³'s escaping;
        # None: as the family opens variants (family.PLAIN_TOOL_OUTPUT, True)
        self.plain_tool_output = plain_tool_output
        self.retrieval_variant = retrieval_variant

    def prepare(self, benchmark_id: str, language: str, variant: Path | None, *, verbose: bool = False) -> PreparedRun:
        """`verbose`: τ³'s own logging during the trials, copied from the worker's stderr to ours
        (otherwise only its tail is kept, for error messages)."""
        bench = get_benchmark(benchmark_id) if variant is None else open_variant(benchmark_id, variant)
        if not isinstance(bench, Tau3Benchmark):
            raise BabelflowError(
                f"{benchmark_id} is not a τ³ benchmark", file=variant, fix="evaluate a tau3-* source or variant"
            )
        if variant is not None and self.plain_tool_output is not None:  # the source stays τ³'s own
            bench.plain_tool_output = self.plain_tool_output
        evaluation = EvaluationRef(
            language=language,
            variant_root=str(Path(variant).resolve()) if variant is not None else None,
            retrieval_variant=self.retrieval_variant,
            agent_language_clause=load_pack(language).agent_language_clause if variant is not None else "",
        )
        prepared = bench._call("agent_prepare", evaluation=evaluation).prepared
        assert prepared is not None
        return PreparedRun(
            benchmark_id=benchmark_id,
            language=language,
            harness_name=prepared.domain,
            variant=variant,
            task_ids=prepared.task_ids,
            agent_name=prepared.agent_name,
            user_name=prepared.user_name,
            handle=_Opened(bench, evaluation, verbose),
        )

    def gold_script(self, run: PreparedRun, task_id: str) -> GoldScript:
        opened: _Opened = run.handle
        gold = opened.bench._call("gold_script", [task_id], evaluation=opened.evaluation).gold
        assert gold is not None
        return gold

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
        if user is None:
            raise BabelflowError("τ³ runs need a user simulator model", field="--user-llm", fix="pass --user-llm")
        opened: _Opened = run.handle
        models = {"agent": agent, "user": user}
        failures: list[BaseException] = []

        def answer(call: ModelCall) -> ModelAnswer:
            try:
                reply = models[call.role].chat(call.messages, call.tools)
            except Exception as exc:  # re-raised here once the worker has ended the trial
                failures.append(exc)
                return ModelAnswer(failure=f"{type(exc).__name__}: {exc}")
            calls = [ModelToolCall(id=i, name=name, arguments=args) for i, name, args in reply.tool_calls]
            return ModelAnswer(content=reply.content, tool_calls=calls)

        request = TrialRequest(
            task_id=spec.task_id, trial=spec.trial, agent=_spec(agent, "agent"), user=_spec(user, "user")
        )
        verbose = verbose or opened.verbose
        worker = worker_for(opened.bench.runtime)
        worker.echo = verbose
        try:
            reply: WorkerReply = opened.bench._call(
                "run_trial",
                [spec.task_id],
                on_model_call=answer,
                evaluation=opened.evaluation,
                trial=request,
                verbose=verbose,
            )
        except BabelflowError:
            if failures:  # the provider's own error (its fix names the key or the limit), not the worker's echo
                raise failures[0] from None
            raise
        finally:
            worker.echo = False
        assert reply.trial is not None
        return reply.trial


AGENT_EVALUATION = Tau3AgentEvaluation()  # the capability (family.agent_evaluation)
