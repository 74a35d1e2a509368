"""Shared fixtures. Analyses of whole tau2 domains are expensive, so each runs once per session."""

from __future__ import annotations

import gc
import inspect
import os
import re
from collections.abc import Callable

import pytest

os.environ.setdefault("DO_NOT_TRACK", "1")
os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

# The session allocates heavily (analyses, a DB validated per replay) while holding whole-domain IRs:
# at the default thresholds (700, 10, 10) the cyclic collector ran so often that it took ~30% of a
# cold analysis and up to half of a replay (measured: retail cold analysis 34 s -> 24 s, replays
# 28 s -> 19 s). Fewer, larger collections; nothing a test asserts depends on when they happen.
gc.set_threshold(50_000, 20, 20)


def _keep_for_the_session() -> None:
    """Move what is alive now (the session's cached IRs and replays: millions of objects) out of
    the cyclic collector's reach. They stay alive until the end anyway, and full collections that
    walked them again and again took a large share of the later tests' time (replays: ~2x)."""
    gc.collect()  # garbage cycles first, so none is kept
    gc.freeze()


@pytest.fixture(scope="session")
def analyzed() -> Callable:
    """analyzed(benchmark_id) -> IRDocument of the packaged source, computed once per session."""
    from analyzers.analyze import analyze_benchmark
    from source_benchmarks import get_benchmark

    cache: dict[str, object] = {}

    def get(benchmark_id: str):
        if benchmark_id not in cache:
            cache[benchmark_id] = analyze_benchmark(get_benchmark(benchmark_id))
            _keep_for_the_session()
        return cache[benchmark_id]

    return get


@pytest.fixture(scope="session")
def source_pairs() -> Callable:
    """source_pairs(benchmark_id) -> {task_id: (golden, do_nothing)} of the packaged source, once per session.

    Replayed the way the behaviour layer replays (`replay_pairs_of`: no cyclic GC during the
    replays): the session holds whole-domain IRs, and collections walking them doubled replay time."""
    from source_benchmarks import get_benchmark
    from validators.probes.behavior import replay_pairs_of

    cache: dict[str, dict] = {}

    def get(benchmark_id: str):
        if benchmark_id not in cache:
            bench = get_benchmark(benchmark_id)
            cache[benchmark_id] = replay_pairs_of(bench, bench.task_ids(None), "source replays")
            _keep_for_the_session()
        return cache[benchmark_id]

    return get


@pytest.fixture(scope="session")
def seed_analysis_cache(tmp_path_factory) -> Callable:
    """seed_analysis_cache(project_root, benchmark_id): a fresh project gets the analysis cache
    entries of the packaged benchmark (its replay observations, keyed by source, tracer code and
    task list; analyzers/trace_cache.py), so a CLI run there builds its IR from them instead of
    replaying everything again (tau2-mock: ~12 s a project). For tests about something else than a
    cold analysis (providers, keys, translator choice); cold analysis stays covered by `analyzed`
    and the analyzer tests, and a missing or stale entry is simply recomputed by the run."""
    import glob
    import shutil
    from pathlib import Path

    from analyzers.analyze import analyze_benchmark
    from source_benchmarks import get_benchmark

    shared = tmp_path_factory.mktemp("analysis-cache")
    checkout = Path(__file__).resolve().parents[1] / ".babelflow" / "analysis_cache"  # where `analyzed` keeps them
    ready: set[str] = set()

    def copy(source: Path, target: Path, benchmark_id: str) -> None:
        target.mkdir(parents=True, exist_ok=True)
        for entry in source.glob(f"{glob.escape(benchmark_id)}-*.json"):  # analyzers/trace_cache.SUFFIX
            shutil.copyfile(entry, target / entry.name)

    def seed(project_root: Path, benchmark_id: str) -> None:
        if benchmark_id not in ready:  # the current entries, in a folder of the session's own
            copy(checkout, shared, benchmark_id)
            with pytest.MonkeyPatch.context() as env:
                env.setenv("BABELFLOW_ANALYSIS_CACHE", str(shared))
                analyze_benchmark(get_benchmark(benchmark_id))
            ready.add(benchmark_id)
        copy(shared, Path(project_root) / ".babelflow" / "analysis_cache", benchmark_id)

    return seed


