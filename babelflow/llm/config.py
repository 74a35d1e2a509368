"""Provider specs, settings and secrets.

Spec grammar (``--translator`` and each ``--validators`` item)::

    PROVIDER:MODEL[@BASE_URL][?option=value&option=value]

PROVIDER is ``openai``, ``anthropic``, ``dashscope`` or ``openai-compatible`` (any server speaking
OpenAI's chat-completions API: vLLM, Ollama, LiteLLM proxy, DashScope compatible mode...; it needs
``@BASE_URL`` or ``OPENAI_COMPATIBLE_BASE_URL``). Options, each also settable as
``BABELFLOW_<PROVIDER>_<OPTION>`` (provider-specific, e.g. ``BABELFLOW_OPENAI_TIMEOUT``) or
``BABELFLOW_LLM_<OPTION>`` (all providers); the spec wins over the provider variable, which wins
over the general one:

================  ========  =========================================================================
option            default   meaning
================  ========  =========================================================================
temperature       (family)  sampling temperature; 0 where the model family accepts one, never sent to
                            families that reject it (a requested value is dropped with a warning)
max_tokens        (family)  output token limit per request (4096; 16000 for OpenAI reasoning models,
                            whose limit also covers their hidden reasoning tokens)
reasoning_effort  (model)   OpenAI reasoning models: none|minimal|low|medium|high|xhigh|max
concurrency       4         requests in flight per provider in this process (shared limit)
timeout           120       seconds per HTTP request
max_retries       5         retries of a request on 429 / 529 / 5xx / timeout / garbled body
backoff           1.0       first backoff in seconds (doubles per retry, with jitter)
throttle_floor    15        least wait after a 503/529 without Retry-After, or a 429 without one when
                            none of our requests went through in the last minute (5 retries then
                            cover a per-minute quota window; otherwise the learned limit paces)
batch             20        segments per request (a larger engine batch is split)
rpm               0         requests per minute per provider (0 = no limit)
budget            0         tokens (in + out, estimated before sending) one validator agent may spend
                            on one run; content beyond it is sampled (0 = no limit)
price_in          0         your price in USD per million input tokens (0 = not priced): the cost
                            report and ``--estimate`` show USD per stage. Prices vary by region, tier
                            and month, so none is built in
price_out         0         the same per million output tokens
================  ========  =========================================================================

What each model family accepts: ``babelflow.llm.families``.

Base URL: ``@BASE_URL`` in the spec, else the provider's own variable (``OPENAI_BASE_URL``,
``ANTHROPIC_BASE_URL``, ``DASHSCOPE_HTTP_BASE_URL``, ``OPENAI_COMPATIBLE_BASE_URL``), else the SDK's
default. Keys come only from the environment, each provider from its own variable
(``OPENAI_API_KEY``, ``ANTHROPIC_API_KEY``, ``DASHSCOPE_API_KEY``, ``OPENAI_COMPATIBLE_API_KEY``):
an ``openai-compatible`` server is someone else's, so it never sees the OpenAI key. Keys are held in
``Secret``, which never prints, pickles or logs its value.
"""

from __future__ import annotations

import ipaddress
import logging
import os
import threading
from dataclasses import dataclass
from typing import Any, Literal, get_args
from urllib.parse import parse_qsl, urlsplit

from babelflow.errors import BabelflowError
from babelflow.llm.estimate_mode import is_estimating
from babelflow.llm.families import check_model

Provider = Literal["openai", "anthropic", "dashscope", "openai-compatible"]
ReasoningEffort = Literal["none", "minimal", "low", "medium", "high", "xhigh", "max"]
PROVIDERS: tuple[str, ...] = get_args(Provider)
KEY_ENV: dict[str, str] = {
    "openai": "OPENAI_API_KEY",
    "anthropic": "ANTHROPIC_API_KEY",
    "dashscope": "DASHSCOPE_API_KEY",
    # its own variable: the OpenAI key must never reach a third-party or local server
    "openai-compatible": "OPENAI_COMPATIBLE_API_KEY",
}
BASE_URL_ENV: dict[str, str] = {
    "openai": "OPENAI_BASE_URL",
    "anthropic": "ANTHROPIC_BASE_URL",
    "dashscope": "DASHSCOPE_HTTP_BASE_URL",
    "openai-compatible": "OPENAI_COMPATIBLE_BASE_URL",
}
# None: decided per model family (babelflow.llm.families), so "not asked for" stays
# distinguishable from "asked for", and only the latter is warned about when a family drops it
DEFAULTS: dict[str, float | int | str | None] = {
    "temperature": None,
    "max_tokens": None,
    "reasoning_effort": None,
    "concurrency": 4,
    "timeout": 120.0,
    "max_retries": 5,
    "backoff": 1.0,
    "throttle_floor": 15.0,
    "batch": 20,
    "rpm": 0,
    "budget": 0,
    "price_in": 0.0,
    "price_out": 0.0,
}
_TYPES: dict[str, type] = {
    "temperature": float,
    "max_tokens": int,
    "reasoning_effort": str,
    "concurrency": int,
    "timeout": float,
    "max_retries": int,
    "backoff": float,
    "throttle_floor": float,
    "batch": int,
    "rpm": int,
    "budget": int,
    "price_in": float,
    "price_out": float,
}
_EXAMPLES = {"temperature": "0", "max_tokens": "4096", "reasoning_effort": "low", "price_in": "0.4"}
REDACTED = "***"

