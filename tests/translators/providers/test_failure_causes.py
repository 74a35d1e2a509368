"""Errors classified per provider and per cause, against each provider's real error replies:
quota, key, region and bad requests stop at once with the fix; a content refusal is that
segment's recorded failure; empty replies and cut-off context windows are retried smaller;
overload is backed off (``test_sdk_faults``: the floor)."""

from __future__ import annotations

import pytest
from fakes import KEYS, SDKS, SOURCES, Fault, han, request, spec
from test_review_backends import _request as review_request

from babelflow.llm.config import parse_spec
from babelflow.llm.costs import CostLedger
from babelflow.llm.failures import read_failure
from babelflow.llm.resilience import ProviderError
from validators.model_backends import ModelReviewer

ENV = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY", "dashscope": "DASHSCOPE_API_KEY"}


@pytest.mark.parametrize("provider", SDKS)
def test_quota_exhausted_stops_at_once_with_the_billing_fix(provider, fake, make_translator):
    fake.script(provider, Fault("quota", times=None))
    with pytest.raises(ProviderError) as raised:
        make_translator(provider).translate(request())
    error = raised.value
    assert error.exit_code == 2 and "quota or spend limit exhausted" in error.message and error.field == ENV[provider]
    assert (
        "rerun pays only for the rest" in error.fix
        and {"openai": "Billing", "anthropic": "Billing", "dashscope": "top up"}[provider] in error.fix
    )
    assert [s.status for s in fake.state.requests(provider)] == [429]  # not retried five times
    assert KEYS[provider] not in error.render()


@pytest.mark.parametrize("provider", SDKS)
@pytest.mark.parametrize(
    ("kind", "fragment"), [("400", "refused the request (HTTP 400"), ("404", "model or endpoint not found")]
)
def test_bad_request_and_unknown_model_stop_without_retrying(provider, kind, fragment, fake, make_translator):
    fake.script(provider, Fault(kind, times=None))
    with pytest.raises(ProviderError, match=fragment.replace("(", r"\(")):
        make_translator(provider).translate(request())
    assert len(fake.state.requests(provider)) == 1


@pytest.mark.parametrize("provider", SDKS)
def test_a_refused_segment_is_that_segments_failure_and_the_rest_is_translated(provider, fake, make_translator):
    # DashScope: 400 DataInspectionFailed; OpenAI: message.refusal; Anthropic: stop_reason refusal
    fake.script(provider, Fault("refusal", times=None, match="reservation"))
    translator = make_translator(provider)
    response = translator.translate(request())
    assert set(response.failed) == {"seg-0"} and all("refused" in p for p in response.failed["seg-0"])
    assert {s.segment_id: s.text for s in response.segments} == {f"seg-{i}": han(t) for i, t in enumerate(SOURCES) if i}
    seen = fake.state.requests(provider)
    assert [len(s.segment_ids) for s in seen] == [
        6,
        3,
        1,
        1,
        1,
        3,
    ]  # the batch, the refused half one by one, the other half
    refused = sum(s.status == 400 for s in seen)
    assert refused == (3 if provider == "dashscope" else 0)  # DashScope refuses with a 400, the others with a 200 reply
    assert translator.costs.report().rows[0].requests == 6 - refused  # an error reply is not billed


@pytest.mark.parametrize("provider", SDKS)
def test_an_empty_reply_is_retried_smaller(provider, fake, make_translator):
    # OpenAI/DashScope: choices []; Anthropic: no content block at all
    fake.script(provider, Fault("empty"))
    response = make_translator(provider).translate(request())
    assert response.failed == {} and len(response.segments) == 6
    assert [len(s.segment_ids) for s in fake.state.requests(provider)] == [6, 3, 3]


def test_an_empty_reply_that_persists_is_a_recorded_failure_not_an_exception(fake, make_translator):
    fake.script("openai", Fault("empty", times=None, match="refund"))
    response = make_translator("openai").translate(request())
    assert set(response.failed) == {"seg-1"} and "empty reply (no choices)" in response.failed["seg-1"][0]