@pytest.fixture(scope="session")
def _prefect_test_server():
    """One Prefect test API server for the session, as `prefect_test_harness` starts it (a
    temporary SQLite database, the API in a subprocess); started on first use (~15 s a start-up)."""
    import shutil
    import tempfile
    from pathlib import Path

    import prefect.settings
    from prefect.server.api.server import SubprocessASGIServer
    from prefect.testing.utilities import _find_available_port

    home = tempfile.mkdtemp(prefix="babelflow-prefect-test-")
    database = "sqlite+aiosqlite:///" + str(Path(home) / "prefect-test.db")
    with prefect.settings.temporary_settings(
        updates={prefect.settings.PREFECT_SERVER_DATABASE_CONNECTION_URL: database}
    ):
        server = SubprocessASGIServer(port=_find_available_port())
        server.start(timeout=90)
    try:
        yield server, database
    finally:
        server.stop()
        shutil.rmtree(home, ignore_errors=True)


@pytest.fixture(scope="session")
def prefect_harness(_prefect_test_server) -> Callable:
    """prefect_harness() -> `prefect_test_harness()` on the session's one test server: inside it,
    flows, clients and the settings point at that server exactly as the stock harness sets them;
    on exit the settings are restored and the log and event workers drained, as the harness does."""
    from contextlib import ExitStack, contextmanager

    import prefect.context
    import prefect.settings
    from prefect.events.worker import EventsWorker
    from prefect.logging.handlers import APILogWorker
    from prefect.server.api.server import SubprocessASGIServer
    from prefect.server.database.dependencies import temporary_database_interface
    from prefect.utilities.asyncutils import run_coro_as_sync

    server, database = _prefect_test_server

    async def drain_workers() -> None:
        try:
            result = APILogWorker.instance().drain()
            if inspect.isawaitable(result):
                await result
        except RuntimeError:  # the log worker never started
            pass
        result = EventsWorker.drain_all()
        if inspect.isawaitable(result):
            await result

    @contextmanager
    def harness():
        with ExitStack() as stack:
            stack.enter_context(temporary_database_interface())
            stack.enter_context(
                prefect.settings.temporary_settings(
                    updates={prefect.settings.PREFECT_SERVER_DATABASE_CONNECTION_URL: database}
                )
            )
            prior_default = SubprocessASGIServer._instances.get(None)
            SubprocessASGIServer._instances[None] = server  # code asking for "the" ephemeral server finds this one
            stack.callback(
                lambda: (
                    SubprocessASGIServer._instances.__setitem__(None, prior_default)
                    if prior_default is not None
                    else SubprocessASGIServer._instances.pop(None, None)
                )
            )
            stack.enter_context(
                prefect.settings.temporary_settings(updates={prefect.settings.PREFECT_API_URL: server.api_url})
            )
            stack.enter_context(
                prefect.context._temporary_global_settings_context(prefect.context.get_settings_context())
            )
            yield
            run_coro_as_sync(drain_workers())

    return harness


# The big tau2 domains (airline, retail, telecom: analysis or replays of whole domains) are slow in
# the stage folders; `pytest -m "not slow"` keeps mock, the fixture benchmark and the pure helpers.
_BIG_DOMAIN = re.compile(r"airline|retail|telecom")
_WHOLE_DOMAIN_FOLDERS = {"analyzers", "flows", "source_benchmarks"}


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.path.parent.name in _WHOLE_DOMAIN_FOLDERS and _BIG_DOMAIN.search(item.name):
            item.add_marker(pytest.mark.slow)
