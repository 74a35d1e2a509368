"""Each official SDK (openai, anthropic, dashscope) against its loopback fake: success, transport
faults retried on the same request, bad replies retried smaller then alone, and segments that stay
bad returned as failures (never accepted)."""

from __future__ import annotations

import time

import pytest
from fakes import MODELS, SDKS, SOURCES, Fault, han, request

from translators.interface import check_response


def _texts(response) -> dict[str, str]:
    return {s.segment_id: s.text for s in response.segments}


def _all_good(response) -> None:
    assert response.failed == {}
    assert check_response(request(), response) == []
    assert _texts(response) == {f"seg-{i}": han(text) for i, text in enumerate(SOURCES)}


@pytest.mark.parametrize("provider", SDKS)
def test_success_one_request_with_usage_accounted(provider, fake, make_translator):
    translator = make_translator(provider)
    assert translator.translator_id == f"{provider}:{MODELS[provider]}/prompt-translate.v1"
    response = translator.translate(request())
    _all_good(response)
    assert [len(s.segment_ids) for s in fake.state.requests(provider)] == [6]
    sent_in, sent_out = fake.state.usage(provider)
    assert (response.usage.input_tokens, response.usage.output_tokens, response.usage.requests) == (
        sent_in,
        sent_out,
        1,
    )
    (row,) = translator.costs.report().rows
    assert (
        row.stage,
        row.language,
        row.provider,
        row.requests,
        row.input_tokens,
        row.output_tokens,
        row.estimated,
    ) == ("translate", "zh-Hans", provider, 1, sent_in, sent_out, False)


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_429_waits_at_least_retry_after_then_succeeds(provider, fake, make_translator):
    fake.script(provider, Fault("429", retry_after="0.2"))
    response = make_translator(provider).translate(request())
    _all_good(response)
    first, second = fake.state.requests(provider)
    assert (first.status, second.status) == (429, 200)
    assert second.at - first.at >= 0.2


@pytest.mark.parametrize(
    ("provider", "kind", "status"),
    [
        ("dashscope", "429", 429),
        ("openai", "429", 429),
        ("anthropic", "overloaded", 529),
        ("openai", "overloaded", 503),
    ],
)
def test_throttled_without_retry_after_waits_at_least_the_floor(provider, kind, status, fake, make_translator, caplog):
    # DashScope's 429s never carry Retry-After; the others' may not either
    fake.script(provider, Fault(kind, times=2, retry_after=None))
    _all_good(make_translator(provider, "backoff=0.01&throttle_floor=0.3&max_retries=3").translate(request()))
    first, second, third = fake.state.requests(provider)
    assert (first.status, second.status, third.status) == (status, status, 200)
    if kind == "429":  # a per-minute quota, and no request of ours went through in the last minute
        assert second.at - first.at >= 0.3 and third.at - second.at >= 0.3  # the floor, not 0.01 s of backoff
    else:  # overloaded: one busy moment backs off as for a 500; overloaded again, the floor
        assert second.at - first.at < 0.3 <= third.at - second.at


@pytest.mark.parametrize("provider", SDKS)
def test_500_then_success(provider, fake, make_translator):
    fake.script(provider, Fault("500", times=2))
    translator = make_translator(provider)
    _all_good(translator.translate(request()))
    assert [s.status for s in fake.state.requests(provider)] == [500, 500, 200]
    assert translator.costs.report().rows[0].requests == 1  # failed attempts are not billed


@pytest.mark.parametrize("provider", SDKS)
def test_timeout_is_retried(provider, fake, make_translator, caplog):
    fake.script(provider, Fault("timeout", delay=1.5))
    started = time.monotonic()
    _all_good(make_translator(provider).translate(request()))
    assert time.monotonic() - started >= 0.5  # the client gave up after its 0.5 s timeout, then retried
    assert [s.fault for s in fake.state.requests(provider)] == ["timeout", None]
    retries = [r.getMessage() for r in caplog.records if r.name == "babelflow.providers"]
    assert len(retries) == 1 and "retry 1/3" in retries[0]
    assert not any(r.getMessage() == "Request failed" for r in caplog.records)  # no SDK traceback for what we handle


@pytest.mark.parametrize("provider", SDKS)
def test_malformed_body_is_retried(provider, fake, make_translator):
    fake.script(provider, Fault("malformed"))
    _all_good(make_translator(provider).translate(request()))
    assert [s.fault for s in fake.state.requests(provider)] == ["malformed", None]


@pytest.mark.parametrize("provider", SDKS)
@pytest.mark.parametrize("kind", ["truncated", "bad_json", "drop_id_everywhere"])
def test_unusable_batch_is_split_smaller(provider, kind, fake, make_translator):
    fake.script(
        provider,
        Fault("truncated" if kind == "truncated" else "bad_json") if kind != "drop_id_everywhere" else Fault("drop_id"),
    )
    response = make_translator(provider).translate(request())
    _all_good(response)
    sizes = [len(s.segment_ids) for s in fake.state.requests(provider)]
    assert sizes == ([6, 3, 3] if kind != "drop_id_everywhere" else [6, 1])  # a dropped id alone is retried alone


@pytest.mark.parametrize("provider", SDKS)
@pytest.mark.parametrize("kind", ["drop_placeholder", "wrong_language", "answered", "commentary"])
def test_one_bad_segment_is_retried_alone_then_accepted(provider, kind, fake, make_translator):
    fake.script(provider, Fault(kind, times=1, match="reservation"))
    response = make_translator(provider).translate(request())
    _all_good(response)
    assert [len(s.segment_ids) for s in fake.state.requests(provider)] == [6, 1]
    assert fake.state.requests(provider)[1].segment_ids == ["seg-0"]


EXPECTED = {
    "drop_placeholder": "placeholder ⟦0⟧",
    "wrong_language": "wrong language",
    "answered": "answered instead of translated",
    "commentary": "added commentary",
}


@pytest.mark.parametrize("provider", SDKS)
@pytest.mark.parametrize("kind", sorted(EXPECTED))
def test_segment_that_stays_bad_is_a_recorded_failure(provider, kind, fake, make_translator):
    fake.script(provider, Fault(kind, times=None, match=("reservation", "confirm", "look up")))
    response = make_translator(provider).translate(request())
    bad = {"seg-0", "seg-2", "seg-4"}
    assert set(response.failed) == bad
    assert all(any(EXPECTED[kind] in p for p in response.failed[i]) for i in bad), response.failed
    assert set(_texts(response)) == {"seg-1", "seg-3", "seg-5"}  # never accepted silently
    assert check_response(request(), response) == []  # every id is accounted for
    sizes = [len(s.segment_ids) for s in fake.state.requests(provider)]
    assert sizes[0] == 6 and sizes[1:3] == [2, 1] and sizes[3:] == [1, 1, 1]  # batch, halves, then alone


@pytest.mark.parametrize("provider", SDKS)
def test_missing_usage_is_estimated_and_marked(provider, fake, make_translator):
    fake.script(provider, Fault("no_usage"))
    translator = make_translator(provider)
    _all_good(translator.translate(request()))
    (row,) = translator.costs.report().rows
    assert row.estimated and row.estimated_requests == 1 and row.input_tokens > 0 and row.output_tokens > 0
