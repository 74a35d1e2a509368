"""Tokens counted the way a model counts them, offline.

The DashScope SDK ships Qwen's BPE vocabulary (``dashscope/resources/qwen.tiktoken``) and reads it
with OpenAI's ``tiktoken``; no other provider's vocabulary is available without a network. Qwen
models are counted exactly; other models are counted with the same vocabulary as a proxy (a
modern 150k-200k vocabulary: close on English, unmeasured here on other scripts), and without
``tiktoken`` a text falls back to characters / 4 (``costs.estimate_tokens``).
"""

from __future__ import annotations

import threading
from functools import lru_cache
from typing import Any

from babelflow.llm.costs import estimate_tokens

_lock = threading.Lock()


@lru_cache(maxsize=1)
def _qwen_bpe() -> Any | None:
    try:
        from dashscope.tokenizers.tokenizer import get_tokenizer  # noqa: PLC0415 - 0.25 s, only when counting

        return get_tokenizer("qwen-plus")
    except (ImportError, OSError, ValueError):  # no tiktoken, or an SDK without the vocabulary file
        return None


def count_tokens(text: str) -> int:
    """Tokens of ``text`` under Qwen's BPE (characters / 4 when the vocabulary is not installed)."""
    with _lock:  # the vocabulary loads once; encoding itself is thread-safe
        bpe = _qwen_bpe()
    if bpe is None:
        return estimate_tokens(text)
    return len(bpe.encode(text))
