"""One JSON exchange with a model, through each provider's official SDK.

* OpenAI (and OpenAI-compatible servers): Chat Completions with ``response_format`` ``json_schema``.
* Anthropic: Messages with one tool whose ``input_schema`` is the schema, forced by ``tool_choice``
  (the current Messages API takes no ``temperature``; that option is ignored for Anthropic).
* DashScope: ``Generation.call`` with ``result_format="message"`` and ``response_format`` json_object.

The SDKs' own retries are off (``max_retries=0``): ``call_with_retries`` retries uniformly, with
the shared per-provider limiter. Each client turns SDK errors into ``TransientError`` (retry) or
``ProviderError`` (stop); the caller records usage into the ``CostLedger`` (estimated when absent).
"""

from __future__ import annotations

import json
import logging
import threading
from dataclasses import dataclass
from typing import Any, Protocol

from translators.providers.config import ProviderConfig
from translators.providers.costs import CostLedger, estimate_tokens
from translators.providers.resilience import ProviderError, TransientError, call_with_retries, status_error


@dataclass
class Completion:
    text: str  # the model's text ("" when the JSON came back as a structured tool call)
    data: Any | None  # JSON already parsed by the protocol (Anthropic tool input), else None
    truncated: bool  # stopped by the output token limit
    input_tokens: int | None
    output_tokens: int | None


class ChatClient(Protocol):
    def complete(self, system: str, user: str, schema_name: str, schema: dict, strict: bool) -> Completion: ...


def _tokens(value: Any) -> int | None:
    return value if isinstance(value, int) and value > 0 else None


def _sdk_error(config: ProviderConfig, exc: Exception, sdk) -> Exception:
    """openai and anthropic share the Stainless error hierarchy."""
    if isinstance(exc, sdk.APIStatusError):
        return status_error(config.provider, exc.status_code, str(getattr(exc, "message", exc))[:300], exc.response.headers)
    if isinstance(exc, (sdk.APITimeoutError, sdk.APIConnectionError)):
        return TransientError(f"{type(exc).__name__}: {exc}")
    if isinstance(exc, (ValueError, TypeError, KeyError, sdk.APIResponseValidationError)):
        return TransientError(f"malformed response body ({type(exc).__name__})")
    return exc


class OpenAIChat:
    def __init__(self, config: ProviderConfig):
        import openai

        self.sdk, self.config = openai, config
        key = config.key.reveal() if config.key else "not-needed"
        self.client = openai.OpenAI(api_key=key, base_url=config.base_url, timeout=config.timeout, max_retries=0)

    def complete(self, system: str, user: str, schema_name: str, schema: dict, strict: bool) -> Completion:
        # OpenAI itself takes max_completion_tokens; compatible servers mostly still read max_tokens
        limit = {"max_completion_tokens" if self.config.provider == "openai" else "max_tokens": self.config.max_tokens}
        try:
            response = self.client.chat.completions.create(
                model=self.config.model,
                messages=[{"role": "system", "content": system}, {"role": "user", "content": user}],
                temperature=self.config.temperature,
                **limit,
                response_format={"type": "json_schema", "json_schema": {"name": schema_name, "schema": schema, "strict": strict}},
            )
            choice = response.choices[0]
            usage = response.usage
            return Completion(choice.message.content or "", None, choice.finish_reason == "length", _tokens(usage and usage.prompt_tokens), _tokens(usage and usage.completion_tokens))
        except Exception as exc:  # noqa: BLE001 - classified below, re-raised otherwise
            raise _sdk_error(self.config, exc, self.sdk) from None


class AnthropicChat:
    def __init__(self, config: ProviderConfig):
        import anthropic

        self.sdk, self.config = anthropic, config
        self.client = anthropic.Anthropic(api_key=config.key.reveal() if config.key else None, base_url=config.base_url, timeout=config.timeout, max_retries=0)

    def complete(self, system: str, user: str, schema_name: str, schema: dict, strict: bool) -> Completion:
        try:
            response = self.client.messages.create(
                model=self.config.model,
                max_tokens=self.config.max_tokens,
                system=system,
                messages=[{"role": "user", "content": user}],
                tools=[{"name": schema_name, "description": "Submit the result. Call exactly once.", "input_schema": schema}],
                tool_choice={"type": "tool", "name": schema_name},
            )
            tool = next((b for b in response.content if getattr(b, "type", None) == "tool_use" and b.name == schema_name), None)
            text = "".join(getattr(b, "text", "") for b in response.content if getattr(b, "type", None) == "text")
            usage = response.usage
            return Completion(text, tool.input if tool is not None else None, response.stop_reason == "max_tokens", _tokens(usage and usage.input_tokens), _tokens(usage and usage.output_tokens))
        except Exception as exc:  # noqa: BLE001
            raise _sdk_error(self.config, exc, self.sdk) from None


