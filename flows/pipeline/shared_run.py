"""The flow's seams to shared state (issue 29): what `adapt_language` calls so the same run works on one
machine (local files, the default) or on any worker of a pool (babelflow/shared_state).

- `shared_run`: around a run, the (benchmark, language) lock in the shared database, the run's state
  pulled before it starts and pushed when it ends (also when it fails: finished stages are kept);
- `checkpoint`: pushed after every stage too, so a worker killed mid-run loses only the stage it was in;
- `project_key` / `portable`: cache keys that two workers' folders agree on;
- `provider_slots`: a Prefect global concurrency limit per model provider around a stage that calls one;
- `wait_for_reviewer`: a review or sign-off form that, on a pool, suspends the run (its worker is freed and
  whichever worker picks up the resumed run replays the cached stages and applies the answer).
"""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any

from babelflow.adaptation_run import AdaptationRun
from babelflow.errors import BabelflowError
from babelflow.llm.config import PROVIDERS
from babelflow.settings import BabelflowSettings
from babelflow.shared_state.config import shared_config
from babelflow.shared_state.stores import open_stores
from babelflow.shared_state.sync import RunScope, StateSync

_ACTIVE: ContextVar[StateSync | None] = ContextVar("babelflow_shared_sync", default=None)
PROVIDER_LIMIT_PREFIX = "babelflow-provider-"


def run_lock_name(benchmark: str, language: str) -> str:
    return f"run:{benchmark}:{language}"


def project_key(settings: BabelflowSettings) -> str:
    """What a cache key names the project by: the shared namespace on a pool (every worker's folder
    differs, the state they share does not), else the state folder."""
    config = shared_config()
    return config.namespace if config else str(settings.resolved_state_dir())


def portable(path: Path, settings: BabelflowSettings) -> str:
    """A path inside the project as cache keys should see it: relative to the project on a pool."""
    if shared_config() is None:
        return str(path)
    try:
        return Path(path).resolve().relative_to(settings.project_root.resolve()).as_posix()
    except ValueError:
        return str(path)


@contextmanager
def shared_run(settings: BabelflowSettings, benchmark: str, language: str, flow_run_id: str) -> Iterator[str]:
    """Hold the run's shared lock, pull its state, push it on the way out. Yields the lock record a killed
    run left ("host:pid flow-run-id"), or "" (also in local mode, where this does nothing)."""
    config = shared_config()
    if config is None:
        yield ""
        return
    stores = open_stores(config)
    name = run_lock_name(benchmark, language)
    before = stores.documents.holder(name)
    left_by_dead = before.holder if before is not None and not before.alive else ""
    holder = f"{socket.gethostname()}:{os.getpid()} {flow_run_id}"
    # a killed holder's database session ends with it, so its lock is free at once; a live one is
    # waited for briefly, then refused (the same language twice at once is refused locally too)
    with stores.documents.lock(name, holder, wait=30):
        sync = StateSync(settings.layout, stores.objects, stores.documents, RunScope(benchmark, language))
        sync.pull()
        token = _ACTIVE.set(sync)
        try:
            yield left_by_dead
        finally:
            _ACTIVE.reset(token)
            sync.push()


def checkpoint() -> None:
    """Publish what the last stage wrote (no-op in local mode or outside a run)."""
    sync = _ACTIVE.get()
    if sync is not None:
        sync.push()


def providers_of(run: AdaptationRun, stage: str) -> list[str]:
    """The model providers a stage of this run calls (translate: the translator; validate: the validators)."""
    specs = {"translate": run.translator_spec, "validate": run.validators}.get(stage, "")
    found = {spec.strip().split(":", 1)[0] for spec in specs.split(",") if ":" in spec}
    return sorted(p for p in found if p in PROVIDERS)


def parse_provider_limits(specs: list[str]) -> dict[str, int]:
    limits: dict[str, int] = {}
    for spec in specs:
        name, _, value = spec.partition("=")
        if not name or not value.isdigit() or int(value) < 1:
            raise BabelflowError(
                f"--provider-limit {spec!r} is not PROVIDER=N",
                field="--provider-limit",
                fix="e.g. --provider-limit openai=4",
            )
        limits[name.strip()] = int(value)
    return limits


