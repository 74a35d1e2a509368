"""Source benchmarks: families found through the registry (registry.py), adapters behind one protocol (protocol.py)."""

from __future__ import annotations

from source_benchmarks.protocol import ArtifactSpec, ReplayOutcome, SourceBenchmark, ToolCallRecord
from source_benchmarks.registry import (
    available_family_of,
    benchmark_ids,
    families,
    family_of,
    get_benchmark,
    open_variant,
    resolve_benchmark,
)


def benchmarks_of(family: str) -> tuple[str, ...]:
    """The listed ids of one family, e.g. benchmarks_of("tau2")."""
    return families()[family].benchmark_ids()


__all__ = [
    "ArtifactSpec",
    "ReplayOutcome",
    "SourceBenchmark",
    "ToolCallRecord",
    "available_family_of",
    "benchmark_ids",
    "benchmarks_of",
    "families",
    "family_of",
    "get_benchmark",
    "open_variant",
    "resolve_benchmark",
]
