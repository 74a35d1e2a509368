"""One tool-calling chat turn (an agent or user simulator talking to tools), through the same
keys, request plans, shared limits, retries and ledger as the JSON exchanges of ``clients``.

* OpenAI and any OpenAI-compatible server: Chat Completions with ``tools``.
* DashScope: its OpenAI-compatible endpoint (``/compatible-mode/v1``) through the OpenAI SDK, the
  way DashScope documents tool calling for Qwen models.
* Anthropic: Messages with tools; OpenAI-format history is converted (system out of the list,
  tool calls as ``tool_use`` blocks, tool results as ``tool_result`` blocks).
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from typing import Any

from babelflow.llm.clients import anthropic_client, openai_client, sdk_error
from babelflow.llm.config import ProviderConfig, parse_spec
from babelflow.llm.costs import CostLedger, estimate_tokens
from babelflow.llm.families import openai_sdk_params, plan_request
from babelflow.llm.resilience import TransientError, call_with_retries

DASHSCOPE_COMPATIBLE = "https://dashscope.aliyuncs.com/compatible-mode/v1"


@dataclass
class ToolTurn:
    """What the model said in one turn: text and/or tool calls as (call id, tool name, arguments)."""

    content: str | None
    tool_calls: list[tuple[str, str, dict[str, Any]]] = field(default_factory=list)


class _OpenAITools:
    def __init__(self, config: ProviderConfig):
        import openai  # noqa: PLC0415 - provider SDK, imported only when its provider is used

        self.sdk, self.config = openai, config
        base_url = config.base_url or (DASHSCOPE_COMPATIBLE if config.provider == "dashscope" else None)
        self.client, self.extra_headers = openai_client(
            config, base_url
        )  # no OpenAI-account key or header to anyone else

    def turn(self, messages: list[dict], tools: list[dict] | None) -> tuple[ToolTurn, int | None, int | None]:
        extra = {"tools": tools, "tool_choice": "auto"} if tools else {}
        try:
            # only what this model family accepts (babelflow/llm/families.py)
            response = self.client.chat.completions.create(
                model=self.config.model,
                messages=messages,
                extra_headers=self.extra_headers or None,
                **openai_sdk_params(self.config),
                **extra,
            )
            if not response.choices:
                raise TransientError("empty reply: no choices")
            message = response.choices[0].message
            calls = [
                (c.id, c.function.name, json.loads(c.function.arguments or "{}")) for c in message.tool_calls or []
            ]
            usage = response.usage
        except TransientError:
            raise
        except Exception as exc:  # noqa: BLE001 - classified, re-raised otherwise
            raise sdk_error(self.config, exc, self.sdk) from None
        return ToolTurn(message.content, calls), usage and usage.prompt_tokens, usage and usage.completion_tokens


def anthropic_messages(messages: list[dict]) -> tuple[str, list[dict]]:
    """OpenAI-format history as Anthropic's (system prompt, messages)."""
    system = "\n\n".join(m["content"] or "" for m in messages if m["role"] == "system")
    out: list[dict] = []
    for m in messages:
        if m["role"] == "system":
            continue
        if m["role"] == "tool":
            block = {"type": "tool_result", "tool_use_id": m["tool_call_id"], "content": m["content"] or ""}
            if out and out[-1]["role"] == "user" and isinstance(out[-1]["content"], list):
                out[-1]["content"].append(block)  # parallel tool results go back in one user turn
            else:
                out.append({"role": "user", "content": [block]})
            continue
        blocks: list[dict] = [{"type": "text", "text": m["content"]}] if m.get("content") else []
        for call in m.get("tool_calls") or []:
            blocks.append(
                {
                    "type": "tool_use",
                    "id": call["id"],
                    "name": call["function"]["name"],
                    "input": json.loads(call["function"]["arguments"]),
                }
            )
        out.append({"role": m["role"], "content": blocks or [{"type": "text", "text": "…"}]})
    return system, out


class _AnthropicTools:
    def __init__(self, config: ProviderConfig):
        import anthropic  # noqa: PLC0415 - provider SDK, imported only when its provider is used

        self.sdk, self.config = anthropic, config
        self.client = anthropic_client(config)

    def turn(self, messages: list[dict], tools: list[dict] | None) -> tuple[ToolTurn, int | None, int | None]:
        system, history = anthropic_messages(messages)
        extra = (
            {
                "tools": [
                    {
                        "name": t["function"]["name"],
                        "description": t["function"].get("description", ""),
                        "input_schema": t["function"]["parameters"],
                    }
                    for t in tools
                ]
            }
            if tools
            else {}
        )
        try:
            response = self.client.messages.create(
                model=self.config.model, system=system, messages=history, **plan_request(self.config).params, **extra
            )
        except Exception as exc:  # noqa: BLE001 - classified, re-raised otherwise
            raise sdk_error(self.config, exc, self.sdk) from None
        text = "".join(getattr(b, "text", "") for b in response.content if getattr(b, "type", None) == "text") or None
        calls = [(b.id, b.name, dict(b.input)) for b in response.content if getattr(b, "type", None) == "tool_use"]
        return (
            ToolTurn(text, calls),
            response.usage and response.usage.input_tokens,
            response.usage and response.usage.output_tokens,
        )


class ToolChatModel:
    """Tool-calling turns against one provider spec; usage goes to the ledger as ``stage``."""

    def __init__(self, spec: str, *, field: str, stage: str, language: str, costs: CostLedger):
        self.config = parse_spec(spec, field=field)  # a missing key is an error before any work
        self.label = self.config.label
        self.stage, self.language, self.costs = stage, language, costs
        self.client = (_AnthropicTools if self.config.provider == "anthropic" else _OpenAITools)(self.config)
        self.requests = 0
        self._lock = threading.Lock()

    def turn(self, messages: list[dict], tools: list[dict] | None) -> ToolTurn:
        reply, tokens_in, tokens_out = call_with_retries(
            lambda: self.client.turn(messages, tools), self.config, what=self.stage
        )
        with self._lock:
            self.requests += 1
        # some compatible servers omit usage: estimated (only what is missing), and marked as such
        estimated = not tokens_in or not tokens_out
        tokens_in = tokens_in or estimate_tokens(json.dumps(messages, ensure_ascii=False))
        tokens_out = tokens_out or estimate_tokens(
            (reply.content or "") + json.dumps(reply.tool_calls, ensure_ascii=False)
        )
        self.costs.record(
            stage=self.stage,
            language=self.language,
            provider=self.config.provider,
            model=self.config.model,
            input_tokens=tokens_in,
            output_tokens=tokens_out,
            estimated=estimated,
            prices=(self.config.price_in, self.config.price_out),
        )
        return reply
