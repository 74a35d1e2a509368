"""Fixtures: a fresh loopback fake per test, the environment pointing each SDK at it."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from fakes import FAST, KEYS, FakeLLMServer, spec

# everything an SDK could read on its own: the tests decide which of these exist
SDK_ENV = (
    "OPENAI_API_KEY",
    "OPENAI_ADMIN_KEY",
    "OPENAI_ORG_ID",
    "OPENAI_PROJECT_ID",
    "OPENAI_BASE_URL",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "ANTHROPIC_BASE_URL",
    "DASHSCOPE_API_KEY",
    "DASHSCOPE_HTTP_BASE_URL",
    "OPENAI_COMPATIBLE_API_KEY",
    "OPENAI_COMPATIBLE_BASE_URL",
)


@pytest.fixture
def fake(monkeypatch) -> FakeLLMServer:
    """A fake speaking all three protocols on 127.0.0.1, with the SDKs' keys and base URLs set.

    A request the real API would have refused fails the test (unless it sets ``expect_rejections``)."""
    for name in SDK_ENV + ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    with FakeLLMServer(KEYS) as server:
        urls = server.base_urls()
        for name, value in {
            "OPENAI_API_KEY": KEYS["openai"],
            "ANTHROPIC_API_KEY": KEYS["anthropic"],
            "DASHSCOPE_API_KEY": KEYS["dashscope"],
            "OPENAI_BASE_URL": urls["openai"],
            "ANTHROPIC_BASE_URL": urls["anthropic"],
            "DASHSCOPE_HTTP_BASE_URL": urls["dashscope"],
            "NO_PROXY": "127.0.0.1,localhost",
            "no_proxy": "127.0.0.1,localhost",
        }.items():
            monkeypatch.setenv(name, value)
        yield server
        if not server.expect_rejections:
            assert server.state.rejected == [], "sent what the real API would reject"


@pytest.fixture
def make_translator() -> Callable:
    from translators.providers import make_model_translator

    def make(provider: str, options: str = FAST, language: str = "zh-Hans"):
        return make_model_translator(spec(provider, options), language)

    return make


@pytest.fixture
def project(tmp_path, monkeypatch, fake):
    """An empty project the CLI runs in (BABELFLOW_PROJECT_ROOT), its Prefect state inside it, the fake up."""
    root = tmp_path / "project"
    root.mkdir()
    monkeypatch.setenv("BABELFLOW_PROJECT_ROOT", str(root))
    # what apply_offline_environment would set with setdefault: scoped to this test instead
    monkeypatch.setenv("PREFECT_HOME", str(root / ".babelflow" / "prefect"))
    monkeypatch.setenv("PREFECT_LOCAL_STORAGE_PATH", str(root / ".babelflow" / "prefect" / "storage"))
    monkeypatch.setenv("PREFECT_RESULTS_PERSIST_BY_DEFAULT", "true")
    return root
