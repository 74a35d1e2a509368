"""Source benchmark adapters behind one protocol (see protocol.py)."""

from __future__ import annotations

from pathlib import Path

from babelflow.errors import BabelflowError
from source_benchmarks.protocol import ArtifactSpec, ReplayOutcome, SourceBenchmark, ToolCallRecord

TAU2_BENCHMARKS = ("tau2-airline", "tau2-retail", "tau2-telecom", "tau2-mock")
FIXTURE_BENCHMARK = "fixture-library"
TAU2_PACKAGE_PREFIX = "tau2-pkg:"  # + a tau2-style domain package's module (source_benchmarks/tau2/domain_package.py)
AGENTDOJO_BENCHMARKS = ("agentdojo-workspace", "agentdojo-travel", "agentdojo-banking", "agentdojo-slack")  # also "<id>@<version>"
BENCHMARK_IDS = TAU2_BENCHMARKS + (FIXTURE_BENCHMARK,) + AGENTDOJO_BENCHMARKS


def is_agentdojo(benchmark_id: str) -> bool:
    return benchmark_id.partition("@")[0] in AGENTDOJO_BENCHMARKS


def get_benchmark(benchmark_id: str, source_dir: Path | None = None) -> SourceBenchmark:
    """Return the adapter for a benchmark id, with an optional folder that replaces its data files."""
    if benchmark_id in TAU2_BENCHMARKS or benchmark_id.startswith(TAU2_PACKAGE_PREFIX):
        from source_benchmarks.tau2.adapter import Tau2Benchmark

        return Tau2Benchmark(benchmark_id, source_dir=source_dir)
    if benchmark_id == FIXTURE_BENCHMARK:
        from source_benchmarks.fixture.adapter import FixtureBenchmark

        return FixtureBenchmark(source_dir=source_dir)
    if is_agentdojo(benchmark_id):
        from source_benchmarks.agentdojo.adapter import AgentDojoBenchmark

        return AgentDojoBenchmark(benchmark_id, variant_root=source_dir)
    raise BabelflowError(f"Unknown benchmark {benchmark_id!r}", field="benchmark", fix=f"use one of: {', '.join(BENCHMARK_IDS)}")


def open_variant(benchmark_id: str, variant_root: Path) -> SourceBenchmark:
    """An adapted variant (adapted/<benchmark>/<language>/) seen through the same adapter as its source."""
    from babelflow.variant import OVERLAY_NAME, load_overlay

    variant_root = Path(variant_root)
    if not variant_root.is_dir():
        raise BabelflowError("Variant folder does not exist", file=variant_root, fix="run `babelflow adapt` first or pass the right --variant")
    overlay = load_overlay(variant_root / OVERLAY_NAME)
    if benchmark_id in TAU2_BENCHMARKS or benchmark_id.startswith(TAU2_PACKAGE_PREFIX):
        from source_benchmarks.tau2.adapter import Tau2Benchmark

        return Tau2Benchmark(benchmark_id, source_dir=variant_root / Tau2Benchmark.data_prefix, overlay=overlay)
    if benchmark_id == FIXTURE_BENCHMARK:
        from source_benchmarks.fixture.adapter import FixtureBenchmark

        return FixtureBenchmark(source_dir=variant_root, overlay=overlay)
    if is_agentdojo(benchmark_id):
        from source_benchmarks.agentdojo.adapter import AgentDojoBenchmark

        return AgentDojoBenchmark(benchmark_id, variant_root=variant_root, overlay=overlay)
    raise BabelflowError(f"Unknown benchmark {benchmark_id!r}", field="benchmark", fix=f"use one of: {', '.join(BENCHMARK_IDS)}")


__all__ = ["ArtifactSpec", "ReplayOutcome", "SourceBenchmark", "ToolCallRecord", "get_benchmark", "open_variant", "BENCHMARK_IDS", "TAU2_BENCHMARKS"]
