"""VitaBench's own code, driven in this process: its task model, its environments and tools.

Importing `vita` prints its model list to stdout and logs its registry through loguru; both are kept
out of babelflow's output. Its environments keep stores, products and addresses in per-thread class
registries (vita.data_model.thread_safe_base) and its language in a module global: every task is
built and played under one lock, from a clean registry, so a task's outcome never depends on which
task ran before it in the same thread (VitaBench's own runner clears stores and products only).
"""

from __future__ import annotations

import contextlib
import importlib
import io
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import cache
from types import ModuleType
from typing import Any, ClassVar

from loguru import logger

from source_benchmarks.vita.domains import HarnessLanguage, VitaDomain
from source_benchmarks.vita.runtime import require_runtime

LOCK = threading.RLock()


class _QuietTraceback:
    """VitaBench prints every failing tool call's traceback to stderr; the failure is in the reply already."""

    @staticmethod
    def print_exc(*args: Any, **kwargs: Any) -> None:
        return None


@dataclass(frozen=True)
class Vita:
    """The VitaBench modules babelflow uses."""

    registry: Any  # vita.registry.registry
    task_model: Any  # vita.data_model.tasks.Task
    tool_call: Any  # vita.data_model.message.ToolCall
    registries: tuple[Any, ...]  # the thread-local registries an environment fills
    version: str


@cache
def vita() -> Vita:
    runtime = require_runtime()
    with LOCK, contextlib.redirect_stdout(io.StringIO()):
        logger.disable("vita")
        # VitaBench is an optional install (scripts/install.sh --vita): imported on first use only
        from vita.data_model import tasks  # noqa: PLC0415
        from vita.data_model.message import ToolCall  # noqa: PLC0415
        from vita.environment import environment  # noqa: PLC0415
        from vita.registry import registry  # noqa: PLC0415

        environment.traceback = _QuietTraceback
    return Vita(
        registry=registry,
        task_model=tasks.Task,
        tool_call=ToolCall,
        registries=(tasks.StoreBaseModel, tasks.ProductBaseModel, tasks.Location),
        version=runtime.vita_version,
    )


def vita_module(name: str) -> ModuleType:
    vita()  # imported quietly first
    return importlib.import_module(name)


class _ProbeClock(datetime):
    """VitaBench names a new order by hashing the wall clock (vita/environment/db.py): the same calls on a
    source and a variant would create differently named orders. During a probe its clock starts at the
    task's own time and moves one second per reading, so ids are the same on both sides and never collide."""

    start: ClassVar[datetime] = datetime(2000, 1, 1)
    readings: ClassVar[int] = 0

    @classmethod
    def now(cls, tz: Any = None) -> Any:  # the signature datetime.now has
        _ProbeClock.readings += 1
        return cls.start + timedelta(seconds=_ProbeClock.readings)


@contextlib.contextmanager
def probe_clock(task: Any) -> Iterator[None]:
    """VitaBench's order-id clock pinned to the task's time while its scripted calls run (hold LOCK)."""
    module = vita_module("vita.environment.db")
    try:
        start = datetime.strptime(str(task.environment.get("time", "")), "%Y-%m-%d %H:%M:%S")
    except ValueError:
        start = datetime(2000, 1, 1)
    _ProbeClock.start, _ProbeClock.readings = start, 0
    names = vars(module)
    saved, names["datetime"] = names["datetime"], _ProbeClock
    try:
        yield
    finally:
        names["datetime"] = saved


def environment(domain: VitaDomain, task: Any, language: HarnessLanguage | None = None) -> Any:
    """A fresh environment for one task, as VitaBench's runner builds it (call under LOCK); `language`: the
    harness language its tool texts follow (default the domain's)."""
    modules = vita()
    for registry in modules.registries:
        registry.clear_thread_data()
    constructor = modules.registry.get_env_constructor(domain.domain)
    return constructor(task.environment, language or domain.harness_language)
