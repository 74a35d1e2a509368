"""`--estimate`: what a keyed run will send, counted before any call is made.

The run's own code builds every request (the translator's batches and glossary, each validator
agent's review batches, agent memory, translation memory), so the estimate follows the run rather
than a formula. Inside ``estimate_mode.estimating()`` each ``ModelCaller`` answers from ``EstimatingClient``
instead of the provider: nothing leaves the machine, no key is needed, no limiter paces.

What a model would answer is assumed, and said so in the report:
- a translation is a stand-in of the source's words, sized to the tokens the target language
  takes for the same text (``language_data.token_ratio``: measured on real translations where we
  have them, 1.3 where not), so the validators read texts of about the right length;
- a validator agent reads each batch once and raises nothing beyond the probes' findings;
- no retry, 429 or failed reply is counted, nor a review round after the first.
Tokens are counted with Qwen's BPE (``token_count``): exact for Qwen models, a proxy for others.
"""

from __future__ import annotations

import json
import re

from babelflow.language_data import language_data
from babelflow.llm.clients import Completion
from babelflow.llm.config import ProviderConfig
from babelflow.llm.token_count import count_tokens

MESSAGE_OVERHEAD = 4  # tokens a chat template adds around each of the two messages (role markers)
_PIECE = re.compile(r"⟦[0-9]+⟧|\s+|[^\s⟦]{1,12}")


def token_ratio(source_language: str, target_language: str) -> float:
    """Tokens the target takes for a text of the source, relative to the source's own tokens."""
    return language_data(target_language).token_ratio / language_data(source_language).token_ratio


def stand_in(text: str, ratio: float, keep: tuple[str, ...] = ()) -> str:
    """About ``ratio`` times the tokens of ``text``, every ``⟦N⟧`` placeholder and every ``keep`` string
    kept: the source's own words repeated after it (ratio > 1) or dropped from its end (ratio < 1)."""
    pieces = _PIECE.findall(text)
    droppable = [
        i
        for i, p in enumerate(pieces)
        if p.strip() and not p.startswith("⟦") and not any(k in p or p in k for k in keep)
    ]
    if not droppable or ratio == 1:
        return text
    want = max(1, round(count_tokens(text) * ratio))
    words = [pieces[i] for i in droppable]

    def grown(k: int) -> str:
        return text + "".join(f" {words[i % len(words)]}" for i in range(k))

    def shrunk(k: int) -> str:
        gone = set(droppable[len(droppable) - k :]) if k else set()
        return "".join(p for i, p in enumerate(pieces) if i not in gone).strip()

    make, limit = (grown, len(words) * 4) if ratio > 1 else (shrunk, len(droppable) - 1)
    low, high = 0, max(0, limit)  # the fewest words added (or dropped) that reach `want`: tokens are monotone
    while low < high:
        middle = (low + high) // 2
        tokens = count_tokens(make(middle))
        if (tokens >= want) if ratio > 1 else (tokens <= want):
            high = middle
        else:
            low = middle + 1
    return make(low)


def _review_reply(request: dict) -> dict:
    """A strict-schema reply that upholds the probes' findings and raises nothing else."""
    blank: dict[str, str | None] = {
        "element_id": None,
        "task_id": None,
        "finding_id": None,
        "layer": None,
        "finding_kind": None,
    }
    blank |= {"severity": "minor", "quote": None}
    actions = [
        blank | {"kind": "uphold", "finding_id": f.get("id"), "reasoning": "the evidence supports it"}
        for f in request.get("probe_findings", [])
    ]
    return {"actions": [*actions, blank | {"kind": "done", "reasoning": "batch read; nothing else to raise"}]}


def _translation_reply(request: dict) -> dict:
    """Stand-ins that render the glossary's terms as it asks, as a model does (the run's checks look)."""
    source = request.get("source_language") or "en"
    target = request.get("target_language") or "en"
    ratio = token_ratio(source, target)
    terms = sorted(request.get("glossary", []), key=lambda entry: -len(entry["source"]))
    pattern = re.compile("|".join(re.escape(t["source"]) for t in terms), re.IGNORECASE) if terms else None
    rendered = {t["source"].casefold(): t["target"] for t in terms}

    def text_of(segment: dict) -> str:
        text = segment["text"]
        if pattern:
            text = pattern.sub(lambda m: rendered.get(m.group().casefold(), m.group()), text)
        return stand_in(text, ratio, keep=tuple(rendered.values()))

    return {"translations": [{"id": s["id"], "text": text_of(s)} for s in request.get("segments", [])]}


class EstimatingClient:
    """A ``ChatClient`` that answers as the estimate assumes a model would, and counts both sides."""

    def __init__(self, config: ProviderConfig):
        self.config = config

    def complete(self, system: str, user: str, schema_name: str, schema: dict, strict: bool) -> Completion:
        request = json.loads(user)
        reply = _review_reply(request) if request.get("task") == "review" else _translation_reply(request)
        text = json.dumps(reply, ensure_ascii=False)
        prompt = count_tokens(system) + count_tokens(user) + count_tokens(json.dumps(schema))
        return Completion(text, None, False, prompt + 2 * MESSAGE_OVERHEAD, count_tokens(text))
