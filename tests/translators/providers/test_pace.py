"""The loopback provider's pace (issue 42): what bench/provider_run.py measures against must behave like a
real provider, or the ratios it reports mean nothing."""

from __future__ import annotations

import statistics

from fakes import Pace


def test_latency_has_the_configured_median_and_tail_and_grows_with_the_reply():
    pace = Pace(median_s=1.5, p95_s=6.0, reference_tokens=400, seed=7)
    draws = sorted(pace.admit(100, 400, now=float(i))[1] for i in range(4000))
    assert abs(statistics.median(draws) - 1.5) < 0.1
    assert abs(draws[int(0.95 * len(draws))] - 6.0) < 0.6
    longer = Pace(seed=7)
    assert statistics.median(longer.admit(100, 1200, now=float(i))[1] for i in range(2000)) > 4.0


def test_a_minute_over_its_limits_is_answered_429_with_the_wait_until_the_window_frees():
    pace = Pace(rpm=3, median_s=0.01, p95_s=0.02)
    assert [pace.admit(10, 10, now=t)[0] for t in (0.0, 1.0, 2.0)] == [None, None, None]
    refused, _ = pace.admit(10, 10, now=10.0)
    assert refused is not None and refused.kind == "429" and refused.retry_after == "50"
    assert pace.admit(10, 10, now=60.5)[0] is None  # the first request left the window
    tokens = Pace(tpm=1000, median_s=0.01, p95_s=0.02)
    assert tokens.admit(400, 400, now=0.0)[0] is None
    assert tokens.admit(100, 200, now=1.0)[0].kind == "429"


def test_server_errors_and_timeouts_come_at_their_rates_and_are_never_admitted():
    pace = Pace(error_rate=0.05, timeout_rate=0.02, seed=3, median_s=0.01, p95_s=0.02)
    faults = [pace.admit(10, 10, now=i / 100)[0] for i in range(5000)]
    kinds = [f.kind for f in faults if f is not None]
    errors, timeouts = sum(k in ("500", "overloaded") for k in kinds), kinds.count("timeout")
    assert 200 <= errors <= 300 and 70 <= timeouts <= 130
    assert len(pace.window) == len(faults) - len(kinds)  # only answered requests count against the limits


def test_a_model_translator_takes_enough_at_once_to_keep_its_slots_busy_and_sends_each_request_its_own_terms(
    fake, make_translator
):
    """Issue 42: the engine's 40 segments made two requests that each waited for the slower one (retail's
    translation at 3.05x its lower bound); each request also carried the glossary of the whole batch."""
    from fakes import request

    from translators.engine import TranslationEngine
    from translators.interface import GlossaryEntry
    from translators.memory import TranslationMemory

    translator = make_translator("dashscope", "batch=3&concurrency=2&backoff=0.01")
    assert translator.batch_limits[0] == 3 * 2 * 8
    engine = TranslationEngine(translator, "zh-Hans", TranslationMemory(None))
    assert engine.max_items == 48
    asked = request().model_copy(
        update={
            "glossary": [
                GlossaryEntry(source="reservation", target="预订"),
                GlossaryEntry(source="flight", target="航班"),
            ]
        }
    )
    translator.translate(asked)
    sent = [s.payload for s in fake.state.requests("dashscope")]
    assert len(sent) == 2  # six segments, three a request
    terms = {payload["segments"][0]["id"]: {g["source"] for g in payload["glossary"]} for payload in sent}
    assert terms == {"seg-0": {"reservation"}, "seg-3": {"flight"}}  # 'reservation': segment 0; 'flight': 4


def test_a_429_without_retry_after_teaches_the_limit_and_later_requests_keep_to_it(fake, make_translator, monkeypatch):
    """DashScope's 429s carry no Retry-After. Waiting a fixed floor and sending again met the next 429 each
    window (a quarter of the allowed rate: 1.65x the bound); the requests it accepted in the window before
    refusing one are its limit, and the limiter now keeps to it."""
    from fakes import request

    from babelflow.llm.resilience import ProviderLimiter

    monkeypatch.setattr(ProviderLimiter, "WINDOW", 1.0)  # a second stands in for the minute
    fake.state.pace = Pace(rpm=4, window_s=1.0, median_s=0.01, p95_s=0.02)
    translator = make_translator("dashscope", "batch=1&concurrency=2&backoff=0.01&throttle_floor=2&max_retries=3")
    result = translator.translate(request([f"line {i}" for i in range(16)]))
    assert result.failed == {} and len(result.segments) == 16
    seen = fake.state.requests("dashscope")
    refused = [s for s in seen if s.fault == "429"]
    assert 1 <= len(refused) <= 2  # the first window's (two in flight may meet it at once), then none
    answered = sorted(s.at for s in seen if s.status == 200)
    assert all(later - earlier >= 0.99 for earlier, later in zip(answered, answered[4:]))  # never five a second