_known: set[str] = set()
_known_lock = threading.Lock()
_factory_installed = False
log = logging.getLogger("babelflow.providers")


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
    temperature: float | None = None
    max_tokens: int | None = None
    reasoning_effort: str | None = None
    concurrency: int = 4
    timeout: float = 120.0
    max_retries: int = 5
    backoff: float = 1.0
    throttle_floor: float = 15.0
    batch: int = 20
    rpm: int = 0
    budget: int = 0
    price_in: float = 0.0  # USD per million tokens, as the user's contract says (0 = not priced)
    price_out: float = 0.0

    @property
    def limiter_key(self) -> str:
        """The shared rate limit is per provider (and per endpoint for self-hosted servers)."""
        return f"{self.provider}@{self.base_url or 'default'}"

    @property
    def label(self) -> str:
        return f"{self.provider}:{self.model}"

    @property
    def key_env(self) -> str:
        return KEY_ENV[self.provider]


def is_provider_spec(spec: str) -> bool:
    return spec.split(":", 1)[0] in PROVIDERS and ":" in spec


def _option(name: str, provider: str, given: dict[str, str]) -> float | int | str | None:
    env_provider = f"BABELFLOW_{provider.upper().replace('-', '_')}_{name.upper()}"
    raw = given.get(name, os.environ.get(env_provider, os.environ.get(f"BABELFLOW_LLM_{name.upper()}")))
    default = DEFAULTS[name]
    example = _EXAMPLES.get(name, default)
    if raw is None or (raw == "" and default is None):
        return default
    if name == "reasoning_effort":
        if raw not in get_args(ReasoningEffort):
            raise BabelflowError(
                f"Option reasoning_effort={raw!r} is not one of {', '.join(get_args(ReasoningEffort))}",
                field=name,
                fix="e.g. reasoning_effort=low",
            )
        return raw
    kind = _TYPES[name]
    try:
        value = kind(raw)
    except ValueError:
        raise BabelflowError(
            f"Option {name}={raw!r} is not a {kind.__name__}", field=name, fix=f"e.g. {name}={example}"
        ) from None
    if (
        value < 0
        or (name in ("concurrency", "batch", "max_tokens") and value < 1)
        or (name == "timeout" and value <= 0)
    ):
        raise BabelflowError(f"Option {name}={raw!r} is out of range", field=name, fix=f"e.g. {name}={example}")
    return value


def _is_loopback(host: str | None) -> bool:
    if not host:
        return False
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _check_transport(provider: str, base_url: str | None, has_key: bool, field: str) -> None:
    """A key in clear text is readable by every hop on the way: official providers' keys travel
    only over https (or to this machine); a self-hosted server's key gets a warning."""
    if not base_url:
        return
    parts = urlsplit(base_url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise BabelflowError(
            f"Base URL {base_url!r} is not an http(s) URL", field=field, fix=f"write {provider}:MODEL@https://HOST/PATH"
        )
    if not has_key or parts.scheme == "https" or _is_loopback(parts.hostname):
        return
    if provider == "openai-compatible":
        log.warning(
            "%s is sent over plain http to %s: anyone on the network path can read it",
            KEY_ENV[provider],
            parts.hostname,
        )
        return
    raise BabelflowError(
        f"{provider} would send {KEY_ENV[provider]} over plain http to {parts.hostname}",
        field=field,
        fix=f"use an https:// base URL for {provider} (plain http is allowed only to this machine)",
    )


def parse_spec(spec: str, *, field: str = "--translator", require_key: bool = True) -> ProviderConfig:
    """Parse and check a provider spec; the key must be in the environment before any work starts."""
    provider, _, rest = spec.partition(":")
    if provider not in PROVIDERS or not rest:
        raise BabelflowError(
            f"Unknown provider spec {spec!r}",
            field=field,
            fix=f"write PROVIDER:MODEL with PROVIDER one of {', '.join(PROVIDERS)}",
        )
    rest, _, query = rest.partition("?")
    model, _, base_url = rest.partition("@")
    if not model:
        raise BabelflowError(f"No model in {spec!r}", field=field, fix=f"write {provider}:MODEL")
    given = dict(parse_qsl(query, keep_blank_values=True))
    unknown = sorted(set(given) - set(DEFAULTS))
    if unknown:
        raise BabelflowError(
            f"Unknown option(s) {', '.join(unknown)} in {spec!r}", field=field, fix=f"use {', '.join(DEFAULTS)}"
        )
    endpoint = base_url or os.environ.get(BASE_URL_ENV[provider]) or None
    if provider == "openai-compatible" and not endpoint:
        raise BabelflowError(
            f"{spec!r} needs an endpoint",
            field=field,
            fix="write openai-compatible:MODEL@http://HOST:PORT/v1 or set OPENAI_COMPATIBLE_BASE_URL",
        )
    raw_key = os.environ.get(KEY_ENV[provider], "").strip()
    # a self-hosted server usually needs no key: none is sent unless OPENAI_COMPATIBLE_API_KEY is set
    # an estimate sends nothing (babelflow.llm.estimate): it needs no key
    if not raw_key and require_key and provider != "openai-compatible" and not is_estimating():
        raise BabelflowError(
            f"{provider} is configured ({spec.split('?')[0]}) but {KEY_ENV[provider]} is not set",
            field=KEY_ENV[provider],
            fix=f"export {KEY_ENV[provider]}=... (keys are read only from the environment)"
            + (
                ", or use --translator pseudo offline"
                if field == "--translator"
                else f", or drop {provider} from {field}"
            ),
        )
    _check_transport(provider, endpoint, bool(raw_key), field)
    # each value is parsed to the type _TYPES names for its option; mypy cannot tie a key to its value's type
    options: dict[str, Any] = {name: _option(name, provider, given) for name in DEFAULTS}
    config = ProviderConfig(
        provider=provider, model=model, key=Secret(raw_key) if raw_key else None, base_url=endpoint, **options
    )
    check_model(config, field=field)
    return config
