"""Keys go only where they belong: which host received which credential, read at the hosts.

Two loopback fakes stand for two parties: ``127.0.0.1`` is "OpenAI" (and Anthropic, DashScope),
``localhost`` is somebody's OpenAI-compatible server (a local vLLM, a colleague's gateway)."""

from __future__ import annotations

import json
import logging

import pytest
from fakes import KEYS, FakeLLMServer, request, spec

from babelflow.adapt_request import parse_translator_spec
from babelflow.errors import BabelflowError
from babelflow.llm.config import parse_spec
from translators.spec import make_translator as translator_of_spec

ACCOUNT = {
    "OPENAI_ADMIN_KEY": "sk-admin-private-000111",
    "OPENAI_ORG_ID": "org-private-123",
    "OPENAI_PROJECT_ID": "proj-private-456",
}


def make_translator(text: str, language: str):
    """A translator from its command-line spelling."""
    return translator_of_spec(parse_translator_spec(text), language)


@pytest.fixture
def local_server():
    """Someone else's OpenAI-compatible server: it needs no key and records whatever arrives."""
    with FakeLLMServer({"openai": None}, host="localhost", official=False) as server:
        yield server
        assert server.state.rejected == []


def _hosts(server: FakeLLMServer) -> set[str]:
    return {s.host.rsplit(":", 1)[0] for s in server.state.seen}


def test_openai_compatible_never_receives_the_openai_key(fake, local_server, monkeypatch):
    for name, value in ACCOUNT.items():
        monkeypatch.setenv(name, value)
    official = make_translator(spec("openai"), "zh-Hans")
    local = make_translator(f"openai-compatible:local-llm@{local_server.base_urls()['openai']}?backoff=0.01", "zh-Hans")
    assert local.translator_id == "openai-compatible:local-llm/prompt-translate.v1"
    assert official.translate(request()).failed == {} and local.translate(request()).failed == {}
    assert local.costs.report().rows[0].provider == "openai-compatible"

    assert _hosts(fake) == {"127.0.0.1"} and fake.state.credentials() == {"openai": {KEYS["openai"]}}
    assert _hosts(local_server) == {"localhost"} and local_server.state.credentials() == {
        "openai": {None}
    }  # no Authorization at all
    for seen in local_server.state.seen:
        assert not {"authorization", "openai-organization", "openai-project"} & set(seen.headers)
        sent = json.dumps(seen.headers) + json.dumps(seen.body, ensure_ascii=False)
        assert not [v for v in (*KEYS.values(), *ACCOUNT.values()) if v in sent]


def test_openai_compatible_sends_its_own_key_only_to_its_own_server(fake, monkeypatch):
    own = "sk-local-gateway-5566778899"
    monkeypatch.setenv("OPENAI_COMPATIBLE_API_KEY", own)
    with FakeLLMServer({"openai": own}, host="localhost", official=False) as gateway:
        monkeypatch.setenv(
            "OPENAI_COMPATIBLE_BASE_URL", gateway.base_urls()["openai"]
        )  # the endpoint from its own variable
        assert make_translator("openai-compatible:local-llm?backoff=0.01", "zh-Hans").translate(request()).failed == {}
        assert make_translator(spec("openai"), "zh-Hans").translate(request()).failed == {}
        assert gateway.state.credentials() == {"openai": {own}} and _hosts(gateway) == {"localhost"}
        assert gateway.state.rejected == []
    assert fake.state.credentials() == {"openai": {KEYS["openai"]}}  # and the gateway's key never went to OpenAI


def test_openai_compatible_reads_no_openai_variable(fake, monkeypatch):
    # OPENAI_BASE_URL and OPENAI_API_KEY are set by the fixture: neither makes an endpoint or a key here
    with pytest.raises(BabelflowError, match="needs an endpoint") as raised:
        parse_spec("openai-compatible:local-llm")
    assert "OPENAI_COMPATIBLE_BASE_URL" in raised.value.fix
    assert parse_spec("openai-compatible:m@http://127.0.0.1:9/v1").key is None


def test_official_keys_never_travel_over_plain_http_to_another_machine(monkeypatch, caplog):
    monkeypatch.setenv("OPENAI_API_KEY", KEYS["openai"])
    monkeypatch.setenv("DASHSCOPE_API_KEY", KEYS["dashscope"])
    for bad in ("openai:gpt-4.1@http://gateway.example.com/v1", "dashscope:qwen-plus@http://10.0.0.8/api/v1"):
        with pytest.raises(BabelflowError, match="over plain http") as raised:
            parse_spec(bad)
        assert raised.value.exit_code == 2 and "https://" in raised.value.fix
    assert parse_spec("openai:gpt-4.1@https://gateway.example.com/v1").base_url == "https://gateway.example.com/v1"
    assert parse_spec("openai:gpt-4.1@http://localhost:8000/v1").key is not None  # this machine: allowed
    # a self-hosted server's own key over plain http is the user's call, but said out loud
    monkeypatch.setenv("OPENAI_COMPATIBLE_API_KEY", "sk-lan-server-123456")
    with caplog.at_level(logging.WARNING, logger="babelflow.providers"):
        parse_spec("openai-compatible:m@http://192.168.1.20:8000/v1")
    assert any("plain http" in r.getMessage() and "OPENAI_COMPATIBLE_API_KEY" in r.getMessage() for r in caplog.records)
    assert "sk-lan-server-123456" not in caplog.text
