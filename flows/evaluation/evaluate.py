"""`babelflow evaluate`: run an agent on a variant (and optionally its source) and report it.

Registers the variant in tau2's registry, runs tau2's orchestrator with the localized agent and
user simulator (source_benchmarks/tau_common/evaluation.py) through the provider layer
(flows/evaluation/agent_models.py), and reports reward per task, pass^k, token cost and the language
consistency of the agent's replies (babelflow/language_id.py). The report is saved as JSON next
to the variant: `adapted/<benchmark>/<lang>.evaluation.json` (beside, not inside, so the signed
variant's file hashes stay valid).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from babelflow.adapt_request import AgentRunRequest, EvaluationRequest
from babelflow.atomic_io import write_bytes_atomic
from babelflow.errors import BabelflowError
from babelflow.llm.costs import CostLedger
from babelflow.settings import BabelflowSettings
from babelflow.variant import load_manifest
from flows.evaluation.agent_models import ProviderChatModel
from flows.evaluation.report import EvaluationReport, RunSummary, TrajectoryLine, evaluation_path, trajectories_path
from flows.evaluation.side_run import Models, RunPlan, counterparts_of, run_side
from source_benchmarks import available_family_of, families
from source_benchmarks.agent_runs import AgentEvaluation, PreparedRun
from source_benchmarks.scripted_models import Misbehaviour, parse_scripted
from translators.spec import validate_language_tag


def _models(
    asked: EvaluationRequest, runner: AgentEvaluation, benchmark: str, language: str, costs: CostLedger
) -> Models:
    agent_misbehaviour = parse_scripted(asked.agent)
    user_misbehaviour = parse_scripted(asked.user)
    if user_misbehaviour not in (None, Misbehaviour.NONE):
        raise BabelflowError(
            f"The scripted user has no behaviour {asked.user!r}",
            field="--user-llm",
            fix="use --user-llm scripted (the misbehaviours are the agent's: --agent-llm scripted:english …)",
        )
    if asked.judge and not runner.uses_judge_model:
        raise BabelflowError(
            f"{benchmark}'s harness scores without a judge model",
            field="--judge-llm",
            fix="leave --judge-llm out (it serves benchmarks whose score is a model's reading: vita-*)",
        )
    if asked.judge and parse_scripted(asked.judge) is not None:
        raise BabelflowError(
            "A judge cannot be scripted: its reading is the score",
            field="--judge-llm",
            fix="name a model (openai-compatible:MODEL@URL for a local one), or leave --judge-llm out: unscored",
        )
    models = Models(agent_misbehaviour=agent_misbehaviour, user_scripted=user_misbehaviour is not None)
    if agent_misbehaviour is None:
        models.agent = ProviderChatModel(
            asked.agent, field="--agent-llm", stage="evaluate-agent", language=language, costs=costs
        )
    if user_misbehaviour is None:
        models.user = ProviderChatModel(
            asked.user, field="--user-llm", stage="evaluate-user", language=language, costs=costs
        )
    if asked.judge:
        models.judge = ProviderChatModel(
            asked.judge, field="--judge-llm", stage="evaluate-judge", language=language, costs=costs
        )
    return models


def check_models(asked: EvaluationRequest, benchmark: str, language: str) -> None:
    """The specs parse, the family scores with a judge where one is given, a provider model has its key:
    refused (exit 2) before any work."""
    _models(asked, runner_of(benchmark), benchmark, language, CostLedger())


def _chosen_tasks(benchmark: str, run: PreparedRun, task_ids: list[str] | None) -> list[str]:
    known = set(run.task_ids)
    unknown = [t for t in task_ids or [] if t not in known]
    if unknown:
        raise BabelflowError(
            f"Unknown task id(s) {', '.join(unknown[:5])}",
            field="--tasks",
            fix=f"task ids of {benchmark}: {', '.join(run.task_ids[:5])}, …",
        )
    return task_ids or run.task_ids


def _check_variant(benchmark: str, language: str, variant: Path) -> None:
    if not (variant / "babelflow_manifest.json").exists():
        raise BabelflowError(
            f"No {language} variant of {benchmark}",
            file=variant,
            fix=f"run `babelflow flow {benchmark} --lang {language}` (or `babelflow adapt`) first",
        )
    manifest = load_manifest(variant)
    if manifest.benchmark != benchmark or manifest.language != language:
        raise BabelflowError(
            f"The variant is {manifest.benchmark} in {manifest.language}",
            file=variant,
            fix=f"point --variant at a {benchmark} {language} variant",
        )


def runner_of(benchmark: str) -> AgentEvaluation:
    family = available_family_of(benchmark)
    runner = family.agent_evaluation()
    if runner is None:
        able = [bid for f in families().values() if f.agent_evaluation() is not None for bid in f.benchmark_ids()]
        raise BabelflowError(
            f"`evaluate` has no agent runner for the {family.name} family ({benchmark})",
            field="BENCHMARK",
            fix=f"use one of: {', '.join(able)}",
        )
    return runner


def evaluate(
    asked: AgentRunRequest,
    *,
    settings: BabelflowSettings | None = None,
    progress: Callable[[str], None] | None = None,
    costs: CostLedger | None = None,
    verbose: bool = False,
) -> EvaluationReport:
    benchmark, language, variant, task_ids = asked.benchmark, asked.language, asked.variant, asked.task_ids
    agent_llm, user_llm, trials = asked.models.agent, asked.models.user, asked.models.trials
    with_source, with_injections = asked.with_source, asked.with_injections
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # tau2.registry imports litellm: stay offline
    settings = settings or BabelflowSettings()
    progress = progress or (lambda message: None)
    costs = costs or CostLedger()
    validate_language_tag(language)
    runner = runner_of(benchmark)
    source_language = available_family_of(benchmark).source_language_of(benchmark)
    if trials < 1:
        raise BabelflowError("--trials must be at least 1", field="--trials", fix="e.g. --trials 4 for pass^1..pass^4")
    models = _models(asked.models, runner, benchmark, language, costs)
    variant = variant or settings.layout.variant(benchmark, language)
    _check_variant(benchmark, language, variant)
    progress("registering the variant in its harness")
    prepared = runner.prepare(benchmark, language, variant, verbose=verbose)
    chosen = _chosen_tasks(benchmark, prepared, task_ids)
    injections: list[str | None] = [None, *prepared.injection_task_ids] if with_injections else [None]
    scripts = {task_id: runner.gold_script(prepared, task_id) for task_id in chosen}  # read once (τ³: the worker)
    gold_values = {
        value
        for script in scripts.values()
        for call in script.calls
        for value in call.arguments.values()
        if isinstance(value, str)
    }
    trajectories: list[TrajectoryLine] = []
    plan = RunPlan(
        side="variant",
        run=prepared,
        source_language=source_language,
        task_ids=chosen,
        injection_task_ids=injections,
        counterparts=counterparts_of(variant, benchmark, language, gold_values),
        scripts=scripts,
    )
    run = run_side(runner, plan, models, trials=trials, progress=progress, trajectories=trajectories, verbose=verbose)
    source_run: RunSummary | None = None
    if with_source:
        # the packaged source, as its own harness has it
        source = runner.prepare(benchmark, source_language, None, verbose=verbose)
        source_plan = RunPlan(
            side="source", run=source, source_language=source_language, task_ids=chosen, injection_task_ids=injections
        )
        source_run = run_side(
            runner, source_plan, models, trials=trials, progress=progress, trajectories=trajectories, verbose=verbose
        )
    write_bytes_atomic(
        trajectories_path(variant), b"".join(line.model_dump_json().encode() + b"\n" for line in trajectories)
    )
    report = EvaluationReport(
        benchmark=benchmark,
        language=language,
        variant=variant,
        created=datetime.now(UTC).isoformat(timespec="seconds"),
        agent_llm=models.agent.label if models.agent is not None else agent_llm,
        user_llm=models.user.label if models.user is not None else user_llm,
        judge_llm=models.judge.label if models.judge is not None else "",
        measures_model=models.agent_misbehaviour is None and not models.user_scripted,
        trials_per_task=trials,
        variant_run=run,
        source_run=source_run,
        trajectories=trajectories_path(variant),
        costs=costs.report(),
    )
    write_bytes_atomic(evaluation_path(variant), report.model_dump_json(indent=2).encode())
    return report
