"""A simulated chat client: an offline stand-in for a provider behind ``ModelCaller``, so a stage
built on the model layer (a validator agent's reviewer, a translator) runs end to end and its
token ledger fills the way a real provider's would, without a network.

Its answers come from ``respond`` (the request's JSON in, the reply's JSON out); its usage is
what a provider would bill for the same exchange, estimated as characters / 4 (the convention
of ``costs.estimate_tokens`` and of ``translators/simulated_model.py``), and reported as the
provider's own usage, not marked estimated: the point is to measure what the workflow sends.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from typing import Any

from babelflow.llm.clients import Completion
from babelflow.llm.config import ProviderConfig
from babelflow.llm.costs import estimate_tokens


def simulated_config(model: str = "simulated") -> ProviderConfig:
    """A configuration that needs no key and names no endpoint (nothing is ever sent)."""
    return ProviderConfig(
        provider="openai-compatible", model=model, key=None, base_url="http://127.0.0.1:9/simulated", max_retries=0
    )


class SimulatedChatClient:
    """A ``ChatClient``: ``respond(request JSON) -> reply JSON`` answers every exchange."""

    def __init__(self, respond: Callable[[Any], Any]):
        self.respond = respond
        self.exchanges = 0
        self._lock = threading.Lock()

    def complete(self, system: str, user: str, schema_name: str, schema: dict, strict: bool) -> Completion:
        reply = json.dumps(self.respond(json.loads(user)), ensure_ascii=False)
        with self._lock:
            self.exchanges += 1
        return Completion(reply, None, False, estimate_tokens(system + user), estimate_tokens(reply))
