"""Agent and user-simulator models for `babelflow evaluate`: tool-calling turns from the one model
layer (``babelflow.llm.tools``: same spec grammar, keys, shared per-provider limits, retries and
token ledger as translators and validators), returned as tau2's ``ChatReply``."""

from __future__ import annotations

from babelflow.llm.costs import CostLedger
from babelflow.llm.tools import ToolChatModel
from source_benchmarks.protocol import ChatReply


class ProviderChatModel:
    """A `ChatModel` for tau2's agent or user simulator; usage goes to the ledger as `stage`."""

    def __init__(self, spec: str, *, field: str, stage: str, language: str, costs: CostLedger):
        self.model = ToolChatModel(spec, field=field, stage=stage, language=language, costs=costs)
        self.config, self.label = self.model.config, self.model.label

    @property
    def requests(self) -> int:
        return self.model.requests

    def chat(self, messages: list[dict], tools: list[dict] | None) -> ChatReply:
        turn = self.model.turn(messages, tools)
        return ChatReply(turn.content, turn.tool_calls)
