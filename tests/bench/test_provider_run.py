"""bench.provider_run's lower bound (issue 42): independent calls over the allowed concurrency, at least the
longest one, and what the per-minute limits allow beyond the first minute's allowance."""

from __future__ import annotations

from bench.provider_run import lower_bound


def test_the_bound_is_the_work_over_the_slots_the_longest_call_or_the_limits():
    assert lower_bound([1.0] * 8, [100] * 8, concurrency=4, rpm=0, tpm=0) == 2.0
    assert lower_bound([0.5, 6.0, 0.5], [100] * 3, concurrency=4, rpm=0, tpm=0) == 6.0  # one slow reply
    # 36 calls at 20 a minute: the last 16 start after the first minute, and take 16 s of work over 4 slots
    assert lower_bound([1.0] * 36, [100] * 36, concurrency=4, rpm=20, tpm=0) == 64.0
    assert lower_bound([1.0] * 40, [100] * 40, concurrency=4, rpm=20, tpm=0) == 65.0  # a full minute, then 20 more
    assert lower_bound([1.0] * 4, [30_000] * 4, concurrency=4, rpm=0, tpm=60_000) == 60.0
    assert lower_bound([], [], concurrency=4, rpm=0, tpm=0) == 0.0
