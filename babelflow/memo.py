"""One bounded, thread-safe memo for the process-wide caches of the pipeline.

Stages run as threads of one process (a flow's languages and validation layers), reuse parsed
files, validated tasks and checked pairs across calls, and must neither grow without bound nor
compute one key twice at the same time (the second caller waits for the first one's value).
Entries go least-recently-used first once `max_entries` is reached.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class BoundedMemo(Generic[K, V]):
    """`memo.get_or_compute(key, compute)`: the value of `key`, computed once while it stays in the memo."""

    def __init__(self, name: str, max_entries: int):
        if max_entries < 1:
            raise ValueError(f"memo {name}: max_entries must be at least 1")
        self.name = name
        self.max_entries = max_entries
        self._values: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()
        self._computing: dict[K, threading.Event] = {}

    def __len__(self) -> int:
        with self._lock:
            return len(self._values)

    def __contains__(self, key: K) -> bool:
        with self._lock:
            return key in self._values

    def get(self, key: K) -> V | None:
        with self._lock:
            if key not in self._values:
                return None
            self._values.move_to_end(key)
            return self._values[key]

    def put(self, key: K, value: V) -> V:
        with self._lock:
            self._store(key, value)
        return value

    def clear(self) -> None:
        with self._lock:
            self._values.clear()

    def get_or_compute(self, key: K, compute: Callable[[], V]) -> V:
        while True:
            with self._lock:
                if key in self._values:
                    self._values.move_to_end(key)
                    return self._values[key]
                waiting = self._computing.get(key)
                if waiting is None:
                    done = self._computing[key] = threading.Event()
                    break
            waiting.wait()  # another thread computes this key: take its value (or try again if it failed)
        try:
            value = compute()
            with self._lock:
                self._store(key, value)
            return value
        finally:
            with self._lock:
                self._computing.pop(key, None)
            done.set()

    def _store(self, key: K, value: V) -> None:
        self._values[key] = value
        self._values.move_to_end(key)
        while len(self._values) > self.max_entries:
            self._values.popitem(last=False)
