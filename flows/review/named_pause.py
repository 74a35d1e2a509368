"""A paused review run reads "AwaitingReview" or "AwaitingSignoff" in the Prefect UI, not "Paused".

`prefect.flow_runs.pause_flow_run` builds its proposed state with the module's `Paused` and takes no
name. The seam: that name is replaced once by a wrapper that adds the name set for the current
context (a ContextVar: languages fan out as threads, each pausing for its own reason) and otherwise
behaves as Prefect's. The state keeps its PAUSED type, so the run's Resume button, its form and
`state.is_paused()` work as before."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import prefect.flow_runs
from prefect.states import Paused

_pause_name: ContextVar[str | None] = ContextVar("babelflow_pause_name", default=None)


def _named_paused(*args: Any, **kwargs: Any) -> Any:
    name = _pause_name.get()
    if name is not None and "name" not in kwargs:
        kwargs["name"] = name
    return Paused(*args, **kwargs)


prefect.flow_runs.Paused = _named_paused


@contextmanager
def pause_named(name: str) -> Iterator[None]:
    """Pauses started inside carry this state name."""
    token = _pause_name.set(name)
    try:
        yield
    finally:
        _pause_name.reset(token)
