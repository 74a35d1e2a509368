"""One JSON exchange with a model, through each provider's official SDK.

* OpenAI (and OpenAI-compatible servers): Chat Completions with ``response_format`` ``json_schema``.
* Anthropic: Messages with one tool whose ``input_schema`` is the schema, forced by ``tool_choice``.
* DashScope: ``Generation.call`` with ``result_format="message"`` and ``response_format`` json_object.

Which parameters go with each model: ``families`` (decided once per client, dropped options
warned about when it is built). The SDKs' own retries are off (``max_retries=0``):
``call_with_retries`` retries uniformly, with the shared per-provider limiter. Each client reads
its provider's error replies into a ``failures.Failure`` and raises what its cause calls for:
``TransientError`` (retry), ``BatchRejected`` (smaller batches, then the segment's failure) or
``ProviderError`` (stop). A 200 reply without a usable answer (no choices, no content, no tool
call, a refusal) comes back as a ``Completion`` with ``problem`` set: it was billed, and the
translator retries its segments smaller.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import requests

from babelflow.llm.config import ProviderConfig
from babelflow.llm.costs import CostLedger, estimate_tokens
from babelflow.llm.estimate_mode import is_estimating
from babelflow.llm.failures import read_failure, to_exception
from babelflow.llm.families import plan_request, warn_dropped
from babelflow.llm.redirects import NoRedirectSession, is_redirect, redirect_refused
from babelflow.llm.resilience import BatchRejected, ProviderError, TransientError, call_with_retries

# Anthropic's stop reasons that mean "cut off": the output limit, or the context window filled
ANTHROPIC_TRUNCATED = frozenset({"max_tokens", "model_context_window_exceeded"})


@dataclass
class Completion:
    text: str  # the model's text ("" when the JSON came back as a structured tool call)
    data: Any | None  # JSON already parsed by the protocol (Anthropic tool input), else None
    truncated: bool  # stopped by the output token limit or the context window
    input_tokens: int | None
    output_tokens: int | None
    problem: str | None = None  # a reply with no usable answer (empty, refused): retried smaller


class ChatClient(Protocol):
    def complete(self, system: str, user: str, schema_name: str, schema: dict, strict: bool) -> Completion: ...


def _tokens(value: Any) -> int | None:
    return value if isinstance(value, int) and value > 0 else None


def _as_dict(value: object) -> dict:
    """`value` if it is a JSON object, else an empty one (error bodies come in many shapes)."""
    return value if isinstance(value, dict) else {}


def sdk_error(config: ProviderConfig, exc: Exception, sdk) -> Exception:
    """openai and anthropic share the Stainless error hierarchy; their bodies differ."""
    if isinstance(exc, sdk.APIStatusError):
        if is_redirect(exc.status_code):  # not followed (redirects.py): nothing went to the new host
            return redirect_refused(config, exc.status_code, str(exc.request.url), exc.response.headers.get("location"))
        body = _as_dict(exc.body)
        error = _as_dict(body.get("error", body))
        message = str(error.get("message") or getattr(exc, "message", exc))
        # openai: error.code ("insufficient_quota"); anthropic: error.details.error_code, else error.type
        details = _as_dict(error.get("details"))
        code = getattr(exc, "error_code", None) or details.get("error_code") or error.get("code")
        failure = read_failure(
            config.provider,
            exc.status_code,
            code=str(code) if code else None,
            message=message,
            error_type=error.get("type"),
            headers=exc.response.headers,
        )
        return to_exception(config, failure)
    if isinstance(exc, (sdk.APITimeoutError, sdk.APIConnectionError)):
        return TransientError(f"{type(exc).__name__}: {exc}")
    if isinstance(exc, (ValueError, TypeError, KeyError, sdk.APIResponseValidationError)):
        return TransientError(f"garbled response body ({type(exc).__name__})")
    return exc


def openai_client(config: ProviderConfig, base_url: str | None = None) -> tuple[Any, dict[str, Any]]:
    """(OpenAI SDK client, extra request headers) for `config`: the OpenAI account's key and
    headers go to OpenAI only. For anyone else's server the SDK would fill a missing key from
    OPENAI_API_KEY and add OPENAI_ORG_ID / OPENAI_PROJECT_ID as headers, so the key is explicit
    (a placeholder it never sends when there is none) and the rest omitted. Redirects are not
    followed (redirects.py)."""
    import openai  # noqa: PLC0415 - provider SDK, imported only when its provider is used

    base_url = base_url or config.base_url
    http_client = openai.DefaultHttpxClient(follow_redirects=False)  # the SDK's defaults otherwise
    if config.provider == "openai":
        key = config.key.reveal() if config.key else None
        return openai.OpenAI(
            api_key=key, base_url=base_url, timeout=config.timeout, max_retries=0, http_client=http_client
        ), {}
    client = openai.OpenAI(
        api_key=config.key.reveal() if config.key else "unused",
        organization=None,
        project=None,
        base_url=base_url,
        timeout=config.timeout,
        max_retries=0,
        http_client=http_client,
        # Omit() removes a header the SDK would add; its annotation admits only str values
        default_headers={
            "OpenAI-Organization": openai.Omit(),  # type: ignore[dict-item]
            "OpenAI-Project": openai.Omit(),  # type: ignore[dict-item]
        },
    )
    return client, ({"Authorization": openai.Omit()} if config.key is None else {})


def anthropic_client(config: ProviderConfig) -> Any:
    """Anthropic SDK client for `config`: its own key only, the SDK's retries off (ours retry),
    redirects not followed (redirects.py)."""
    import anthropic  # noqa: PLC0415 - provider SDK, imported only when its provider is used

    return anthropic.Anthropic(
        api_key=config.key.reveal() if config.key else None,
        base_url=config.base_url,
        timeout=config.timeout,
        max_retries=0,
        http_client=anthropic.DefaultHttpxClient(follow_redirects=False),
    )


class OpenAIChat:
    def __init__(self, config: ProviderConfig):
        import openai  # noqa: PLC0415 - provider SDK, imported only when its provider is used

        self.sdk, self.config = openai, config
        self.plan = plan_request(config)
        warn_dropped(config, self.plan)
        self.client, self.extra_headers = openai_client(config)

    def complete(self, system: str, user: str, schema_name: str, schema: dict, strict: bool) -> Completion:
        try:
            response = self.client.chat.completions.create(
                model=self.config.model,
                messages=[{"role": "system", "content": system}, {"role": "user", "content": user}],
                response_format={
                    "type": "json_schema",
                    "json_schema": {"name": schema_name, "schema": schema, "strict": strict},
                },
                extra_headers=self.extra_headers or None,
                **self.plan.params,
            )
        except Exception as exc:  # noqa: BLE001 - classified below, re-raised otherwise
            raise sdk_error(self.config, exc, self.sdk) from None
        usage = getattr(response, "usage", None)
        tokens = (_tokens(usage and usage.prompt_tokens), _tokens(usage and usage.completion_tokens))
        if not getattr(response, "choices", None):
            return Completion("", None, False, *tokens, problem="empty reply (no choices)")
        choice = response.choices[0]
        refusal = getattr(choice.message, "refusal", None)
        if refusal or choice.finish_reason == "content_filter":
            return Completion(
                "", None, False, *tokens, problem=f"refused by the model ({(refusal or 'content_filter')[:120]})"
            )
        text = choice.message.content or ""
        if not text.strip() and choice.finish_reason != "length":
            return Completion("", None, False, *tokens, problem="empty reply (no content)")
        return Completion(text, None, choice.finish_reason == "length", *tokens)


class AnthropicChat:
    def __init__(self, config: ProviderConfig):
        import anthropic  # noqa: PLC0415 - provider SDK, imported only when its provider is used

        self.sdk, self.config = anthropic, config
        self.plan = plan_request(config)
        warn_dropped(config, self.plan)
        self.client = anthropic_client(config)

    def complete(self, system: str, user: str, schema_name: str, schema: dict, strict: bool) -> Completion:
        try:
            response = self.client.messages.create(
                model=self.config.model,
                system=system,
                messages=[{"role": "user", "content": user}],
                tools=[
                    {
                        "name": schema_name,
                        "description": "Submit the result. Call exactly once.",
                        "input_schema": schema,
                    }
                ],
                tool_choice={"type": "tool", "name": schema_name},
                **self.plan.params,
            )
        except Exception as exc:  # noqa: BLE001
            raise sdk_error(self.config, exc, self.sdk) from None
        usage = getattr(response, "usage", None)
        tokens = (_tokens(usage and usage.input_tokens), _tokens(usage and usage.output_tokens))
        if response.stop_reason == "refusal":
            return Completion("", None, False, *tokens, problem="refused by the model (stop_reason refusal)")
        blocks = getattr(response, "content", None) or []
        tool = next((b for b in blocks if getattr(b, "type", None) == "tool_use" and b.name == schema_name), None)
        text = "".join(getattr(b, "text", "") for b in blocks if getattr(b, "type", None) == "text")
        truncated = response.stop_reason in ANTHROPIC_TRUNCATED
        if tool is None and not text.strip() and not truncated:
            return Completion(
                "", None, False, *tokens, problem=f"empty reply (no tool call, stop_reason {response.stop_reason})"
            )
        return Completion(text, tool.input if tool is not None else None, truncated, *tokens)


class _HandledByUs(logging.Filter):
    """DashScope logs a full traceback ("Request failed") before re-raising transport errors that
    we retry and report ourselves; drop those records, keep everything else it logs."""

    def filter(self, record: logging.LogRecord) -> bool:
        handled = record.exc_info and isinstance(
            record.exc_info[1], (requests.Timeout, requests.ConnectionError, ValueError)
        )
        return not (record.msg == "Request failed" and handled)


class DashScopeChat:
    def __init__(self, config: ProviderConfig):
        import dashscope  # noqa: PLC0415 - provider SDK, imported only when its provider is used

        self.sdk, self.config = dashscope, config
        self.plan = plan_request(config)
        warn_dropped(config, self.plan)
        sdk_logger = logging.getLogger("dashscope")
        if not any(isinstance(f, _HandledByUs) for f in sdk_logger.filters):
            sdk_logger.addFilter(_HandledByUs())
        self.session = NoRedirectSession()  # the SDK's shared session would follow a redirect

    def complete(self, system: str, user: str, schema_name: str, schema: dict, strict: bool) -> Completion:
        from dashscope.api_entities.dashscope_response import GenerationResponse  # noqa: PLC0415 - provider SDK

        extra: dict[str, Any] = {"base_address": self.config.base_url} if self.config.base_url else {}
        try:
            response = self.sdk.Generation.call(
                model=self.config.model,
                api_key=self.config.key.reveal() if self.config.key else None,
                # plain dicts are what the SDK sends (the wire tests check them); its annotation says Message
                messages=[
                    {"role": "system", "content": system},  # type: ignore[list-item]
                    {"role": "user", "content": user},  # type: ignore[list-item]
                ],
                result_format="message",
                response_format={"type": "json_object"},
                request_timeout=self.config.timeout,
                session=self.session,
                **self.plan.params,
                **extra,
            )
        except (requests.Timeout, requests.ConnectionError) as exc:
            raise TransientError(f"{type(exc).__name__}") from None
        except (ValueError, TypeError, KeyError) as exc:  # requests' JSONDecodeError is a ValueError
            raise TransientError(f"garbled response body ({type(exc).__name__})") from None
        if not isinstance(response, GenerationResponse):  # a generator only when stream=True, which is never sent
            raise TypeError(f"unexpected DashScope response ({type(response).__name__})")
        if is_redirect(int(response.status_code)):
            location = {str(k).lower(): v for k, v in (response.headers or {}).items()}.get("location")
            raise redirect_refused(self.config, int(response.status_code), self.config.base_url, location) from None
        if response.status_code != 200:
            failure = read_failure(
                "dashscope",
                int(response.status_code),
                code=response.code or None,
                message=str(response.message or ""),
                headers=response.headers,
            )
            raise to_exception(self.config, failure) from None
        usage = response.usage or {}
        tokens = (_tokens(usage.get("input_tokens")), _tokens(usage.get("output_tokens")))
        try:
            choices = response.output.choices or []
        except (AttributeError, TypeError, KeyError):
            choices = []
        if not choices:
            return Completion("", None, False, *tokens, problem="empty reply (no choices)")
        choice = choices[0]
        content = (choice.get("message") or {}).get("content") or ""
        if isinstance(content, list):  # multimodal-style content blocks
            content = "".join(part.get("text", "") for part in content if isinstance(part, dict))
        finish = choice.get("finish_reason")
        if not content.strip() and finish != "length":
            return Completion("", None, False, *tokens, problem="empty reply (no content)")
        return Completion(content, None, finish == "length", *tokens)


CLIENTS: dict[str, Callable[[ProviderConfig], ChatClient]] = {
    "openai": OpenAIChat,
    "openai-compatible": OpenAIChat,
    "anthropic": AnthropicChat,
    "dashscope": DashScopeChat,
}


def _estimating_client(config: ProviderConfig) -> ChatClient:
    from babelflow.llm.estimate import EstimatingClient  # noqa: PLC0415 - it builds Completions (this module)

    return EstimatingClient(config)


class ModelCaller:
    """A client plus retries, the shared limit and usage accounting, for one stage's calls."""

    def __init__(self, config: ProviderConfig, costs: CostLedger, client: ChatClient | None = None):
        self.config = config
        self.costs = costs
        # inside `--estimate` nothing is sent: the estimating client answers and counts (babelflow.llm.estimate)
        self.client = client or (_estimating_client(config) if is_estimating() else CLIENTS[config.provider](config))
        self.requests = 0
        self._lock = threading.Lock()

    def call(
        self,
        system: str,
        user: str,
        schema_name: str,
        schema: dict,
        *,
        stage: str,
        language: str,
        strict: bool = True,
        agent: str = "",
    ) -> Completion:
        """The completion (``problem`` set when it holds no usable answer); raises ``BatchRejected``
        for a request the provider will not take as it is, ``ProviderError`` to stop."""

        def attempt() -> Completion:
            with self._lock:
                self.requests += 1
            return self.client.complete(system, user, schema_name, schema, strict)

        if is_estimating():  # no provider, so no limiter to wait on and nothing to retry
            completion = attempt()
        else:
            completion = call_with_retries(attempt, self.config, what=f"{stage} {language}")
        estimated = completion.input_tokens is None or completion.output_tokens is None
        if completion.input_tokens is None:
            completion.input_tokens = estimate_tokens(system + user)
        if completion.output_tokens is None:
            completion.output_tokens = estimate_tokens(
                completion.text or json.dumps(completion.data, ensure_ascii=False)
            )
        self.costs.record(
            stage=stage,
            language=language,
            provider=self.config.provider,
            model=self.config.model,
            input_tokens=completion.input_tokens,
            output_tokens=completion.output_tokens,
            estimated=estimated,
            agent=agent,
            prices=(self.config.price_in, self.config.price_out),
        )
        return completion


__all__ = ["BatchRejected", "Completion", "ModelCaller", "ProviderError", "TransientError"]
