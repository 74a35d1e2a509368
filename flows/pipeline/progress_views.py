"""Where progress reports are shown: rich bars in the terminal, progress artifacts in Prefect."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import cast
from uuid import UUID

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from babelflow.progress import Throttled, listening


@contextmanager
def terminal_progress(console: Console) -> Iterator[Progress]:
    """One bar per reported stage, created when the stage first reports."""
    bars = Progress(
        TextColumn("[cyan]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=console,
        transient=False,
    )
    with bars, bars_for_reports(bars):
        yield bars


@contextmanager
def bars_for_reports(bars: Progress) -> Iterator[None]:
    """Show every stage's reports as a bar of an already running rich display."""
    ids: dict[str, TaskID] = {}
    lock = threading.Lock()

    def show(stage: str, done: int, total: int) -> None:
        with lock:
            if stage not in ids:
                ids[stage] = bars.add_task(stage, total=total)
        bars.update(ids[stage], completed=done, total=total)

    with listening(show):
        yield


class PrefectProgressArtifacts:
    """A progress artifact per (task run, stage), visible on the task run's page while it works."""

    def __init__(self) -> None:
        self._ids: dict[tuple[str, str], UUID] = {}
        self._lock = threading.Lock()
        self.listener = Throttled(self._emit, interval=2.0)

    def _emit(self, stage: str, done: int, total: int) -> None:
        # Prefect (~6 s) only inside a flow run: `babelflow adapt`'s terminal progress, here too, runs without it
        from prefect.artifacts import create_progress_artifact, update_progress_artifact  # noqa: PLC0415
        from prefect.context import TaskRunContext  # noqa: PLC0415

        context = TaskRunContext.get()
        if context is None or context.task_run is None:
            return  # reports from outside a task run (plain pipeline, tests) have no run to attach to
        percent = 100.0 * done / total if total else 100.0
        description = f"{stage}: {done} of {total}"
        key = (str(context.task_run.id), stage)
        with self._lock:
            artifact = self._ids.get(key)
        if artifact is None:
            created = create_progress_artifact(progress=percent, description=description)
            with self._lock:
                self._ids[key] = cast(UUID, created)  # called from sync code: Prefect returns the id, not a coroutine
        else:
            update_progress_artifact(artifact, progress=percent, description=description)


PREFECT_PROGRESS = PrefectProgressArtifacts()


@contextmanager
def prefect_progress() -> Iterator[None]:
    with listening(PREFECT_PROGRESS.listener):
        yield
