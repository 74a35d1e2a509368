"""One validation orchestrator for every benchmark family: the four layers, then the validator agents.

Each layer runs its registered checks (validators/checks.py, in validators/catalogue.py's order):
integrity runs first and adds to `suppressed` the checks its failures make meaningless (a missing
file, a skeleton no longer paired by position, a variant the harness rejects); the other layers skip
them. What differs between families is declared by the family (its typed hooks, behaviour scores) and
read by the checks, not dispatched here. Agents review afterwards, each in a context of its own, and everything merges
into one failure set.

The CLI (`babelflow validate`, `adapt --validators`) calls `validate`; the Prefect flow's stages
(flows/pipeline/stages.py) wrap `run_layer` per layer as cached tasks and `review_and_merge` as the merge.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import validators.catalogue  # noqa: F401 - registers every check
from validators.agent_exchange import AgentReport
from validators.agents import NOT_CONFIGURED, Reviewer, ValidatorAgent
from validators.checks import run_checks
from validators.context import ValidationContext
from validators.findings import FailureSet, Finding, Layer, SuppressedCheck, merge
from validators.task_ids import with_task_ids

PROBES = "probes"
DEFAULT_VALIDATORS = ("validator-1", "validator-2", "validator-3")
Progress = Callable[[str], None]

# in order: integrity first, because its failures suppress dependent checks
LAYERS: dict[Layer, str] = {
    Layer.INTEGRITY: "integrity & structure",
    Layer.CONSISTENCY: "cross-artifact consistency",
    Layer.FIDELITY: "semantic fidelity",
    Layer.BEHAVIOR: "behavioural equivalence",
}


def _quiet(message: str) -> None:
    return None


def run_layer(layer: Layer, ctx: ValidationContext, suppressed: list[SuppressedCheck]) -> list[Finding]:
    """One layer's checks. For integrity, `suppressed` is also its output (it is extended)."""
    return run_checks(layer, ctx, suppressed)


def run_probes(ctx: ValidationContext, progress: Progress = _quiet) -> tuple[list[Finding], list[SuppressedCheck]]:
    """The four layers in order: (findings, checks integrity suppressed)."""
    findings: list[Finding] = []
    suppressed: list[SuppressedCheck] = []
    for layer, label in LAYERS.items():
        progress(label)
        findings += run_layer(layer, ctx, suppressed)
    return findings, suppressed


@dataclass
class AgentReviews:
    """What the validator agents said, in agent order, ready to merge with the probes' findings."""

    reports: list[list[Finding]] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @classmethod
    def not_configured(cls) -> AgentReviews:
        """One note for the three absent agents, with what runs offline (the report's reader can act on it)."""
        note = (
            f"{', '.join(DEFAULT_VALIDATORS)}: {NOT_CONFIGURED}. Offline: `--validators backtranslation` (Apertium"
            " back-translation, languages with a reverse pair: es, ca, gl); with keys: `--validators"
            " openai:MODEL,anthropic:MODEL,dashscope:MODEL`"
        )
        return cls(reports=[], names=list(DEFAULT_VALIDATORS), notes=[note])


def review_by_agents(
    agents: list[Reviewer],
    own_context: Callable[[], ValidationContext],
    probe_findings: list[Finding],
    progress: Progress = _quiet,
) -> AgentReviews:
    """Each agent reviews in a context of its own: no shared caches, no view of the others' reports.
    The agents read at once (they wait on their models, not on one another); the reports keep agent order."""
    contexts = [own_context() for _ in agents]  # built here, one at a time: a context's loading is not shared

    def review(agent: Reviewer, ctx: ValidationContext) -> AgentReport:
        progress(f"review by {agent.validator_id}")
        return agent.review(ctx, probe_findings)

    if len(agents) > 1:
        with ThreadPoolExecutor(len(agents), thread_name_prefix="validator-agent") as pool:
            done = list(pool.map(review, agents, contexts))
    else:
        done = [review(agent, ctx) for agent, ctx in zip(agents, contexts, strict=True)]
    reviews = AgentReviews()
    for agent, report in zip(agents, done, strict=True):
        reviews.reports.append(report.findings)
        reviews.names.append(agent.validator_id)
        if report.note:  # what the agent read, or why it could not
            reviews.notes.append(f"{agent.validator_id}: {report.note}")
    return reviews


def review_and_merge(
    benchmark: str,
    language: str,
    probe_findings: list[Finding],
    suppressed: list[SuppressedCheck],
    agents: list[Reviewer] | None,
    own_context: Callable[[], ValidationContext],
    progress: Progress = _quiet,
) -> FailureSet:
    """The agents' reviews (none configured: the note says so) merged with the probes' findings."""
    reviews = AgentReviews.not_configured()
    if agents:
        reviews = review_by_agents(agents, own_context, probe_findings, progress)
    reports, names = [probe_findings, *reviews.reports], [PROBES, *reviews.names]
    merged = merge(benchmark, language, reports, names, suppressed, reviews.notes)
    return merged.model_copy(update={"findings": with_task_ids(merged.findings, own_context)})


def validate(
    ctx: ValidationContext,
    own_context: Callable[[], ValidationContext],
    agents: list[Reviewer] | None = None,
    progress: Progress = _quiet,
) -> FailureSet:
    """Probes on `ctx`, then every agent on a fresh `own_context()`; one failure set.

    `agents` None: the default agents, which say they have no model (the report's notes)."""
    probe_findings, suppressed = run_probes(ctx, progress)
    reviewers: list[Reviewer] = list(agents) if agents is not None else [ValidatorAgent(v) for v in DEFAULT_VALIDATORS]
    benchmark, language = ctx.ir.benchmark, ctx.language
    return review_and_merge(benchmark, language, probe_findings, suppressed, reviewers, own_context, progress)
