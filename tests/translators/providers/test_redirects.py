"""A provider endpoint that redirects gets nothing followed (issue 28: a 307 carried
`OpenAI-Organization`, `OpenAI-Project` and the whole prompt to the new host). The real SDK
clients talk to a loopback endpoint that answers 3xx to a second loopback server on another
port; that second server must receive nothing, and the run stops with a message naming the
endpoint, where it pointed, and where to configure the final URL."""

from __future__ import annotations

import pytest
from conftest import SDK_ENV
from fakes import KEYS, MODELS, request

from babelflow.errors import BabelflowError
from babelflow.llm.costs import CostLedger
from babelflow.llm.tools import ToolChatModel
from bench.drill_cases.redirects import RedirectPair
from translators.providers import make_model_translator

ACCOUNT = {"OPENAI_ORG_ID": "org-private-123", "OPENAI_PROJECT_ID": "proj-private-456"}
BASE_ENV = {"openai": "OPENAI_BASE_URL", "anthropic": "ANTHROPIC_BASE_URL", "dashscope": "DASHSCOPE_HTTP_BASE_URL"}


@pytest.fixture
def account(monkeypatch):
    for name in SDK_ENV + ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    for name, value in {
        "OPENAI_API_KEY": KEYS["openai"],
        "ANTHROPIC_API_KEY": KEYS["anthropic"],
        "DASHSCOPE_API_KEY": KEYS["dashscope"],
        "NO_PROXY": "127.0.0.1,localhost",
        "no_proxy": "127.0.0.1,localhost",
        **ACCOUNT,
    }.items():
        monkeypatch.setenv(name, value)


def _assert_refused(
    raised: pytest.ExceptionInfo[BabelflowError], pair: RedirectPair, provider: str, status: int
) -> None:
    error = raised.value
    assert error.exit_code == 2 and f"HTTP {status}" in error.message and pair.root in error.message
    assert pair.target in error.message  # where it pointed
    assert error.field == BASE_ENV[provider] and BASE_ENV[provider] in error.fix and "@URL" in error.fix
    assert pair.arrivals == [], f"the redirect was followed: {[(a.method, a.path) for a in pair.arrivals]}"
    assert len(pair.hits) == 1  # asked once: a redirect is not retried


@pytest.mark.parametrize("status", [307, 308, 301, 302])
@pytest.mark.parametrize("provider", ["openai", "anthropic", "dashscope"])
def test_a_translation_request_is_not_followed_to_another_host(account, provider, status):
    with RedirectPair(status) as pair:
        translator = make_model_translator(
            f"{provider}:{MODELS[provider]}@{pair.base_urls()[provider]}?backoff=0.01&max_retries=2", "zh-Hans"
        )
        with pytest.raises(BabelflowError) as raised:
            translator.translate(request())
        _assert_refused(raised, pair, provider, status)
        sent = pair.hits[0]
        assert b"Cancel the reservation" in sent.body  # the configured endpoint got the request; nobody else did
        if provider == "openai":
            assert (
                sent.headers.get("openai-organization") == ACCOUNT["OPENAI_ORG_ID"]
            )  # OpenAI's own endpoint may see them


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_a_validator_agents_tool_turn_is_not_followed_either(account, provider):
    with RedirectPair(307) as pair:
        model = ToolChatModel(
            f"{provider}:{MODELS[provider]}@{pair.base_urls()[provider]}?backoff=0.01&max_retries=2",
            field="--validators",
            stage="validate",
            language="zh-Hans",
            costs=CostLedger(),
        )
        with pytest.raises(BabelflowError) as raised:
            model.turn([{"role": "user", "content": "Review: Cancel the reservation."}], None)
        _assert_refused(raised, pair, provider, 307)