class _HandledByUs(logging.Filter):
    """DashScope logs a full traceback ("Request failed") before re-raising transport errors that
    we retry and report ourselves; drop those records, keep everything else it logs."""

    def filter(self, record: logging.LogRecord) -> bool:
        import requests

        handled = record.exc_info and isinstance(record.exc_info[1], (requests.Timeout, requests.ConnectionError, ValueError))
        return not (record.msg == "Request failed" and handled)


class DashScopeChat:
    def __init__(self, config: ProviderConfig):
        import dashscope

        self.sdk, self.config = dashscope, config
        sdk_logger = logging.getLogger("dashscope")
        if not any(isinstance(f, _HandledByUs) for f in sdk_logger.filters):
            sdk_logger.addFilter(_HandledByUs())

    def complete(self, system: str, user: str, schema_name: str, schema: dict, strict: bool) -> Completion:
        import requests

        extra = {"base_address": self.config.base_url} if self.config.base_url else {}
        try:
            response = self.sdk.Generation.call(
                model=self.config.model,
                api_key=self.config.key.reveal() if self.config.key else None,
                messages=[{"role": "system", "content": system}, {"role": "user", "content": user}],
                result_format="message",
                response_format={"type": "json_object"},
                temperature=self.config.temperature,
                max_tokens=self.config.max_tokens,
                request_timeout=self.config.timeout,
                **extra,
            )
        except (requests.Timeout, requests.ConnectionError) as exc:
            raise TransientError(f"{type(exc).__name__}") from None
        except (ValueError, TypeError, KeyError) as exc:  # requests' JSONDecodeError is a ValueError
            raise TransientError(f"malformed response body ({type(exc).__name__})") from None
        if response.status_code != 200:
            raise status_error("dashscope", int(response.status_code), f"{response.code}: {response.message}"[:300], response.headers) from None
        try:
            choice = response.output.choices[0]
            content = choice["message"]["content"]
            if isinstance(content, list):  # multimodal-style content blocks
                content = "".join(part.get("text", "") for part in content)
            usage = response.usage or {}
            return Completion(content or "", None, choice.get("finish_reason") == "length", _tokens(usage.get("input_tokens")), _tokens(usage.get("output_tokens")))
        except (AttributeError, TypeError, KeyError, IndexError):
            raise TransientError("malformed response body (no choices)") from None


CLIENTS = {"openai": OpenAIChat, "openai-compatible": OpenAIChat, "anthropic": AnthropicChat, "dashscope": DashScopeChat}


class ModelCaller:
    """A client plus retries, the shared limit and usage accounting, for one stage's calls."""

    def __init__(self, config: ProviderConfig, costs: CostLedger, client: ChatClient | None = None):
        self.config = config
        self.costs = costs
        self.client = client or CLIENTS[config.provider](config)
        self.requests = 0
        self._lock = threading.Lock()

    def call(self, system: str, user: str, schema_name: str, schema: dict, *, stage: str, language: str, strict: bool = True) -> Completion:
        def attempt() -> Completion:
            with self._lock:
                self.requests += 1
            return self.client.complete(system, user, schema_name, schema, strict)

        completion = call_with_retries(attempt, self.config, what=f"{stage} {language}")
        estimated = completion.input_tokens is None or completion.output_tokens is None
        if completion.input_tokens is None:
            completion.input_tokens = estimate_tokens(system + user)
        if completion.output_tokens is None:
            completion.output_tokens = estimate_tokens(completion.text or json.dumps(completion.data, ensure_ascii=False))
        self.costs.record(stage=stage, language=language, provider=self.config.provider, model=self.config.model,
                          input_tokens=completion.input_tokens, output_tokens=completion.output_tokens, estimated=estimated)
        return completion


__all__ = ["Completion", "ModelCaller", "ProviderError", "TransientError"]
