"""Provider specs, settings and secrets.

Spec grammar (``--translator`` and each ``--validators`` item)::

    PROVIDER:MODEL[@BASE_URL][?option=value&option=value]

PROVIDER is ``openai``, ``anthropic``, ``dashscope`` or ``openai-compatible`` (any server speaking
OpenAI's chat-completions API: vLLM, Ollama, LiteLLM proxy, DashScope compatible mode...; it needs
``@BASE_URL`` or ``OPENAI_BASE_URL``). Options, each also settable as ``BABELFLOW_<PROVIDER>_<OPTION>``
(provider-specific, e.g. ``BABELFLOW_OPENAI_TIMEOUT``) or ``BABELFLOW_LLM_<OPTION>`` (all providers);
the spec wins over the provider variable, which wins over the general one:

=============  =======  ==============================================================
option         default  meaning
=============  =======  ==============================================================
temperature    0.0      sampling temperature
max_tokens     4096     output token limit per request
concurrency    4        requests in flight per provider in this process (shared limit)
timeout        120      seconds per HTTP request
max_retries    5        retries of a request on 429 / 5xx / timeout / malformed body
backoff        1.0      first backoff in seconds (doubles per retry, with jitter)
batch          20       segments per request (a larger engine batch is split)
rpm            0        requests per minute per provider (0 = no limit)
=============  =======  ==============================================================

Base URL: ``@BASE_URL`` in the spec, else ``OPENAI_BASE_URL`` / ``ANTHROPIC_BASE_URL`` /
``DASHSCOPE_HTTP_BASE_URL``, else the SDK's default. Keys come only from the environment
(``OPENAI_API_KEY``, ``ANTHROPIC_API_KEY``, ``DASHSCOPE_API_KEY``) and are held in ``Secret``,
which never prints, pickles or logs its value.
"""

from __future__ import annotations

import logging
import os
import threading
from dataclasses import dataclass
from urllib.parse import parse_qsl

from babelflow.errors import BabelflowError

PROVIDERS = ("openai", "anthropic", "dashscope", "openai-compatible")
KEY_ENV = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY", "dashscope": "DASHSCOPE_API_KEY", "openai-compatible": "OPENAI_API_KEY"}
BASE_URL_ENV = {"openai": "OPENAI_BASE_URL", "anthropic": "ANTHROPIC_BASE_URL", "dashscope": "DASHSCOPE_HTTP_BASE_URL", "openai-compatible": "OPENAI_BASE_URL"}
DEFAULTS: dict[str, float | int] = {"temperature": 0.0, "max_tokens": 4096, "concurrency": 4, "timeout": 120.0, "max_retries": 5, "backoff": 1.0, "batch": 20, "rpm": 0}
REDACTED = "***"

_known: set[str] = set()
_known_lock = threading.Lock()
_factory_installed = False


def redact(text: str) -> str:
    """``text`` with every secret loaded in this process replaced by ***."""
    for value in sorted(_known, key=len, reverse=True):
        text = text.replace(value, REDACTED)
    return text


def _install_log_redaction() -> None:
    """Redact secrets from every log record created in this process, whichever handler emits it."""
    global _factory_installed
    if _factory_installed:
        return
    previous = logging.getLogRecordFactory()

    def factory(*args, **kwargs):
        record = previous(*args, **kwargs)
        if _known:
            try:
                message = record.getMessage()
            except Exception:  # a malformed record is the logging module's business
                return record
            cleaned = redact(message)
            if cleaned != message:
                record.msg, record.args = cleaned, ()
        return record

    logging.setLogRecordFactory(factory)
    _factory_installed = True


class Secret:
    """An API key: ``reveal()`` is the only way to the value; repr/str/pickle never show it."""

    __slots__ = ("_value",)

    def __init__(self, value: str):
        self._value = value
        with _known_lock:
            if len(value) >= 4:
                _known.add(value)
            _install_log_redaction()

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return f"Secret('{REDACTED}')"

    __str__ = __repr__

    def __reduce__(self):
        raise TypeError("a Secret is never serialised (keys live only in the environment)")


@dataclass(frozen=True)
class ProviderConfig:
    provider: str
    model: str
    key: Secret | None
    base_url: str | None = None
    temperature: float = 0.0
    max_tokens: int = 4096
    concurrency: int = 4
    timeout: float = 120.0
    max_retries: int = 5
    backoff: float = 1.0
    batch: int = 20
    rpm: int = 0

    @property
    def limiter_key(self) -> str:
        """The shared rate limit is per provider (and per endpoint for self-hosted servers)."""
        return f"{self.provider}@{self.base_url or 'default'}"

    @property
    def label(self) -> str:
        return f"{self.provider}:{self.model}"


def is_provider_spec(spec: str) -> bool:
    return spec.split(":", 1)[0] in PROVIDERS and ":" in spec


def _option(name: str, provider: str, given: dict[str, str]) -> float | int:
    env_provider = f"BABELFLOW_{provider.upper().replace('-', '_')}_{name.upper()}"
    raw = given.get(name, os.environ.get(env_provider, os.environ.get(f"BABELFLOW_LLM_{name.upper()}")))
    default = DEFAULTS[name]
    if raw is None:
        return default
    try:
        value = type(default)(raw)
    except ValueError:
        raise BabelflowError(f"Option {name}={raw!r} is not a {type(default).__name__}", field=name, fix=f"e.g. {name}={default}") from None
    if value < 0 or (name in ("concurrency", "batch", "max_tokens") and value < 1) or (name == "timeout" and value <= 0):
        raise BabelflowError(f"Option {name}={raw!r} is out of range", field=name, fix=f"e.g. {name}={default}")
    return value


def parse_spec(spec: str, *, field: str = "--translator", require_key: bool = True) -> ProviderConfig:
    """Parse and check a provider spec; the key must be in the environment before any work starts."""
    provider, _, rest = spec.partition(":")
    if provider not in PROVIDERS or not rest:
        raise BabelflowError(f"Unknown provider spec {spec!r}", field=field, fix=f"write PROVIDER:MODEL with PROVIDER one of {', '.join(PROVIDERS)}")
    rest, _, query = rest.partition("?")
    model, _, base_url = rest.partition("@")
    if not model:
        raise BabelflowError(f"No model in {spec!r}", field=field, fix=f"write {provider}:MODEL")
    given = dict(parse_qsl(query, keep_blank_values=True))
    unknown = sorted(set(given) - set(DEFAULTS))
    if unknown:
        raise BabelflowError(f"Unknown option(s) {', '.join(unknown)} in {spec!r}", field=field, fix=f"use {', '.join(DEFAULTS)}")
    base_url = base_url or os.environ.get(BASE_URL_ENV[provider]) or None
    if provider == "openai-compatible" and not base_url:
        raise BabelflowError(f"{spec!r} needs an endpoint", field=field, fix="write openai-compatible:MODEL@http://HOST:PORT/v1 or set OPENAI_BASE_URL")
    raw_key = os.environ.get(KEY_ENV[provider], "").strip()
    if not raw_key and require_key and provider != "openai-compatible":
        raise BabelflowError(
            f"{provider} is configured ({spec.split('?')[0]}) but {KEY_ENV[provider]} is not set",
            field=KEY_ENV[provider],
            fix=f"export {KEY_ENV[provider]}=... (keys are read only from the environment)"
            + (", or use --translator pseudo offline" if field == "--translator" else f", or drop {provider} from {field}"),
        )
    options = {name: _option(name, provider, given) for name in DEFAULTS}
    return ProviderConfig(provider=provider, model=model, key=Secret(raw_key) if raw_key else None, base_url=base_url, **options)
