"""Shared fixtures. Analyses of whole tau2 domains are expensive, so each runs once per session."""

from __future__ import annotations

import os
import re
from collections.abc import Callable

import pytest

os.environ.setdefault("DO_NOT_TRACK", "1")
os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")



@pytest.fixture(scope="session")
def analyzed() -> Callable:
    """analyzed(benchmark_id) -> IRDocument of the packaged source, computed once per session."""
    from analyzers.analyze import analyze_benchmark
    from source_benchmarks import get_benchmark

    cache: dict[str, object] = {}

    def get(benchmark_id: str):
        if benchmark_id not in cache:
            cache[benchmark_id] = analyze_benchmark(get_benchmark(benchmark_id))
        return cache[benchmark_id]

    return get


@pytest.fixture(scope="session")
def source_pairs() -> Callable:
    """source_pairs(benchmark_id) -> {task_id: (golden, do_nothing)} of the packaged source, once per session."""
    from source_benchmarks import get_benchmark

    cache: dict[str, dict] = {}

    def get(benchmark_id: str):
        if benchmark_id not in cache:
            bench = get_benchmark(benchmark_id)
            cache[benchmark_id] = {pair[0].task_id: pair for pair in bench.replay_pairs(bench.task_ids(None))}
        return cache[benchmark_id]

    return get


# The big tau2 domains (airline, retail, telecom: analysis or replays of whole domains) are slow in
# the stage folders; `pytest -m "not slow"` keeps mock, the fixture benchmark and the pure helpers.
_BIG_DOMAIN = re.compile(r"airline|retail|telecom")
_WHOLE_DOMAIN_FOLDERS = {"analyzers", "flows", "source_benchmarks"}


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.path.parent.name in _WHOLE_DOMAIN_FOLDERS and _BIG_DOMAIN.search(item.name):
            item.add_marker(pytest.mark.slow)