@contextmanager
def provider_slots(run: AdaptationRun | None, stage: str) -> Iterator[None]:
    """One slot of each provider's global concurrency limit (`babelflow-provider-<name>`, created by
    `babelflow flow --pool … --provider-limit NAME=N`) while the stage runs; without such a limit
    Prefect lets the stage through."""
    # the limits are a pool's (created by `flow --pool`): a local run asks no server for them
    on_shared = run is not None and shared_config() is not None
    names = [PROVIDER_LIMIT_PREFIX + p for p in providers_of(run, stage)] if on_shared and run else []
    if not names:
        yield
        return
    from prefect.concurrency.sync import concurrency  # noqa: PLC0415 - only stages that call a provider

    with ExitStack() as stack:
        stack.enter_context(concurrency(names, occupy=1, strict=False))
        yield


def on_pool() -> bool:
    """A run of a deployment with shared state configured: its next round may run on another worker."""
    from prefect.runtime import deployment  # noqa: PLC0415 - Prefect only inside a run

    return shared_config() is not None and deployment.id is not None


def wait_for_reviewer(form: Any, timeout: int, key: str) -> Any:
    """The reviewer's answer to `form` (raises FlowPauseTimeout as pause_flow_run does). Locally the run
    waits paused in its process; on a pool it is suspended: the process ends (the run lock and the
    state are released and pushed), and the resumed run is rescheduled on any worker, where the same
    `key` returns the answer once the cached stages have replayed."""
    from prefect.flow_runs import pause_flow_run, suspend_flow_run  # noqa: PLC0415

    if on_pool():
        return suspend_flow_run(wait_for_input=form, timeout=timeout, key=key)
    return pause_flow_run(wait_for_input=form, timeout=timeout, poll_interval=2, key=key)


def run_with_shared_state(benchmark: str, language: str, command: list[str], settings: BabelflowSettings) -> int:
    """Run a local command (`babelflow review`, `correct`, `import`, `units` …) on a (benchmark, language)
    of the pool's shared state: under the shared run lock, pull its slice, run, push what it changed."""
    import subprocess  # noqa: PLC0415

    config = shared_config()
    if config is None:
        raise BabelflowError(
            "No shared state is configured: the command would only change this folder",
            field="BABELFLOW_SHARED_OBJECTS",
            fix="set BABELFLOW_SHARED_OBJECTS (and BABELFLOW_SHARED_DATABASE) as on the workers",
        )
    stores = open_stores(config)
    holder = f"{socket.gethostname()}:{os.getpid()} {' '.join(command[:3])}"
    with stores.documents.lock(run_lock_name(benchmark, language), holder, wait=30):
        sync = StateSync(settings.layout, stores.objects, stores.documents, RunScope(benchmark, language))
        sync.pull()
        try:
            return subprocess.run(command, check=False).returncode
        finally:
            sync.push()


def main(argv: list[str] | None = None) -> None:
    """python -m flows.pipeline.shared_run BENCHMARK --lang L -- COMMAND …"""
    import argparse  # noqa: PLC0415
    import sys  # noqa: PLC0415

    args = list(sys.argv[1:] if argv is None else argv)
    if "--" not in args:
        raise SystemExit("usage: python -m flows.pipeline.shared_run BENCHMARK --lang L -- COMMAND …")
    cut = args.index("--")
    parser = argparse.ArgumentParser(
        prog="python -m flows.pipeline.shared_run", description=run_with_shared_state.__doc__
    )
    parser.add_argument("benchmark")
    parser.add_argument("--lang", required=True)
    options = parser.parse_args(args[:cut])
    try:
        code = run_with_shared_state(options.benchmark, options.lang, args[cut + 1 :], BabelflowSettings())
    except BabelflowError as exc:
        sys.stderr.write(f"error: {exc.render()}\n")
        raise SystemExit(exc.exit_code) from None
    raise SystemExit(code)


if __name__ == "__main__":
    main()