def test_anthropic_context_window_exceeded_counts_as_truncated(fake, make_translator):
    fake.script("anthropic", Fault("context_window"))
    assert make_translator("anthropic").translate(request()).failed == {}
    assert [len(s.segment_ids) for s in fake.state.requests("anthropic")] == [6, 3, 3]


@pytest.mark.parametrize("provider", SDKS)
def test_a_refused_review_is_asked_again(provider, fake):
    fake.script(provider, Fault("refusal", task="review"))
    reply = ModelReviewer(parse_spec(spec(provider)), costs=CostLedger()).review(review_request())
    assert reply.actions[-1].kind == "done"
    assert [s.fault for s in fake.state.requests(provider, "review")] == ["refusal", None]


def test_wrong_dashscope_key_names_both_regions(fake, monkeypatch, make_translator):
    monkeypatch.setenv("DASHSCOPE_API_KEY", "sk-from-the-other-region-000")
    with pytest.raises(ProviderError) as raised:
        make_translator("dashscope").translate(request())
    error = raised.value
    assert error.field == "DASHSCOPE_API_KEY" and "DASHSCOPE_HTTP_BASE_URL" in error.fix
    assert (
        "dashscope-intl.aliyuncs.com" in error.message
        and "dashscope.aliyuncs.com" in error.message
        and fake.base_urls()["dashscope"] in error.message
    )


@pytest.mark.parametrize(
    ("provider", "status", "code", "message", "error_type", "cause"),
    [
        ("openai", 429, "insufficient_quota", "You exceeded your current quota", "insufficient_quota", "quota"),
        ("openai", 429, "rate_limit_exceeded", "Rate limit reached", "requests", "rate_limited"),
        (
            "openai",
            403,
            "unsupported_country_region_territory",
            "Country, region, or territory not supported",
            "request_forbidden",
            "region",
        ),
        ("openai", 400, "context_length_exceeded", "maximum context length", "invalid_request_error", "too_large"),
        (
            "openai-compatible",
            400,
            "data_inspection_failed",
            "Input data may contain inappropriate content.",
            None,
            "refusal",
        ),
        ("anthropic", 529, None, "Overloaded", "overloaded_error", "overloaded"),
        (
            "anthropic",
            429,
            None,
            "Number of request tokens has exceeded your per-minute rate limit",
            "rate_limit_error",
            "rate_limited",
        ),
        (
            "anthropic",
            429,
            "enforced_spend_limit_reached",
            "You have reached your specified API usage limits",
            "rate_limit_error",
            "quota",
        ),
        (
            "anthropic",
            400,
            None,
            "Your credit balance is too low to access the Anthropic API.",
            "invalid_request_error",
            "quota",
        ),
        (
            "anthropic",
            413,
            None,
            "Request exceeds the maximum allowed number of bytes.",
            "request_too_large",
            "too_large",
        ),
        ("dashscope", 400, "DataInspectionFailed", "Output data may contain inappropriate content.", None, "refusal"),
        (
            "dashscope",
            429,
            "Throttling.RateQuota",
            "Requests rate limit exceeded, please try again later.",
            None,
            "rate_limited",
        ),
        (
            "dashscope",
            429,
            "Throttling.AllocationQuota",
            "Allocated quota exceeded, please increase your quota limit.",
            None,
            "rate_limited",
        ),
        ("dashscope", 429, "Throttling.AllocationQuota", "Free allocated quota exceeded.", None, "quota"),
        (
            "dashscope",
            400,
            "Arrearage",
            "Access denied, please make sure your account is in good standing.",
            None,
            "quota",
        ),
        ("dashscope", 401, "InvalidApiKey", "Invalid API-key provided.", None, "auth"),
        ("dashscope", 400, "InvalidParameter", "Range of input length should be [1, 30720]", None, "too_large"),
        ("dashscope", 503, "ServiceUnavailable", "", None, "overloaded"),
    ],
)
def test_each_providers_words_map_to_one_cause(provider, status, code, message, error_type, cause):
    assert read_failure(provider, status, code=code, message=message, error_type=error_type).cause == cause
