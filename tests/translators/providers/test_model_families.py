"""Each provider is sent only what its models accept, read at the (strict) fake: the token-limit
field, sampling parameters, reasoning_effort, Qwen3's enable_thinking and Anthropic's version
header; an option a model does not take is dropped with a warning, never sent. And the fake
bites: what the code used to send is refused exactly as the real API refuses it."""

from __future__ import annotations

import logging

import pytest
from fakes import KEYS, FakeLLMServer, request
from wire_rules import check_request

from babelflow.adapt_request import parse_translator_spec
from babelflow.errors import BabelflowError
from babelflow.llm import clients
from babelflow.llm.families import RequestPlan, family_of
from babelflow.llm.resilience import ProviderError
from translators.spec import make_translator as translator_of_spec

FAST = "backoff=0.01&max_retries=2&throttle_floor=0.05"


def make_translator(text: str, language: str):
    """A translator from its command-line spelling."""
    return translator_of_spec(parse_translator_spec(text), language)


def _sent(fake, provider: str, spec: str) -> dict:
    assert make_translator(f"{spec}{'&' if '?' in spec else '?'}{FAST}", "zh-Hans").translate(request()).failed == {}
    (seen,) = fake.state.requests(provider)
    return seen.body


@pytest.mark.parametrize(
    ("spec", "sent", "absent"),
    [
        (
            "openai:gpt-5-mini",
            {"max_completion_tokens": 16000},
            ("temperature", "max_tokens", "reasoning_effort", "top_p"),
        ),
        (
            "openai:o3-mini?reasoning_effort=low",
            {"reasoning_effort": "low", "max_completion_tokens": 16000},
            ("temperature", "max_tokens"),
        ),
        (
            "openai:gpt-5.2?reasoning_effort=none&max_tokens=3000",
            {"reasoning_effort": "none", "max_completion_tokens": 3000},
            ("temperature", "max_tokens"),
        ),
        ("openai:gpt-4.1", {"temperature": 0.0, "max_completion_tokens": 4096}, ("max_tokens", "reasoning_effort")),
        (
            "openai:gpt-5-chat-latest?temperature=0.2",
            {"temperature": 0.2, "max_completion_tokens": 4096},
            ("reasoning_effort",),
        ),
    ],
)
def test_openai_families(spec, sent, absent, fake):
    body = _sent(fake, "openai", spec)
    assert {k: body.get(k) for k in sent} == sent
    assert not set(absent) & set(body)
    assert body["response_format"]["type"] == "json_schema" and body["response_format"]["json_schema"]["strict"] is True


def test_anthropic_sends_its_version_header_and_required_limit_no_sampling(fake):
    body = _sent(fake, "anthropic", "anthropic:claude-haiku-4-5?max_tokens=2048")
    (seen,) = fake.state.requests("anthropic")
    assert seen.headers["anthropic-version"] and body["max_tokens"] == 2048
    assert not {"temperature", "top_p", "top_k"} & set(body)
    assert body["tool_choice"] == {"type": "tool", "name": body["tools"][0]["name"]}


@pytest.mark.parametrize(
    ("model", "thinking"),
    [
        ("qwen3-32b", False),
        ("qwen3-235b-a22b", False),
        ("qwen-plus", False),
        ("qwen-max", None),
        ("qwen3-30b-a3b-instruct-2507", None),
    ],
)
def test_dashscope_turns_thinking_off_for_hybrid_qwen3(model, thinking, fake):
    parameters = _sent(fake, "dashscope", f"dashscope:{model}")["parameters"]
    assert parameters.get("enable_thinking") is thinking
    assert parameters["response_format"] == {"type": "json_object"} and parameters["result_format"] == "message"
    assert parameters["temperature"] == 0.0 and parameters["max_tokens"] == 4096


def test_dashscope_thinking_only_models_are_refused_before_any_request(fake):
    for model in ("qwq-plus", "qwen3-235b-a22b-thinking-2507"):
        with pytest.raises(BabelflowError, match="only streaming calls") as raised:
            make_translator(f"dashscope:{model}", "zh-Hans")
        assert raised.value.exit_code == 2 and "qwen-plus" in raised.value.fix
    assert fake.state.seen == []


@pytest.mark.parametrize(
    ("spec", "dropped"),
    [
        ("openai:o3-mini?temperature=0.3", "temperature=0.3 (reasoning models take no sampling parameters)"),
        (
            "anthropic:claude-sonnet-4-6?temperature=0.5",
            "temperature=0.5 (the Messages API of the installed SDK takes no sampling parameters)",
        ),
        ("openai:gpt-4.1?reasoning_effort=high", "reasoning_effort=high (only OpenAI reasoning models take it)"),
        ("dashscope:qwen3-32b?reasoning_effort=low", "reasoning_effort=low (only OpenAI reasoning models take it)"),
    ],
)
def test_an_option_the_model_does_not_take_is_dropped_with_a_warning(spec, dropped, fake, caplog):
    provider = spec.split(":")[0]
    with caplog.at_level(logging.WARNING, logger="babelflow.providers"):
        body = _sent(fake, provider, spec)
    warnings = [r.getMessage() for r in caplog.records if r.name == "babelflow.providers"]
    assert warnings == [
        f"{spec.split('?')[0]} ({family_of(provider, spec.split(':')[1].split('?')[0])}): option {dropped} is not sent"
    ]
    option = dropped.split("=")[0]
    assert option not in body and option not in body.get("parameters", {})


