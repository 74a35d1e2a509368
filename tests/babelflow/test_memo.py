"""The bounded memo: computes a key once, even from threads racing for it, and stays within its bound."""

from __future__ import annotations

import threading
import time

import pytest

from babelflow.memo import BoundedMemo


def test_a_key_is_computed_once_and_reused():
    memo: BoundedMemo[str, int] = BoundedMemo("t", 4)
    calls = []
    assert memo.get_or_compute("a", lambda: calls.append(1) or 1) == 1
    assert memo.get_or_compute("a", lambda: calls.append(2) or 2) == 1
    assert calls == [1]


def test_the_least_recently_used_entry_goes_first():
    memo: BoundedMemo[str, int] = BoundedMemo("t", 2)
    memo.put("a", 1)
    memo.put("b", 2)
    assert memo.get("a") == 1  # a is now the most recent
    memo.put("c", 3)
    assert "b" not in memo and "a" in memo and "c" in memo and len(memo) == 2


def test_racing_threads_wait_for_the_first_computation():
    memo: BoundedMemo[str, int] = BoundedMemo("t", 4)
    calls: list[int] = []
    barrier = threading.Barrier(4)

    def slow() -> int:
        calls.append(1)
        time.sleep(0.2)
        return 7

    results: list[int] = []

    def worker() -> None:
        barrier.wait()
        results.append(memo.get_or_compute("k", slow))

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [7, 7, 7, 7] and calls == [1]


def test_a_failed_computation_is_not_kept_and_a_waiter_tries_again():
    memo: BoundedMemo[str, int] = BoundedMemo("t", 4)
    with pytest.raises(RuntimeError):
        memo.get_or_compute("k", lambda: (_ for _ in ()).throw(RuntimeError("boom")))
    assert "k" not in memo
    assert memo.get_or_compute("k", lambda: 3) == 3


def test_a_bound_below_one_is_refused():
    with pytest.raises(ValueError):
        BoundedMemo("t", 0)
