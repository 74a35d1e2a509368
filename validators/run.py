"""Step 4 from files: validate a variant folder against its source (the CLI, benches, tests).

Builds the validation context and hands it to the orchestrator (validators/orchestrator.py),
which runs the same layers and agents for every family as the Prefect flow's stages do."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from babelflow.canonical_map import CanonicalMap, load_canonical_map
from babelflow.ir import IRDocument
from babelflow.language_pack import LanguagePack
from babelflow.variant import CANONICAL_MAP_NAME
from source_benchmarks.protocol import SourceBenchmark
from validators.agents import Reviewer
from validators.calibration import Calibration
from validators.context import ReplayPairs, ValidationContext
from validators.findings import FailureSet
from validators.orchestrator import DEFAULT_VALIDATORS, PROBES, AgentReviews, review_by_agents, run_probes, validate

__all__ = ["DEFAULT_VALIDATORS", "PROBES", "AgentReviews", "review_by_agents", "run_probes", "validate_variant"]


def validate_variant(
    source: SourceBenchmark,
    variant_dir: Path,
    ir: IRDocument,
    language: str,
    *,
    canonical_map: CanonicalMap | None = None,
    agents: list[Reviewer] | None = None,
    progress: Callable[[str], None] = lambda m: None,
    source_pairs: ReplayPairs | None = None,
    target_pairs: ReplayPairs | None = None,
    pack: LanguagePack | None = None,
    task_ids: list[str] | None = None,
    calibration: Calibration | None = None,
) -> FailureSet:
    """`source_pairs`/`target_pairs` reuse replays already run (benches replay the source once);
    `pack`: the run's language pack (None: the one the project has for `language`, if any);
    `task_ids`: replay only these tasks in the behaviour layer (None: all; the other layers read every file)."""
    if canonical_map is None and (Path(variant_dir) / CANONICAL_MAP_NAME).is_file():
        # the map the variant was built with travels in it (translators/rebuild.py)
        canonical_map = load_canonical_map(Path(variant_dir) / CANONICAL_MAP_NAME, ir.benchmark, language)
    ctx = ValidationContext(source, variant_dir, ir, language, canonical_map, pack)
    ctx.source_pairs, ctx.target_pairs, ctx.task_ids = source_pairs, target_pairs, task_ids
    ctx.calibration = calibration  # held-out runs pass one calibrated without the language measured

    def own_context() -> ValidationContext:
        own = ValidationContext(source, variant_dir, ir, language, canonical_map, ctx.pack)
        own.variant_bench = ctx.variant_bench  # the loaded variant is read-only: shared
        own.calibration = calibration
        return own

    return validate(ctx, own_context, agents, progress)
