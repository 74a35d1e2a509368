"""Shared fixtures. Analyses of whole tau2 domains are expensive, so each runs once per session."""

from __future__ import annotations

import fcntl
import gc
import inspect
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest

T = TypeVar("T")

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


def _once_across_workers(
    tmp_path_factory: pytest.TempPathFactory,
    key: str,
    compute: Callable[[], T],
    dump: Callable[[T], bytes | None],
    load: Callable[[Path], T],
) -> T:
    """compute() once per run, not once per pytest-xdist worker (`-n 2` in .ci/run).

    Without xdist this is compute(). Under xdist the first worker to ask computes under a lock
    and leaves dump(value) in the run's temp folder, which every worker shares (the parent of each
    worker's own); a worker asking meanwhile waits for the lock, then loads the file instead of
    computing it again (tau2-telecom's cold analysis: ~65 s; loading its IR: ~4 s). dump returning
    None (a value that would not round-trip exactly) leaves each worker to compute its own."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return compute()
    from babelflow.atomic_io import write_bytes_atomic

    folder = tmp_path_factory.getbasetemp().parent / "shared-by-workers"
    folder.mkdir(exist_ok=True)
    path = folder / f"{key}.json"
    with open(folder / f"{key}.lock", "a") as lock:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX)  # released when the file closes, or the worker dies
        if path.exists():
            return load(path)
        value = compute()
        data = dump(value)
        if data is not None:
            write_bytes_atomic(path, data)
        return value


@pytest.fixture(scope="session")
def analyzed(tmp_path_factory) -> Callable:
    """analyzed(benchmark_id) -> IRDocument of the packaged source, computed once per session
    (once per run under xdist: the IR travels between workers as its JSON, as `babelflow analyze`
    saves it; the IR is reproducible byte for byte, tests/analyzers/test_ir_reproducible.py)."""
    from analyzers.analyze import analyze_benchmark
    from babelflow.ir import load_ir
    from source_benchmarks import get_benchmark

    cache: dict[str, object] = {}

    def get(benchmark_id: str):
        if benchmark_id not in cache:
            cache[benchmark_id] = _once_across_workers(
                tmp_path_factory,
                f"ir-{benchmark_id}",
                lambda: analyze_benchmark(get_benchmark(benchmark_id)),
                lambda ir: ir.to_json_bytes(),
                lambda path: load_ir(path, benchmark=benchmark_id),
            )
            _keep_for_the_session()
        return cache[benchmark_id]

    return get


@pytest.fixture(scope="session")
def code_texts_of() -> Callable:
    """code_texts_of(benchmark_id) -> an IRDocument of the benchmark's code texts only, inventoried and typed by
    the analyzer's own inventory (its profile, no replays): slots and parsed keys without a domain's analysis
    (telecom's whole analysis is minutes and gigabytes; its device tools' texts are a second)."""
    from analyzers.inventory import InventoryBuilder
    from analyzers.located_evidence import LocatedEvidence
    from analyzers.profile import load_profile
    from analyzers.runtime_evidence import RuntimeEvidenceIndex
    from babelflow.ir import ArtifactFormat
    from source_benchmarks import get_benchmark

    cache: dict[str, object] = {}

    def get(benchmark_id: str):
        if benchmark_id not in cache:
            bench = get_benchmark(benchmark_id)
            profile = load_profile(benchmark_id)
            builder = InventoryBuilder(bench, profile, RuntimeEvidenceIndex(), LocatedEvidence())
            for spec in bench.artifacts():
                if spec.translatable and spec.format is ArtifactFormat.PYTHON:
                    builder.python_artifact(spec)
            cache[benchmark_id] = builder.document(profile, [])
        return cache[benchmark_id]

    return get


@pytest.fixture(scope="session")
def source_pairs(tmp_path_factory) -> Callable:
    """source_pairs(benchmark_id) -> {task_id: (golden, do_nothing)} of the packaged source, once per session
    (once per run under xdist, as JSON of the ReplayOutcome records).

    Replayed the way the behaviour layer replays (`replay_pairs_of`: no cyclic GC during the
    replays): the session holds whole-domain IRs, and collections walking them doubled replay time."""
    from pydantic import TypeAdapter

    from source_benchmarks import get_benchmark
    from source_benchmarks.protocol import ReplayOutcome
    from validators.probes.behavior import replay_pairs_of

    pairs = TypeAdapter(dict[str, tuple[ReplayOutcome, ReplayOutcome]])
    cache: dict[str, dict] = {}

    def compute(benchmark_id: str) -> dict:
        bench = get_benchmark(benchmark_id)
        return replay_pairs_of(bench, bench.task_ids(None), "source replays")

    def dump(value: dict) -> bytes | None:
        # only exact ReplayOutcome records round-trip through the declared type (a subclass would lose fields)
        exact = all(type(outcome) is ReplayOutcome for pair in value.values() for outcome in pair)
        return pairs.dump_json(value) if exact else None

    def get(benchmark_id: str):
        if benchmark_id not in cache:
            cache[benchmark_id] = _once_across_workers(
                tmp_path_factory,
                f"pairs-{benchmark_id}",
                lambda: compute(benchmark_id),
                dump,
                lambda path: pairs.validate_json(path.read_bytes()),
            )
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


@pytest.fixture(autouse=True)
def _prefect_client_environment_restored():
    """A command run in-process (`flow`, `server`) points this process at a server by setting
    PREFECT_API_URL and PREFECT_API_AUTH_STRING (flows/server/local_server.use_server); undone after
    each test, so a later test's subprocess never inherits the address of a server already stopped."""
    names = ("PREFECT_API_URL", "PREFECT_API_AUTH_STRING")
    before = {name: os.environ.get(name) for name in names}
    yield
    for name, value in before.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


