"""Step 4 from files: validate a variant folder against its source (the CLI, benches, tests).

`variant_context` builds the validation context of a folder (with the canonical map it carries);
`validate_variant` hands it to the orchestrator (validators/orchestrator.py), which runs the same
layers and agents for every family as the Prefect flow's stages do."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any

from babelflow.canonical_map import CanonicalMap, load_canonical_map
from babelflow.ir import IRDocument
from babelflow.variant import CANONICAL_MAP_NAME
from source_benchmarks.protocol import SourceBenchmark
from validators.agents import Reviewer
from validators.context import ValidationContext
from validators.findings import FailureSet
from validators.orchestrator import DEFAULT_VALIDATORS, PROBES, AgentReviews, review_by_agents, run_probes, validate

__all__ = [
    "DEFAULT_VALIDATORS",
    "PROBES",
    "AgentReviews",
    "review_by_agents",
    "run_probes",
    "validate_variant",
    "variant_context",
]


def variant_context(
    source: SourceBenchmark,
    variant_dir: Path,
    ir: IRDocument,
    language: str,
    canonical_map: CanonicalMap | None = None,
    **inputs: Any,
) -> ValidationContext:
    """The context of a variant folder. `canonical_map` None: the map the variant was built with, which
    travels in it (translators/rebuild.py), if it has one. `inputs`: the context's other fields (the
    source's replays already run, the tasks to replay, the run's pack, a calibration)."""
    if canonical_map is None and (Path(variant_dir) / CANONICAL_MAP_NAME).is_file():
        canonical_map = load_canonical_map(Path(variant_dir) / CANONICAL_MAP_NAME, ir.benchmark, language)
    return ValidationContext(source, Path(variant_dir), ir, language, canonical_map, **inputs)


def validate_variant(
    ctx: ValidationContext, agents: list[Reviewer] | None = None, progress: Callable[[str], None] = lambda m: None
) -> FailureSet:
    """The checks on `ctx`, then each agent in a context of its own (the same inputs, no shared caches;
    the variant, once loaded, is read-only and shared)."""

    def own_context() -> ValidationContext:
        return dataclasses.replace(ctx, variant_bench=ctx.harness, inferred_policy=None)

    return validate(ctx, own_context, agents, progress)
