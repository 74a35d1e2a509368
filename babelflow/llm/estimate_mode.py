"""The `--estimate` switch: while it is on, every model call in this process is answered offline by
``babelflow.llm.estimate.EstimatingClient`` and counted, and nothing is sent."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

_active = threading.Event()  # process-wide: the run's worker threads see it too


@contextmanager
def estimating() -> Iterator[None]:
    """Model calls made inside are answered by the estimating client (one estimate at a time per process)."""
    if _active.is_set():
        raise RuntimeError("an estimate is already running in this process")
    _active.set()
    try:
        yield
    finally:
        _active.clear()


def is_estimating() -> bool:
    return _active.is_set()