@pytest.fixture(scope="session")
def _prefect_test_server():
    """One Prefect test API server for the session, as `prefect_test_harness` starts it (a
    temporary SQLite database, the API in a subprocess); started on first use (~15 s a start-up)."""
    import shutil
    import tempfile

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


# Under pytest-xdist (.ci/run: -n 2 --dist loadgroup --no-loadscope-reorder) the scheduler below hands
# each worker whole groups: a test file by default, so a module's fixtures are built once. xdist's own
# loadgroup reads `xdist_group` marks, which pytest 9.2 no longer lets it add to the node id (item._nodeid
# is not read any more), hence a scheduler of our own. Files that share something run in one group, one
# after the other on one worker: the project servers bind ports and check that nothing answers after a
# stop; the Prefect test server of `prefect_harness` (~15-25 s a start) is then started by one worker only.
_GROUPS = {
    "project-servers": {"flows/test_first_run.py", "flows/test_local_server.py", "bench/test_drill_bad_input.py"},
    "prefect-test-server": {
        "flows/test_deployment.py",
        "flows/test_flow_review.py",
        "flows/test_flow_evaluation.py",
        "flows/test_review_groups.py",
        "translators/providers/test_flow_with_providers.py",
        "translators/providers/test_limits_and_costs.py",
    },
}
# Files whose costly fixtures are keyed by benchmark (a variant each, an analysis each): one group per τ²
# domain, so the domains run on both workers at once; a test naming no domain goes with the one given.
_SPLIT_BY_BENCHMARK = {"flows/test_adapt_variants.py": "tau2-retail"}
_BENCHMARK_IN_ID = re.compile(r"\[(tau2-[a-z]+)")
# Longest groups first, so that no long one is left to run alone at the end (a worker takes the next group
# when it is nearly done); seconds from the last serial CI run (1,301 s in all). The analyses the domains'
# variants need are computed by the coverage group on the other worker meanwhile (`analyzed`).
_LONGEST_FIRST = [
    "project-servers",  # ~250 s: Prefect server boots (first run, drill server checks)
    "analyzers/test_analysis_coverage.py",  # ~155 s: the cold analyses of airline, retail, telecom
    "validators/test_real_language_validation.py",  # ~130 s: four SEATau variants validated
    "flows/test_adapt_variants.py[tau2-telecom]",  # ~100 s each: adapt, replay and validate two variants
    "flows/test_adapt_variants.py[tau2-airline]",
    "flows/test_adapt_variants.py[tau2-retail]",
    "prefect-test-server",  # ~100 s
    "bench/test_inject_defects_tau3.py",  # ~90 s: τ³ banking analysis
    "bench/test_tau3_independent_check.py",  # ~45 s
    "flows/test_apertium_variants.py",  # ~40 s
]


def _group_of(nodeid: str) -> str:
    file = nodeid.split("::", 1)[0].removeprefix("tests/")
    if file in _SPLIT_BY_BENCHMARK:
        named = _BENCHMARK_IN_ID.search(nodeid)
        return f"{file}[{named[1] if named else _SPLIT_BY_BENCHMARK[file]}]"
    return next((name for name, files in _GROUPS.items() if file in files), file)


@pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist: without it, never called
def pytest_xdist_make_scheduler(config, log):
    if config.getvalue("dist") != "loadgroup":
        return None  # xdist's own scheduler for the other modes
    from xdist.scheduler import LoadScopeScheduling

    class GroupScheduling(LoadScopeScheduling):
        """LoadScopeScheduling whose scope (the unit a worker gets whole) is the test's group."""

        def _split_scope(self, nodeid: str) -> str:
            return _group_of(nodeid)

    return GroupScheduling(config, log)


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node):
    """The controller tells each worker its own COLUMNS (xdist's workers start with COLUMNS=80 set)."""
    node.workerinput["columns"] = os.environ.get("COLUMNS")


def pytest_configure(config):
    # flows/cli/common.py's Rich console fixes its width at import when COLUMNS is set: with a worker's
    # COLUMNS=80 every CLI test wrapped its output at 80 whatever COLUMNS it invoked with (a path in the
    # output split across lines), where a run in one process reads the invocation's COLUMNS
    columns = getattr(config, "workerinput", {}).get("columns", os.environ.get("COLUMNS"))
    if columns is None:
        os.environ.pop("COLUMNS", None)
    else:
        os.environ["COLUMNS"] = columns


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.path.parent.name in _WHOLE_DOMAIN_FOLDERS and _BIG_DOMAIN.search(item.name):
            item.add_marker(pytest.mark.slow)
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return  # a run in one process keeps the collection order
    # the workers' collection order is the order groups are handed out (--no-loadscope-reorder)
    rank = {name: position for position, name in enumerate(_LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(_group_of(item.nodeid), len(rank)))  # stable otherwise
