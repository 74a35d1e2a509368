"""`babelflow evaluate`: run an agent on a variant (and optionally its source) and report it.

Registers the variant in tau2's registry, runs tau2's orchestrator with the localized agent and
user simulator (source_benchmarks/tau_common/evaluation.py) through the provider layer
(flows/evaluation/agent_models.py), and reports reward per task, pass^k, token cost and the language
consistency of the agent's replies (babelflow/language_id.py). The report is saved as JSON next
to the variant: `adapted/<benchmark>/<lang>.evaluation.json` (beside, not inside, so the signed
variant's file hashes stay valid).
"""

from __future__ import annotations

import math
import os
from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from babelflow.atomic_io import write_bytes_atomic
from babelflow.canonical_map import load_canonical_map
from babelflow.errors import BabelflowError
from babelflow.ir import Record
from babelflow.language_id import identify, supported
from babelflow.language_pack import load_pack
from babelflow.llm.costs import CostLedger, CostReport
from babelflow.settings import BabelflowSettings
from babelflow.target_language import in_pack_language
from babelflow.variant import CANONICAL_MAP_NAME, load_manifest
from flows.evaluation.agent_models import ProviderChatModel
from flows.evaluation.taxonomy import NUMBERING_ZEROS, FailureClass, TaxonomyHit, classify_trial
from source_benchmarks import available_family_of, families
from source_benchmarks.agent_runs import AgentEvaluation, GoldScript, PreparedRun, TrialRecord, TrialSpec
from source_benchmarks.scripted_models import Misbehaviour, ScriptedAgent, ScriptedUser, parse_scripted
from translators.pseudo_locale import pseudo_translate_text
from translators.registry import validate_language_tag

SOURCE_LANGUAGE = "en"


class TrialResult(Record):
    task_id: str
    trial: int
    injection_task_id: str | None = None
    reward: float
    utility: bool | None = None
    attack_succeeded: bool | None = None
    termination_reason: str
    agent_replies: int = Field(description="agent text turns long enough to identify their language")
    agent_replies_in_language: int
    agent_reply_languages: dict[str, int] = Field(default_factory=dict, description="identified language -> replies")
    user_replies: int = 0
    user_replies_in_language: int = 0
    user_reply_languages: dict[str, int] = Field(default_factory=dict)
    failures: dict[FailureClass, int] = Field(default_factory=dict, description="taxonomy class -> occurrences")
    failure_evidence: list[TaxonomyHit] = Field(default_factory=list)


class TaskResult(Record):
    task_id: str
    rewards: list[float]
    successes: int = Field(description="trials with reward 1.0")
    failures: dict[FailureClass, int] = Field(default_factory=dict)


class RunSummary(Record):
    domain: str = Field(description="the harness's name for the run: tau2 domain, AgentDojo version/suite")
    agent: str
    user: str
    language: str
    average_reward: float
    utility_rate: float | None = Field(default=None, description="AgentDojo: share of trials with utility")
    attack_success_rate: float | None = Field(default=None, description="AgentDojo with injections")
    pass_hat_k: dict[int, float] = Field(
        description="k -> probability that all k i.i.d. trials succeed (τ-bench's pass^k)"
    )
    language_consistency: float | None = Field(
        description="share of identified agent replies in the run's language; None if none were identifiable"
    )
    user_language_consistency: float | None = None
    failures: dict[FailureClass, int] = Field(default_factory=dict, description="taxonomy totals over the trials")
    tasks: list[TaskResult]
    trials: list[TrialResult]


class EvaluationReport(Record):
    schema_version: str = "babelflow.evaluation/2"
    benchmark: str
    language: str
    variant: Path
    created: str
    agent_llm: str
    user_llm: str
    measures_model: bool = Field(description="False for scripted runs: they check the variant runs, not a model")
    trials_per_task: int
    variant_run: RunSummary
    source_run: RunSummary | None = None
    trajectories: Path = Field(description="JSON lines, one TrajectoryLine per trial")
    costs: CostReport


class TrajectoryLine(Record):
    run: Literal["variant", "source"]
    record: TrialRecord


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


class RunPlan(Record):
    """One side of an evaluation (variant or source) and what its trials need besides the models."""

    side: Literal["variant", "source"]
    run: PreparedRun
    task_ids: list[str]
    injection_task_ids: list[str | None] = Field(default_factory=lambda: list[str | None]([None]))
    counterparts: dict[str, str] = Field(default_factory=dict, description="value -> its other-language rendering")
    scripts: dict[str, GoldScript] = Field(
        default_factory=dict, description="task id -> its gold script, where already read (else read per task)"
    )


