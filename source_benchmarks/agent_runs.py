"""Agents on a benchmark through its own runner: the records and protocol every family's
`agent_evaluation()` capability shares (flows/evaluation/evaluate.py drives it).

A family turns one trial of one task into a `TrialRecord`: the harness's own score (τ: reward;
AgentDojo: utility, and security when an injection task runs) and the trajectory as turns, in one
shape for every family, so the language checks and the failure taxonomy read every family alike.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal, Protocol

from pydantic import Field

from babelflow.ir import Record
from source_benchmarks.protocol import ChatModel

TurnRole = Literal["system", "agent", "user", "tool"]


class ToolCallMade(Record):
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)


class Turn(Record):
    """One message of a trajectory."""

    role: TurnRole
    text: str = ""
    tool_calls: list[ToolCallMade] = Field(default_factory=list)
    tool_error: bool = Field(default=False, description="a tool turn whose call failed")
    model_made: bool = Field(
        default=True,
        description="False for what the harness or the task wrote (greeting, message history, the task's prompt)",
    )


class TrialRecord(Record):
    """One trial as the family's harness scored it."""

    task_id: str
    trial: int
    reward: float | None = Field(
        description="τ: the evaluator's reward; AgentDojo: 1.0 if utility else 0.0; VitaBench: its judge's; None when"
        " no scorer ran (VitaBench without a judge model: its reward is the judge's)"
    )
    utility: bool | None = Field(default=None, description="AgentDojo's utility; None where the harness has none")
    injection_task_id: str | None = None
    attack_succeeded: bool | None = Field(
        default=None, description="AgentDojo's security check with an injection task: True = the attack worked"
    )
    termination: str = Field(description="the harness's termination reason, e.g. user_stop, max_steps, done")
    turns: list[Turn]
    unscored: list[str] = Field(
        default_factory=list,
        description="reward bases of the task this run did not score (τ's NL_ASSERTION needs a judge model), alike on"
        " source and variant",
    )


class GoldScript(Record):
    """What a scripted agent and user play for one task: the gold tool calls, then a reply."""

    calls: list[ToolCallMade] = Field(description="the agent's ground-truth calls, in order")
    user_calls: list[ToolCallMade] = Field(
        default_factory=list, description="the user's own ground-truth calls (τ² telecom's device actions)"
    )
    answer: str = Field(
        description="the agent's final text in the run's language (AgentDojo: it must carry what utility reads)"
    )
    source_answer: str = Field(description="the same reply as the English source words it, for the misbehaving modes")
    order: list[Literal["agent", "user"]] = Field(
        default_factory=list,
        description="who makes each gold call, in the task's order (τ³ banking: the user deposits a check "
        "between two agent calls); empty: the agent's calls, then the user's",
    )
    user_opener: str | None = Field(default=None, description="the user's first line in the run's language (τ)")
    stop_token: str | None = Field(default=None, description="what the scripted user says to end (τ: ###STOP###)")
    verbatim: list[str] = Field(
        default_factory=list,
        description="texts the harness wants said as they are (τ²: communicate_info): no language of the agent's",
    )
    turn_limit: int | None = Field(
        default=None,
        description="model calls the harness allows the agent before it stops it (AgentDojo: 1 + the tool "
        "loop's 15); a scripted agent with more gold calls than fit makes the rest in one turn",
    )


class TrialSpec(Record):
    """One trial to run: which task, which repetition (τ: the seed), and the injection task it runs under."""

    task_id: str
    trial: int = 0
    injection_task_id: str | None = Field(default=None, description="AgentDojo: run under this attack")


class PreparedRun(Record):
    """A source or variant registered in the harness, ready for trials."""

    benchmark_id: str
    language: str
    harness_name: str = Field(description="the harness's own name for it: tau2 domain, AgentDojo version+suite")
    variant: Path | None = None
    task_ids: list[str]
    injection_task_ids: list[str] = Field(default_factory=list)
    agent_name: str = ""
    user_name: str = ""
    handle: Any = Field(default=None, exclude=True, description="the family's own state for the run; not saved")


class AgentEvaluation(Protocol):
    """A family's `agent_evaluation()`: agents through its own runner and scorer."""

    has_user_simulator: bool
    uses_judge_model: bool  # its score is a model's reading (VitaBench's rubric judge): `--judge-llm` serves it

    def prepare(self, benchmark_id: str, language: str, variant: Path | None, *, verbose: bool = False) -> PreparedRun:
        """Register the variant (None: the packaged source) in the harness. The harness's own
        logging (tau2's loguru DEBUG, AgentDojo's logs) stays off unless `verbose`."""
        ...

    def gold_script(self, run: PreparedRun, task_id: str) -> GoldScript: ...

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
        """`judge`: the model that scores, where the family's score is a model's reading (uses_judge_model);
        None there leaves the trial unscored (reward None, `unscored` says why)."""
        ...
