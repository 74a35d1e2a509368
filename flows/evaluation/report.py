"""What `babelflow evaluate` reports: per trial, per task and per run, and where the report is saved.

The report is JSON next to the variant (`adapted/<benchmark>/<lang>.evaluation.json`, beside, not inside, so
the signed variant's file hashes stay valid) with the trajectories as JSON lines beside it.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Literal

from pydantic import Field

from babelflow.ir import Record
from babelflow.llm.costs import CostReport
from flows.evaluation.taxonomy import FailureClass, TaxonomyHit
from source_benchmarks.agent_runs import TrialRecord


class TrialResult(Record):
    task_id: str
    trial: int
    injection_task_id: str | None = None
    reward: float | None = Field(description="None: nothing scored the trial (VitaBench without a judge model)")
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
    unscored: list[str] = Field(default_factory=list, description="TrialRecord.unscored")
    failure_evidence: list[TaxonomyHit] = Field(default_factory=list)


class TaskResult(Record):
    task_id: str
    rewards: list[float] = Field(description="the scored trials' rewards")
    successes: int = Field(description="trials with reward 1.0")
    failures: dict[FailureClass, int] = Field(default_factory=dict)


class RunSummary(Record):
    domain: str = Field(description="the harness's name for the run: tau2 domain, AgentDojo version/suite")
    agent: str
    user: str
    language: str
    average_reward: float | None = Field(description="over the scored trials; None when none was scored")
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
    unscored: dict[str, int] = Field(
        default_factory=dict, description="reward basis -> trials that did not score it (no judge model in this run)"
    )
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
    judge_llm: str = Field(default="", description="the judge model, where the harness scores by one")
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


def evaluation_path(variant: Path) -> Path:
    return variant.parent / f"{variant.name}.evaluation.json"


def trajectories_path(variant: Path) -> Path:
    return variant.parent / f"{variant.name}.trajectories.jsonl"