class Models(Record):
    """The agent and user specs of an evaluation: scripted (per task) or a provider model (shared)."""

    agent_misbehaviour: Misbehaviour | None
    user_scripted: bool
    agent: Any = Field(default=None, exclude=True)
    user: Any = Field(default=None, exclude=True)

    def for_task(self, script: GoldScript, counterparts: dict[str, str], native_zero: int | None):
        agent = (
            ScriptedAgent(script, self.agent_misbehaviour, counterparts=counterparts, native_zero=native_zero)
            if self.agent_misbehaviour is not None
            else self.agent
        )
        user = ScriptedUser(script) if self.user_scripted else self.user
        return agent, user


def native_digit_zeros(language: str) -> set[int]:
    """The digits the run's locale writes besides ASCII: CLDR's default and native numbering systems
    (Arabic: Arabic-Indic, Hindi: Devanagari, Persian: extended Arabic-Indic)."""
    from babel import Locale  # noqa: PLC0415 - babel's locale data only when evaluating

    pack = load_pack(language)
    locale = Locale.parse(pack.cldr_locale.replace("-", "_"))
    systems = {locale.default_numbering_system, locale.other_numbering_systems.get("native")}
    return {NUMBERING_ZEROS[system] for system in systems if system in NUMBERING_ZEROS}


def counterparts_of(variant: Path, benchmark: str, language: str, values: set[str]) -> dict[str, str]:
    """Value -> its rendering in the other language: the variant's canonical map both ways (source
    name vs localized name), and for a pseudo-locale its deterministic rendering of the gold values."""
    pairs: dict[str, str] = {}
    map_path = variant / CANONICAL_MAP_NAME
    if map_path.exists():
        for entry in load_canonical_map(map_path, benchmark, language).entries:
            if entry.source != entry.target and entry.review_state != "rejected":
                pairs.setdefault(entry.source, entry.target)
                pairs.setdefault(entry.target, entry.source)
    pack = load_pack(language)
    if pack.is_pseudo:
        for value in values:
            if any(c.isalpha() for c in value) and not any(c.isdigit() for c in value):  # ids stay ids
                pairs.setdefault(value, pseudo_translate_text(value, language, pack.offline_rendering))
    return pairs


def run_side(
    runner: AgentEvaluation,
    plan: RunPlan,
    models: Models,
    *,
    trials: int,
    progress: Callable[[str], None],
    trajectories: list[TrajectoryLine],
    verbose: bool,
) -> RunSummary:
    """Every trial of one side, scored by the family's harness, with language checks and taxonomy."""
    language = plan.run.language
    identify = language_checker(language)
    zeros = native_digit_zeros(language) if language != SOURCE_LANGUAGE else set()
    native_zero = next(iter(zeros), None)
    results: list[TrialResult] = []
    by_task: list[TaskResult] = []
    for task_id in plan.task_ids:
        script = plan.scripts.get(task_id) or runner.gold_script(plan.run, task_id)
        rewards: list[float] = []
        task_failures: Counter[FailureClass] = Counter()
        for injection in plan.injection_task_ids:
            for trial in range(trials):
                suffix = f" × {injection}" if injection else ""
                progress(f"{plan.side} {plan.run.harness_name}: task {task_id}{suffix} trial {trial + 1}/{trials}")
                agent, user = models.for_task(script, plan.counterparts, native_zero)
                record = runner.run_trial(
                    plan.run,
                    TrialSpec(task_id=task_id, trial=trial, injection_task_id=injection),
                    agent,
                    user if runner.has_user_simulator else None,
                    verbose=verbose,
                )
                trajectories.append(TrajectoryLine(run=plan.side, record=record))
                taxonomy = classify_trial(
                    record,
                    language=language,
                    identify=identify,
                    allowed_zeros=zeros,
                    gold_calls=script.calls + script.user_calls,
                    counterparts=plan.counterparts,
                    verbatim=script.verbatim,
                )
                counts = taxonomy.counts()
                task_failures.update(counts)
                agent_langs, user_langs = taxonomy.languages.agent, taxonomy.languages.user
                results.append(
                    TrialResult(
                        task_id=task_id,
                        trial=trial,
                        injection_task_id=injection,
                        reward=record.reward,
                        utility=record.utility,
                        attack_succeeded=record.attack_succeeded,
                        termination_reason=record.termination,
                        agent_replies=sum(agent_langs.values()),
                        agent_replies_in_language=agent_langs.get(language, 0),
                        agent_reply_languages=dict(agent_langs),
                        user_replies=sum(user_langs.values()),
                        user_replies_in_language=user_langs.get(language, 0),
                        user_reply_languages=dict(user_langs),
                        failures=counts,
                        failure_evidence=taxonomy.hits,
                    )
                )
                if injection is None:
                    rewards.append(record.reward)
        by_task.append(
            TaskResult(
                task_id=task_id,
                rewards=rewards,
                successes=sum(r >= 1.0 for r in rewards),
                failures=dict(task_failures),
            )
        )
    return summarize(plan, models, results, by_task, trials)


