"""The flow's optional evaluation stage: agents on the variant (and its source) once the failure set
is empty, through `flows.evaluation.evaluate` — the same runner, scorer and taxonomy as `babelflow evaluate`.

Configured like the validators, by spec strings (`--evaluate-agent scripted --evaluate-user scripted`,
or provider models); cached on the variant's manifest (every output file's hash) and the specs, so a
rerun with nothing changed does not evaluate again. Its report becomes a Prefect artifact.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import Field

from babelflow.adapt_request import AgentRunRequest, EvaluationRequest
from babelflow.adaptation_run import AdaptationRun
from babelflow.errors import BabelflowError
from babelflow.ir import Record
from babelflow.llm.costs import CostLedger
from babelflow.variant import MANIFEST_NAME
from flows.evaluation.evaluate import EvaluationReport, RunSummary, evaluate, evaluation_path, runner_of
from flows.evaluation.taxonomy import FailureClass
from flows.pipeline.stages import key_of


class EvaluationConfig(Record):
    agent: str = Field(description="agent model spec: scripted[:behaviour] or provider:model")
    user: str = Field(description="user simulator spec (same grammar)")
    judge: str = Field(default="", description="judge model spec (VitaBench); '' = none")
    trials: int = Field(default=1, ge=1)
    with_source: bool = Field(default=True, description="run the same agents on the English source, side by side")


class EvaluationStageResult(Record):
    report: Path
    trajectories: Path
    markdown: str


def evaluation_config(asked: EvaluationRequest) -> EvaluationConfig | None:
    """None when the flow was not asked to evaluate; both specs or neither."""
    if not asked.asked:
        return None
    if not asked.agent or not asked.user:
        raise BabelflowError(
            "The evaluation stage needs both an agent and a user model",
            field="--evaluate-agent/--evaluate-user",
            fix="pass both, e.g. --evaluate-agent scripted --evaluate-user scripted",
        )
    return EvaluationConfig(agent=asked.agent, user=asked.user, judge=asked.judge, trials=asked.trials)


def check_evaluation(run: AdaptationRun, config: EvaluationConfig) -> None:
    """Refused before any work: a family without an agent runner."""
    runner_of(run.benchmark)


def evaluation_key(variant: Path, config: EvaluationConfig) -> str:
    """The variant as built (its manifest lists every output's hash) and what runs on it."""
    return key_of((variant / MANIFEST_NAME).read_bytes(), config.model_dump_json())


def stage_evaluate(run: AdaptationRun, variant: Path, config: EvaluationConfig) -> EvaluationStageResult:
    models = EvaluationRequest(agent=config.agent, user=config.user, judge=config.judge, trials=config.trials)
    asked = AgentRunRequest(
        benchmark=run.benchmark, language=run.language, models=models, with_source=config.with_source, variant=variant
    )
    report = evaluate(asked, settings=run.settings, costs=CostLedger())
    return EvaluationStageResult(
        report=evaluation_path(variant), trajectories=report.trajectories, markdown=evaluation_markdown(report)
    )


def _cell(value: float | None, percent: bool = False) -> str:
    if value is None:
        return "—"
    return f"{value:.0%}" if percent else f"{value:.3f}"


def _row(label: str, run: RunSummary) -> str:
    passes = ", ".join(f"pass^{k} {v:.2f}" for k, v in sorted(run.pass_hat_k.items()))
    return (
        f"| {label} | `{run.domain}` | {_cell(run.average_reward)} | {_cell(run.utility_rate, True)} | "
        f"{_cell(run.attack_success_rate, True)} | {passes} | {_cell(run.language_consistency, True)} | "
        f"{_cell(run.user_language_consistency, True)} |"
    )


def evaluation_markdown(report: EvaluationReport) -> str:
    variant, source = report.variant_run, report.source_run
    lines = [
        f"# Agents on {report.benchmark} {report.language}",
        "",
        f"agent `{report.agent_llm}` · user `{report.user_llm}` · {report.trials_per_task} trial(s) per task",
    ]
    if not report.measures_model:
        lines += [
            "",
            "**Scripted run:** gold actions and the variant's own sentences. It shows the variant runs "
            "and scores in its harness; it measures no model.",
        ]
    lines += [
        "",
        "| run | harness | reward | utility | attacks that worked | pass^k | agent turns in language "
        "| user turns in language |",
        "|---|---|---|---|---|---|---|---|",
        _row(report.language, variant),
    ]
    if source is not None:
        lines.append(_row("source (en)", source))
    lines += ["", "## Failure taxonomy", "", f"| class | {report.language} | source (en) |", "|---|---|---|"]
    for failure in FailureClass:
        theirs = str(source.failures.get(failure, 0)) if source is not None else "—"
        lines.append(f"| {failure.value} | {variant.failures.get(failure, 0)} | {theirs} |")
    if source is not None:
        theirs_by_task = {t.task_id: t.rewards for t in source.tasks}
        differ = [t for t in variant.tasks if t.rewards != theirs_by_task.get(t.task_id)]
        lines += ["", f"## Tasks scoring differently: {len(differ)} of {len(variant.tasks)}", ""]
        lines += [f"- `{t.task_id}`: {t.rewards} (source {theirs_by_task.get(t.task_id)})" for t in differ[:50]]
    lines += [
        "",
        f"Trajectories (JSON lines, one trial each): [{report.trajectories.name}]({report.trajectories.as_uri()})",
        f"Report: `{report.variant.parent / (report.variant.name + '.evaluation.json')}`",
    ]
    return "\n".join(lines)
