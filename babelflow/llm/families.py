"""Which request parameters each provider's model families accept, decided before any request.

A real API answers a parameter it does not take with a 400 that no retry fixes, so the first
request of a run would stop it. Each model name maps to one ``Family`` (a closed set); the family
says which token-limit field to send, whether a sampling temperature is accepted, whether
``reasoning_effort`` applies and which fixed parameters the model needs (Qwen3's
``enable_thinking=false`` for non-streaming calls). A requested option the family does not take
is dropped with one warning naming the model and the reason, never sent.

Checked against (README, "Model providers"): openai 3.57 (``chat.completions.create``),
anthropic 2.14 (``messages.create``: no sampling parameters), dashscope 2.0.2
(``Generation.call``); the families follow the providers' API references for those models.
"""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict

from babelflow.errors import BabelflowError

if TYPE_CHECKING:  # annotations only: config.parse_spec calls check_model, so config imports this module
    from babelflow.llm.config import ProviderConfig

log = logging.getLogger("babelflow.providers")

Family = Literal[
    "openai-chat",  # gpt-4.1, gpt-4o, gpt-5-chat-latest...: temperature, max_completion_tokens
    "openai-reasoning",  # o1/o3/o4, gpt-5 and later: no sampling, reasoning_effort, limit covers reasoning
    "openai-compatible",  # someone's server: the classic fields (max_tokens), whatever the user asks for
    "anthropic",  # Messages API: max_tokens required, no sampling parameters
    "qwen-hybrid",  # Qwen3 open-source and qwen-plus/turbo/flash: enable_thinking=false when not streaming
    "qwen-thinking-only",  # QwQ, QVQ, *-thinking-*: streaming only, refused here
    "dashscope",  # other DashScope text models (qwen-max, qwen2.5-*, qwen3-*-instruct-*...)
]

DEFAULT_MAX_TOKENS = 4096
# a reasoning model spends hidden reasoning tokens from the same budget before it writes the JSON
REASONING_MAX_TOKENS = 16000

_OPENAI_REASONING = re.compile(r"^(o\d|gpt-5|gpt-6)")
_QWEN_THINKING_ONLY = re.compile(r"^(qwq|qvq)|-thinking")
_QWEN_HYBRID = re.compile(
    r"^(qwen3-\d+(\.\d+)?b(-a\d+(\.\d+)?b)?|qwen-(plus|turbo|flash)(-latest|-\d{4}-\d{2}-\d{2})?)$"
)


class RequestPlan(BaseModel):
    """What one provider request carries besides the messages and the response format."""

    model_config = ConfigDict(frozen=True)
    family: Family
    params: dict[str, Any]  # SDK keyword arguments, exactly as sent
    dropped: tuple[str, ...] = ()  # requested options this family does not take, with the reason


def family_of(provider: str, model: str) -> Family:
    name = model.lower().rsplit("/", 1)[-1]
    if provider == "openai":
        return "openai-reasoning" if _OPENAI_REASONING.match(name) and "-chat" not in name else "openai-chat"
    if provider == "openai-compatible":
        return "openai-compatible"
    if provider == "anthropic":
        return "anthropic"
    if _QWEN_THINKING_ONLY.search(name):
        return "qwen-thinking-only"
    return "qwen-hybrid" if _QWEN_HYBRID.match(name) else "dashscope"


def check_model(config: ProviderConfig, *, field: str) -> None:
    """Refuse, before any work, a model no request of ours could succeed with."""
    if family_of(config.provider, config.model) == "qwen-thinking-only":
        raise BabelflowError(
            f"{config.label} answers only streaming calls (a thinking-only model); "
            "babelflow sends one JSON request per batch",
            field=field,
            fix="use a model with a non-thinking mode, e.g. dashscope:qwen-plus or dashscope:qwen3-32b",
        )


def plan_request(config: ProviderConfig) -> RequestPlan:
    family = family_of(config.provider, config.model)
    params: dict[str, Any] = {}
    dropped: list[str] = []
    reasoning = family == "openai-reasoning"
    limit = config.max_tokens or (REASONING_MAX_TOKENS if reasoning else DEFAULT_MAX_TOKENS)
    # OpenAI takes max_completion_tokens (reasoning models reject max_tokens); other servers still read max_tokens
    params["max_completion_tokens" if config.provider == "openai" else "max_tokens"] = limit

    if family in ("openai-chat", "openai-compatible", "qwen-hybrid", "dashscope"):
        # deterministic by default where the model lets us choose
        params["temperature"] = 0.0 if config.temperature is None else config.temperature
    elif config.temperature is not None:
        why = (
            "reasoning models take no sampling parameters"
            if reasoning
            else "the Messages API of the installed SDK takes no sampling parameters"
        )
        dropped.append(f"temperature={config.temperature:g} ({why})")

    if config.reasoning_effort is not None:
        if reasoning or family == "openai-compatible":
            params["reasoning_effort"] = config.reasoning_effort
        else:
            dropped.append(f"reasoning_effort={config.reasoning_effort} (only OpenAI reasoning models take it)")

    if family == "qwen-hybrid":
        # Qwen3 open-source models reject a non-streaming call unless thinking is off; for
        # qwen-plus/turbo/flash it is the default, made explicit so a default change cannot bite
        params["enable_thinking"] = False
    return RequestPlan(family=family, params=params, dropped=tuple(dropped))


def warn_dropped(config: ProviderConfig, plan: RequestPlan) -> None:
    """Warn once per client (translator or reviewer), when it is built, not once per request."""
    for item in plan.dropped:
        log.warning("%s (%s): option %s is not sent", config.label, plan.family, item)


def openai_sdk_params(config: ProviderConfig) -> dict[str, Any]:
    """``plan_request``'s parameters as the openai SDK's ``chat.completions.create`` takes them,
    for any provider reached through it (DashScope's compatible mode reads ``enable_thinking``
    from the body, which the SDK sends only through ``extra_body``)."""
    params = dict(plan_request(config).params)
    extra = {name: params.pop(name) for name in ("enable_thinking",) if name in params}
    if extra:
        params["extra_body"] = extra
    return params
