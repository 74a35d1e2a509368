"""Step 4: run the probes of the four layers, let the validator agents review, merge one failure set."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from babelflow.canonical_map import CanonicalMap
from babelflow.ir import IRDocument
from source_benchmarks.protocol import SourceBenchmark
from validators.agents import Reviewer, ValidatorAgent
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
    if source.id.startswith("agentdojo-"):  # YAML + code overlay, behaviour by ground-truth scores
        from validators.agentdojo import validate_agentdojo

        return validate_agentdojo(source, variant_dir, ir, language, progress, source_pairs)
    agents = agents if agents is not None else [ValidatorAgent(v) for v in DEFAULT_VALIDATORS]
    ctx = ValidationContext(source, variant_dir, ir, language, canonical_map)
    probe_findings, suppressed = run_probes(ctx, progress, source_pairs, target_pairs)
    reports = [probe_findings]
    notes: list[str] = []
    for agent in agents:
        progress(f"review by {agent.validator_id}")
        # each agent gets its own context: no shared caches, no view of the others' reports
        own = ValidationContext(source, variant_dir, ir, language, canonical_map)
        own.variant_bench = ctx.variant_bench
        report = agent.review(own, probe_findings)
        reports.append(report.findings)
        if report.note:
            notes.append(f"{agent.validator_id}: {report.note}")
    names = [PROBES] + [a.validator_id for a in agents]
    return merge(ir.benchmark, language, reports, names, suppressed, notes)