def test_openai_compatible_gets_the_classic_fields_and_what_the_user_asks(monkeypatch):
    with FakeLLMServer({"openai": None}, host="localhost", official=False) as server:
        body = _sent(
            server,
            "openai",
            f"openai-compatible:Qwen/Qwen3-8B@{server.base_urls()['openai']}?reasoning_effort=low&temperature=0.7",
        )
        assert server.state.rejected == []
    assert (body["max_tokens"], body["temperature"], body["reasoning_effort"]) == (
        4096,
        0.7,
        "low",
    ) and "max_completion_tokens" not in body


# ---- the fake refuses what the real APIs refuse (what this code sent before) --------------------------

OLD_OPENAI = {
    "model": "gpt-5",
    "messages": [{"role": "user", "content": "json"}],
    "temperature": 0.0,
    "max_completion_tokens": 4096,
}


@pytest.mark.parametrize(
    ("provider", "headers", "body", "fragment"),
    [
        ("openai", {}, OLD_OPENAI, "'temperature' does not support 0.0"),
        ("openai", {}, {"model": "o3-mini", "messages": [], "max_tokens": 4096}, "Use 'max_completion_tokens' instead"),
        (
            "openai",
            {},
            {"model": "gpt-4.1", "messages": [], "reasoning_effort": "low"},
            "'reasoning_effort' is not supported",
        ),
        (
            "openai",
            {},
            {
                "model": "gpt-4.1",
                "messages": [],
                "response_format": {
                    "type": "json_schema",
                    "json_schema": {
                        "name": "x",
                        "strict": True,
                        "schema": {"type": "object", "properties": {"a": {"type": "string"}}},
                    },
                },
            },
            "additionalProperties",
        ),
        (
            "anthropic",
            {"anthropic-version": "2023-06-01"},
            {
                "model": "claude-sonnet-4-6",
                "max_tokens": 10,
                "messages": [{"role": "user", "content": "x"}],
                "temperature": 0.0,
            },
            "temperature: Extra inputs are not permitted",
        ),
        (
            "anthropic",
            {},
            {"model": "claude-sonnet-4-6", "max_tokens": 10, "messages": [{"role": "user", "content": "x"}]},
            "anthropic-version",
        ),
        (
            "anthropic",
            {"anthropic-version": "2023-06-01"},
            {"model": "claude-sonnet-4-6", "messages": [{"role": "user", "content": "x"}]},
            "max_tokens: Field required",
        ),
        (
            "dashscope",
            {},
            {
                "model": "qwen3-32b",
                "input": {"messages": [{"role": "user", "content": "json"}]},
                "parameters": {"temperature": 0.0},
            },
            "enable_thinking must be set to false",
        ),
    ],
)
def test_the_fake_refuses_what_the_real_api_refuses(provider, headers, body, fragment):
    problem = check_request(provider, headers, body)
    assert problem is not None and problem[0] == 400 and fragment in problem[2]


def test_a_parameter_the_api_rejects_stops_the_run_at_the_first_request(fake, monkeypatch):
    # the old behaviour (temperature=0 to a reasoning model): a 400 no retry fixes, so stop at once
    monkeypatch.setattr(
        clients,
        "plan_request",
        lambda config: RequestPlan(
            family="openai-reasoning", params={"temperature": 0.0, "max_completion_tokens": 4096}
        ),
    )
    fake.expect_rejections = True
    with pytest.raises(ProviderError) as raised:
        make_translator(f"openai:gpt-5?{FAST}", "zh-Hans").translate(request())
    assert (
        raised.value.exit_code == 2
        and "HTTP 400 unsupported_value" in str(raised.value)
        and "'temperature'" in str(raised.value)
    )
    assert [s.status for s in fake.state.seen] == [400] and len(fake.state.rejected) == 1
    assert KEYS["openai"] not in raised.value.render()


def test_params_for_the_openai_sdk_carry_dashscope_fields_in_extra_body(monkeypatch):
    # flows/agent_models reaches DashScope through its OpenAI-compatible mode
    from babelflow.llm.config import parse_spec
    from babelflow.llm.families import openai_sdk_params

    monkeypatch.setenv("DASHSCOPE_API_KEY", KEYS["dashscope"])
    monkeypatch.setenv("OPENAI_API_KEY", KEYS["openai"])
    assert openai_sdk_params(parse_spec("dashscope:qwen3-32b")) == {
        "max_tokens": 4096,
        "temperature": 0.0,
        "extra_body": {"enable_thinking": False},
    }
    assert openai_sdk_params(parse_spec("openai:o4-mini")) == {"max_completion_tokens": 16000}
