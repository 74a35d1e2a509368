"""Specs, options and their environment fallbacks; keys only from the environment and never
shown: not in reprs, pickles, exceptions or log records."""

from __future__ import annotations

import logging
import pickle

import pytest
from fakes import KEYS, request

from babelflow.adapt_request import parse_translator_spec
from babelflow.errors import BabelflowError
from babelflow.llm.config import Secret, parse_spec, redact
from babelflow.llm.resilience import ProviderError, TransientError
from translators.spec import make_translator as translator_of_spec


def make_translator(text: str, language: str):
    """A translator from its command-line spelling."""
    return translator_of_spec(parse_translator_spec(text), language)


def test_spec_options_and_precedence(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEYS["openai"])
    monkeypatch.setenv("BABELFLOW_LLM_TIMEOUT", "9")
    monkeypatch.setenv("BABELFLOW_OPENAI_TIMEOUT", "7")
    monkeypatch.setenv("BABELFLOW_LLM_CONCURRENCY", "3")
    config = parse_spec("openai:gpt-x@http://127.0.0.1:9/v1?temperature=0.3&batch=5&max_tokens=512")
    assert (config.provider, config.model, config.base_url) == ("openai", "gpt-x", "http://127.0.0.1:9/v1")
    assert (config.temperature, config.batch, config.max_tokens, config.timeout, config.concurrency) == (
        0.3,
        5,
        512,
        7.0,
        3,
    )
    assert parse_spec("openai:gpt-x?timeout=2").timeout == 2.0  # the spec wins over the environment
    for bad, fragment in (
        ("openai:gpt-x?colour=red", "Unknown option"),
        ("openai:gpt-x?batch=0", "out of range"),
        ("openai:gpt-x?timeout=soon", "is not a float"),
        ("mistral:large", "Unknown provider"),
        ("openai:", "Unknown provider"),
    ):
        with pytest.raises(BabelflowError, match=fragment):
            parse_spec(bad)


def test_translator_id_carries_model_and_prompt_version(monkeypatch):
    monkeypatch.setenv("DASHSCOPE_API_KEY", KEYS["dashscope"])
    translator = make_translator("dashscope:qwen-max", "zh-Hans")
    assert translator.translator_id == "dashscope:qwen-max/prompt-translate.v1"
    assert "prompt-translate.v1" in translator.translator_id  # and so in every translation-memory key


def test_missing_key_is_a_clear_error(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(BabelflowError) as raised:
        make_translator("openai:gpt-x", "zh-Hans")
    assert (
        raised.value.exit_code == 2
        and raised.value.field == "OPENAI_API_KEY"
        and "export OPENAI_API_KEY" in raised.value.fix
    )


def test_secret_never_shows(monkeypatch):
    key = "sk-very-secret-value-123456"
    secret = Secret(key)
    assert key not in repr(secret) and key not in str(secret) and key not in f"{secret}"
    with pytest.raises(TypeError):
        pickle.dumps(secret)
    monkeypatch.setenv("ANTHROPIC_API_KEY", key)
    config = parse_spec("anthropic:claude-x")
    assert config.key.reveal() == key and key not in repr(config)
    translator = make_translator("anthropic:claude-x", "zh-Hans")
    assert (
        key not in repr(translator) and key not in repr(vars(translator)) and key not in repr(vars(translator.caller))
    )
    with pytest.raises(TypeError):
        pickle.dumps(config)


def test_secrets_are_redacted_from_errors_and_logs(caplog):
    key = "sk-another-secret-987654"
    Secret(key)
    assert redact(f"Bearer {key}") == "Bearer ***"
    assert key not in str(TransientError(f"upstream said: bad key {key}"))
    error = ProviderError(f"failed with {key}", fix=f"try {key}")
    assert key not in str(error) and key not in error.render()
    with caplog.at_level(logging.INFO):
        logging.getLogger("some.sdk").info("sending Authorization: Bearer %s", key)
    assert key not in caplog.text and "Bearer ***" in caplog.text


def test_wrong_key_is_a_provider_error_without_the_key(fake, monkeypatch):
    wrong = "sk-wrong-but-long-enough-42"
    for provider, env in (
        ("openai", "OPENAI_API_KEY"),
        ("anthropic", "ANTHROPIC_API_KEY"),
        ("dashscope", "DASHSCOPE_API_KEY"),
    ):
        monkeypatch.setenv(env, wrong)
        translator = make_translator(f"{provider}:m?backoff=0.01", "zh-Hans")
        with pytest.raises(ProviderError) as raised:
            translator.translate(request())
        assert raised.value.exit_code == 2 and raised.value.field == env
        assert wrong not in str(raised.value) and "HTTP 401" in str(raised.value)
        assert [s.status for s in fake.state.seen if s.provider == provider] == [401]  # a rejected key is not retried