def _share(values: list[bool]) -> float | None:
    return sum(values) / len(values) if values else None


def summarize(
    plan: RunPlan, models: Models, results: list[TrialResult], by_task: list[TaskResult], trials: int
) -> RunSummary:
    plain = [r for r in results if r.injection_task_id is None]
    replies = sum(r.agent_replies for r in results)
    user_replies = sum(r.user_replies for r in results)
    totals: Counter[FailureClass] = Counter()
    for result in results:
        totals.update(result.failures)
    return RunSummary(
        domain=plan.run.harness_name,
        agent=plan.run.agent_name,
        user=plan.run.user_name,
        language=plan.run.language,
        average_reward=sum(r.reward for r in plain) / len(plain) if plain else 0.0,
        utility_rate=_share([r.utility for r in plain if r.utility is not None]),
        attack_success_rate=_share([r.attack_succeeded for r in results if r.attack_succeeded is not None]),
        pass_hat_k=pass_hat_k([t.successes for t in by_task], trials),
        language_consistency=(sum(r.agent_replies_in_language for r in results) / replies) if replies else None,
        user_language_consistency=(
            sum(r.user_replies_in_language for r in results) / user_replies if user_replies else None
        ),
        failures=dict(totals),
        tasks=by_task,
        trials=results,
    )


def evaluation_path(variant: Path) -> Path:
    return variant.parent / f"{variant.name}.evaluation.json"


def trajectories_path(variant: Path) -> Path:
    return variant.parent / f"{variant.name}.trajectories.jsonl"


def _models(agent_llm: str, user_llm: str, language: str, costs: CostLedger) -> Models:
    agent_misbehaviour = parse_scripted(agent_llm)
    user_misbehaviour = parse_scripted(user_llm)
    if user_misbehaviour not in (None, Misbehaviour.NONE):
        raise BabelflowError(
            f"The scripted user has no behaviour {user_llm!r}",
            field="--user-llm",
            fix="use --user-llm scripted (the misbehaviours are the agent's: --agent-llm scripted:english …)",
        )
    models = Models(agent_misbehaviour=agent_misbehaviour, user_scripted=user_misbehaviour is not None)
    if agent_misbehaviour is None:
        models.agent = ProviderChatModel(
            agent_llm, field="--agent-llm", stage="evaluate-agent", language=language, costs=costs
        )
    if user_misbehaviour is None:
        models.user = ProviderChatModel(
            user_llm, field="--user-llm", stage="evaluate-user", language=language, costs=costs
        )
    return models


def check_models(agent_llm: str, user_llm: str, language: str) -> None:
    """The specs parse and a provider model has its key: refused (exit 2) before any work."""
    _models(agent_llm, user_llm, language, CostLedger())


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
    benchmark: str,
    language: str,
    agent_llm: str,
    user_llm: str,
    *,
    trials: int = 1,
    task_ids: list[str] | None = None,
    with_source: bool = False,
    with_injections: bool = False,
    settings: BabelflowSettings | None = None,
    variant: Path | None = None,
    progress: Callable[[str], None] | None = None,
    costs: CostLedger | None = None,
    verbose: bool = False,
) -> EvaluationReport:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # tau2.registry imports litellm: stay offline
    settings = settings or BabelflowSettings()
    progress = progress or (lambda message: None)
    costs = costs or CostLedger()
    validate_language_tag(language)
    runner = runner_of(benchmark)
    if trials < 1:
        raise BabelflowError("--trials must be at least 1", field="--trials", fix="e.g. --trials 4 for pass^1..pass^4")
    models = _models(agent_llm, user_llm, language, costs)
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
        task_ids=chosen,
        injection_task_ids=injections,
        counterparts=counterparts_of(variant, benchmark, language, gold_values),
        scripts=scripts,
    )
    run = run_side(runner, plan, models, trials=trials, progress=progress, trajectories=trajectories, verbose=verbose)
    source_run = None
    if with_source:
        # the packaged source, as its own harness has it
        source = runner.prepare(benchmark, SOURCE_LANGUAGE, None, verbose=verbose)
        source_plan = RunPlan(side="source", run=source, task_ids=chosen, injection_task_ids=injections)
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
        measures_model=models.agent_misbehaviour is None and not models.user_scripted,
        trials_per_task=trials,
        variant_run=run,
        source_run=source_run,
        trajectories=trajectories_path(variant),
        costs=costs.report(),
    )
    write_bytes_atomic(evaluation_path(variant), report.model_dump_json(indent=2).encode())
    return report
