"""Cyclic garbage collection paused around allocation-heavy work that leaves next to no cycles."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def gc_paused() -> Iterator[None]:
    """No cyclic garbage collection inside the block. A tau2 replay validates a whole DB (airline:
    ~3 MB of JSON as pydantic models) and unpickling an IR builds ~170k models; their allocations
    trigger full collections that walk every live object (a flow's IR included): ~30% of replay time.
    That work leaves next to no cycles (airline: ~300 objects for 15 tasks, RSS unchanged), and the
    collector resumes after the block, as it was (nested blocks are fine)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
