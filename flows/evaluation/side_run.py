"""One side of an evaluation (the variant or its source): every trial run, checked and summarized.

Each trial is scored by the family's harness; the agent's and user's replies are checked for the run's
language (babelflow/language_id.py, or the pseudo-locale's rendering) and classified by the failure taxonomy.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from babelflow.canonical_map import load_canonical_map
from babelflow.errors import BabelflowError
from babelflow.ir import Record
from babelflow.language_id import identify, supported
from babelflow.language_pack import load_pack
from babelflow.target_language import accentable, in_pack_language
from babelflow.variant import CANONICAL_MAP_NAME
from flows.evaluation.report import RunSummary, TaskResult, TrajectoryLine, TrialResult, pass_hat_k
from flows.evaluation.taxonomy import NUMBERING_ZEROS, FailureClass, classify_trial
from source_benchmarks.agent_runs import AgentEvaluation, GoldScript, PreparedRun, TrialSpec
from source_benchmarks.scripted_models import Misbehaviour, ScriptedAgent, ScriptedUser
from translators.pseudo_locale import pseudo_translate_text


def language_checker(language: str, source_language: str = "en") -> Callable[[str], str | None]:
    """text -> the language it is in (`language`, the source's, ...) or None when too short to tell."""
    pack = load_pack(language)
    if pack.is_pseudo:  # lingua does not know pseudo-locales: their rendering is the signal
        judgeable = accentable if pack.offline_rendering == "accented" else (lambda text: True)
        return lambda text: (
            (language if in_pack_language(text, pack) else source_language)
            if sum(c.isalpha() for c in text) >= 12 and judgeable(text)
            else None
        )
    if language.split("-")[0] == source_language.split("-")[0]:
        return lambda text: language
    if not supported(language):
        raise BabelflowError(
            f"No language identifier for {language!r}",
            field="--lang",
            fix="language consistency needs a language lingua knows (ISO 639-1)",
        )
    tags = (language, source_language)
    return lambda text: identify(text, tags)


class RunPlan(Record):
    """One side of an evaluation (variant or source) and what its trials need besides the models."""

    side: Literal["variant", "source"]
    run: PreparedRun
    source_language: str = Field(default="en", description="the benchmark's source language (BCP 47)")
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
    judge: Any = Field(default=None, exclude=True, description="the scoring model, where the family reads one")

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
    identify = language_checker(language, plan.source_language)
    zeros = native_digit_zeros(language) if language != plan.source_language else set()
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
                    judge=models.judge,
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
                        unscored=record.unscored,
                    )
                )
                if injection is None and record.reward is not None:  # None: nothing scored it
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
    scored = [r.reward for r in plain if r.reward is not None]
    replies = sum(r.agent_replies for r in results)
    user_replies = sum(r.user_replies for r in results)
    totals: Counter[FailureClass] = Counter()
    unscored: Counter[str] = Counter()
    for result in results:
        totals.update(result.failures)
        unscored.update(result.unscored)
    return RunSummary(
        domain=plan.run.harness_name,
        agent=plan.run.agent_name,
        user=plan.run.user_name,
        language=plan.run.language,
        average_reward=sum(scored) / len(scored) if scored else None,
        utility_rate=_share([r.utility for r in plain if r.utility is not None]),
        attack_success_rate=_share([r.attack_succeeded for r in results if r.attack_succeeded is not None]),
        pass_hat_k=pass_hat_k([t.successes for t in by_task], trials) if scored else {},
        language_consistency=(sum(r.agent_replies_in_language for r in results) / replies) if replies else None,
        user_language_consistency=(
            sum(r.user_replies_in_language for r in results) / user_replies if user_replies else None
        ),
        failures=dict(totals),
        unscored=dict(unscored),
        tasks=by_task,
        trials=results,
    )
