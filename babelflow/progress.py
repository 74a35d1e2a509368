"""Progress of long loops (replays, translation batches), reported to whoever is listening.

Stages call `report(stage, done, total)` without knowing who shows it: the CLI registers a rich
progress display, the Prefect flow a progress artifact per task run. Keeping the listeners here
(not as parameters) means cached, pickled Prefect tasks need no callback in their inputs.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Protocol, TypeVar

T = TypeVar("T")


class ProgressListener(Protocol):
    def __call__(self, stage: str, done: int, total: int) -> None: ...


_LISTENERS: dict[ProgressListener, int] = {}  # listener -> how many open `listening` blocks hold it
_LOCK = threading.Lock()


@contextmanager
def listening(listener: ProgressListener) -> Iterator[None]:
    """Deliver reports to `listener` inside this block (nested or concurrent blocks share one)."""
    with _LOCK:
        _LISTENERS[listener] = _LISTENERS.get(listener, 0) + 1
    try:
        yield
    finally:
        with _LOCK:
            _LISTENERS[listener] -= 1
            if not _LISTENERS[listener]:
                del _LISTENERS[listener]


def report(stage: str, done: int, total: int) -> None:
    with _LOCK:
        listeners = list(_LISTENERS)
    for listener in listeners:
        listener(stage, done, total)


def tracked(items: Iterable[T], stage: str, total: int) -> Iterator[T]:
    """Yield items, reporting `stage` progress after each one (and 0 of total first)."""
    report(stage, 0, total)
    for done, item in enumerate(items, start=1):
        yield item
        report(stage, done, total)


class Throttled:
    """Calls `emit` at most every `interval` seconds per stage, and always for the last item."""

    def __init__(self, emit: Callable[[str, int, int], None], interval: float = 2.0):
        self.emit = emit
        self.interval = interval
        self._last: dict[str, float] = {}
        self._lock = threading.Lock()

    def __call__(self, stage: str, done: int, total: int) -> None:
        now = time.monotonic()
        key = f"{threading.get_ident()}:{stage}"  # parallel tasks report the same stage names
        with self._lock:
            due = done in (0, total) or now - self._last.get(key, 0.0) >= self.interval
            if due:
                self._last[key] = now
        if due:
            self.emit(stage, done, total)
