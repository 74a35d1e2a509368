"""`babelflow evaluate`: run an agent on a variant (and optionally its source) and report it.

Registers the variant in tau2's registry, runs tau2's orchestrator with the localized agent and
user simulator (source_benchmarks/tau2/evaluation.py) through the provider layer
(flows/agent_models.py), and reports reward per task, pass^k, token cost and the language
consistency of the agent's replies (babelflow/language_id.py). The report is saved as JSON next
to the variant: `adapted/<benchmark>/<lang>.evaluation.json` (beside, not inside, so the signed
variant's file hashes stay valid).
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import Field

from babelflow.atomic_io import write_bytes_atomic
from babelflow.errors import BabelflowError
from babelflow.ir import Record
from babelflow.language_id import identify, supported
from babelflow.language_pack import load_pack
from babelflow.llm.costs import CostLedger, CostReport
from babelflow.settings import BabelflowSettings
from babelflow.target_language import in_pack_language
from babelflow.variant import OVERLAY_NAME, load_manifest, load_overlay
from flows.agent_models import ProviderChatModel
from source_benchmarks import available_family_of, families, get_benchmark, open_variant
from translators.registry import validate_language_tag

SOURCE_LANGUAGE = "en"


class TrialResult(Record):
    task_id: str
    trial: int
    reward: float
    termination_reason: str
    agent_replies: int = Field(description="agent text messages long enough to identify their language")
    agent_replies_in_language: int
    agent_reply_languages: dict[str, int] = Field(default_factory=dict, description="identified language -> replies")


class TaskResult(Record):
    task_id: str
    rewards: list[float]
    successes: int = Field(description="trials with reward 1.0")


class RunSummary(Record):
    domain: str
    agent: str
    user: str
    language: str
    average_reward: float
    pass_hat_k: dict[int, float] = Field(
        description="k -> probability that all k i.i.d. trials succeed (τ-bench's pass^k)"
    )
    language_consistency: float | None = Field(
        description="share of identified agent replies in the run's language; None if none were identifiable"
    )
    tasks: list[TaskResult]
    trials: list[TrialResult]


class EvaluationReport(Record):
    schema_version: str = "babelflow.evaluation/1"
    benchmark: str
    language: str
    variant: Path
    created: str
    agent_llm: str
    user_llm: str
    trials_per_task: int
    variant_run: RunSummary
    source_run: RunSummary | None = None
    costs: CostReport


def pass_hat_k(successes: list[int], trials: int) -> dict[int, float]:
    """τ-bench's pass^k: mean over tasks of C(c, k) / C(n, k), for k = 1..n."""
    if not successes:
        return {}
    return {
        k: sum(math.comb(c, k) for c in successes) / (len(successes) * math.comb(trials, k))
        for k in range(1, trials + 1)
    }


def language_checker(language: str) -> Callable[[str], str | None]:
    """text -> the language it is in (`language`, `en`, ...) or None when too short to tell."""
    pack = load_pack(language)
    if pack.is_pseudo:  # lingua does not know pseudo-locales: their rendering is the signal
        return lambda text: (
            (language if in_pack_language(text, pack) else SOURCE_LANGUAGE)
            if sum(c.isalpha() for c in text) >= 12
            else None
        )
    if language.split("-")[0] == SOURCE_LANGUAGE:
        return lambda text: language
    if not supported(language):
        raise BabelflowError(
            f"No language identifier for {language!r}",
            field="--lang",
            fix="language consistency needs a language lingua knows (ISO 639-1)",
        )
    tags = (language, SOURCE_LANGUAGE)
    return lambda text: identify(text, tags)


