"""Step 4: run the probes of the four layers, let the validator agents review, merge one failure set."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from babelflow.canonical_map import CanonicalMap
from babelflow.ir import IRDocument
from source_benchmarks.family import Capability
from source_benchmarks.protocol import SourceBenchmark
from source_benchmarks.registry import family_of
from validators.agents import NOT_CONFIGURED, Reviewer, ValidatorAgent
from validators.context import ValidationContext
from validators.findings import FailureSet, Finding, merge
from validators.probes.behavior import check_behavior
from validators.probes.consistency import check_consistency
from validators.probes.fidelity import check_fidelity
from validators.probes.integrity import check_integrity

PROBES = "probes"
DEFAULT_VALIDATORS = ("validator-1", "validator-2", "validator-3")


def run_probes(ctx: ValidationContext, progress: Callable[[str], None] = lambda m: None, source_pairs: dict | None = None, target_pairs: dict | None = None) -> tuple[list[Finding], list]:
    """All four layers; integrity first because its failures suppress dependent checks."""
    progress("integrity & structure")
    findings, suppressed = check_integrity(ctx, PROBES)
    progress("cross-artifact consistency")
    findings += check_consistency(ctx, PROBES, suppressed)
    progress("semantic fidelity")
    findings += check_fidelity(ctx, PROBES, suppressed)
    progress("behavioural equivalence")
    findings += check_behavior(ctx, PROBES, suppressed, source_pairs=source_pairs, target_pairs=target_pairs)
    return findings, suppressed


def validate_variant(
    source: SourceBenchmark,
    variant_dir: Path,
    ir: IRDocument,
    language: str,
    *,
    canonical_map: CanonicalMap | None = None,
    agents: list[Reviewer] | None = None,
    progress: Callable[[str], None] = lambda m: None,
    source_pairs: dict | None = None,
    target_pairs: dict | None = None,
) -> FailureSet:
    if Capability.SCORED_BEHAVIOUR in family_of(source.id).capabilities:  # behaviour by ground-truth scores
        from validators.agentdojo import validate_agentdojo

        return validate_agentdojo(source, variant_dir, ir, language, progress, source_pairs)
    agents = agents if agents is not None else [ValidatorAgent(v) for v in DEFAULT_VALIDATORS]
    ctx = ValidationContext(source, variant_dir, ir, language, canonical_map)
    probe_findings, suppressed = run_probes(ctx, progress, source_pairs, target_pairs)

    def own_context() -> ValidationContext:
        own = ValidationContext(source, variant_dir, ir, language, canonical_map)
        own.variant_bench = ctx.variant_bench  # the loaded variant is read-only: shared
        return own

    reviews = review_by_agents(agents, own_context, probe_findings, progress)
    return merge(ir.benchmark, language, [probe_findings, *reviews.reports], [PROBES, *reviews.names], suppressed, reviews.notes)


@dataclass
class AgentReviews:
    """What the validator agents said, in agent order, ready to merge with the probes' findings."""

    reports: list[list[Finding]] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @classmethod
    def not_configured(cls) -> AgentReviews:
        return cls(reports=[], names=list(DEFAULT_VALIDATORS), notes=[f"{v}: {NOT_CONFIGURED}" for v in DEFAULT_VALIDATORS])


def review_by_agents(agents: list[Reviewer], own_context: Callable[[], ValidationContext], probe_findings: list[Finding], progress: Callable[[str], None] = lambda m: None) -> AgentReviews:
    """Each agent reviews in a context of its own: no shared caches, no view of the others' reports."""
    reviews = AgentReviews()
    for agent in agents:
        progress(f"review by {agent.validator_id}")
        report = agent.review(own_context(), probe_findings)
        reviews.reports.append(report.findings)
        reviews.names.append(agent.validator_id)
        if report.note:  # what the agent read, or why it could not
            reviews.notes.append(f"{agent.validator_id}: {report.note}")
    return reviews