def run_domain(
    runner: Any,
    domain: str,
    agent_name: str,
    user_name: str,
    language: str,
    tasks: list,
    agent_model,
    user_model,
    *,
    trials: int,
    greeting: str | None,
    progress: Callable[[str], None],
) -> RunSummary:
    """`runner`: the family's agent evaluation (run_trial, agent_texts)."""
    identify = language_checker(language)
    results: list[TrialResult] = []
    by_task: list[TaskResult] = []
    for task in tasks:
        rewards = []
        for trial in range(trials):
            progress(f"{domain}: task {task.id} trial {trial + 1}/{trials}")
            simulation = runner.run_trial(
                domain, task, agent_name, user_name, agent_model, user_model, greeting=greeting, seed=trial
            )
            reward = float(simulation.reward_info.reward) if simulation.reward_info else 0.0
            found = [identify(text) for text in runner.agent_texts(simulation, task)]
            counts: dict[str, int] = {}
            for tag in filter(None, found):
                counts[tag] = counts.get(tag, 0) + 1
            results.append(
                TrialResult(
                    task_id=task.id,
                    trial=trial,
                    reward=reward,
                    termination_reason=simulation.termination_reason.value,
                    agent_replies=sum(counts.values()),
                    agent_replies_in_language=counts.get(language, 0),
                    agent_reply_languages=counts,
                )
            )
            rewards.append(reward)
        by_task.append(TaskResult(task_id=task.id, rewards=rewards, successes=sum(r >= 1.0 for r in rewards)))
    replies = sum(r.agent_replies for r in results)
    return RunSummary(
        domain=domain,
        agent=agent_name,
        user=user_name,
        language=language,
        average_reward=sum(r.reward for r in results) / len(results) if results else 0.0,
        pass_hat_k=pass_hat_k([t.successes for t in by_task], trials),
        language_consistency=(sum(r.agent_replies_in_language for r in results) / replies) if replies else None,
        tasks=by_task,
        trials=results,
    )


def evaluation_path(variant: Path) -> Path:
    return variant.parent / f"{variant.name}.evaluation.json"


def evaluate(
    benchmark: str,
    language: str,
    agent_llm: str,
    user_llm: str,
    *,
    trials: int = 1,
    task_ids: list[str] | None = None,
    with_source: bool = False,
    settings: BabelflowSettings | None = None,
    variant: Path | None = None,
    progress: Callable[[str], None] | None = None,
    costs: CostLedger | None = None,
) -> EvaluationReport:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # tau2.registry imports litellm: stay offline
    settings = settings or BabelflowSettings()
    progress = progress or (lambda message: None)
    costs = costs or CostLedger()
    validate_language_tag(language)
    family = available_family_of(benchmark)
    runner = family.agent_evaluation()
    if runner is None:
        able = [bid for f in families().values() if f.agent_evaluation() is not None for bid in f.benchmark_ids()]
        raise BabelflowError(
            f"`evaluate` has no agent runner for the {family.name} family ({benchmark})",
            field="BENCHMARK",
            fix=f"use one of: {', '.join(able)}",
        )
    if trials < 1:
        raise BabelflowError("--trials must be at least 1", field="--trials", fix="e.g. --trials 4 for pass^1..pass^4")
    agent_model = ProviderChatModel(
        agent_llm, field="--agent-llm", stage="evaluate-agent", language=language, costs=costs
    )
    user_model = ProviderChatModel(user_llm, field="--user-llm", stage="evaluate-user", language=language, costs=costs)
    variant = variant or settings.layout.variant(benchmark, language)
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
    progress(f"registering the variant in {family.name}")
    domain = runner.register_variant(variant)
    bench = open_variant(benchmark, variant)
    chosen = task_ids or bench.task_ids(None)
    unknown = [t for t in chosen if t not in set(bench.task_ids(None))]
    if unknown:
        raise BabelflowError(
            f"Unknown task id(s) {', '.join(unknown[:5])}",
            field="--tasks",
            fix=f"task ids of {benchmark}: {', '.join(bench.task_ids(None)[:5])}, …",
        )
    overlay = load_overlay(variant / OVERLAY_NAME)
    greeting = overlay.translated("orchestrator/orchestrator.py", runner.default_greeting()) if overlay else None
    run = run_domain(
        runner,
        domain,
        f"llm_agent_{language}",
        f"user_simulator_{language}",
        language,
        [bench.task(t) for t in chosen],
        agent_model,
        user_model,
        trials=trials,
        greeting=greeting,
        progress=progress,
    )
    source_run = None
    if with_source:
        source = get_benchmark(benchmark)  # the packaged source, registered by its harness itself
        source_run = run_domain(
            runner,
            runner.source_domain(benchmark),
            "llm_agent",
            "user_simulator",
            SOURCE_LANGUAGE,
            [source.task(t) for t in chosen],
            agent_model,
            user_model,
            trials=trials,
            greeting=None,
            progress=progress,
        )
    report = EvaluationReport(
        benchmark=benchmark,
        language=language,
        variant=variant,
        created=datetime.now(UTC).isoformat(timespec="seconds"),
        agent_llm=agent_model.label,
        user_llm=user_model.label,
        trials_per_task=trials,
        variant_run=run,
        source_run=source_run,
        costs=costs.report(),
    )
    write_bytes_atomic(evaluation_path(variant), report.model_dump_json(indent=2).encode())
    return report
