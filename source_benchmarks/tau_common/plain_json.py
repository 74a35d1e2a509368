"""A variant's tool results keep non-ASCII as text, where the stock harness would escape it.

tau2 escapes twice: `Environment.to_json_str` dumps a tool's return value with json's default
ensure_ascii, and some tools return a string they dumped themselves (τ² retail's
`list_all_product_types`, banking_knowledge's 9 sites). Either way a translated value would reach the
agent as \\uXXXX runs while the source reads as plain English. The family turns this on for variants
only, so the source stays byte-for-byte the stock harness.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable
from types import ModuleType
from typing import Any

_PLAIN_LOCK = threading.RLock()


def plain_json_str(escaped: Callable[[Any], str]) -> Callable[[Any], str]:
    """tau2's `to_json_str` with non-ASCII kept as text: the same JSON (keys, order, separators,
    numbers) re-dumped with ensure_ascii=False; strings pass through untouched, as tau2 does."""

    def to_json_str(resp: Any) -> str:
        text = escaped(resp)
        if isinstance(resp, str) or text.isascii() and "\\u" not in text:
            return text
        return json.dumps(json.loads(text), ensure_ascii=False)

    return to_json_str


class _PlainJson:
    """The `json` module as a tools module sees it while a variant's tool runs: `dumps` keeps
    non-ASCII as text unless the call says otherwise; everything else is json's own."""

    def __getattr__(self, name: str) -> Any:
        return getattr(json, name)

    @staticmethod
    def dumps(obj: Any, **kwargs: Any) -> str:
        kwargs.setdefault("ensure_ascii", False)
        return json.dumps(obj, **kwargs)


PLAIN_JSON = _PlainJson()


def dumping_modules(modules: Iterable[ModuleType]) -> list[ModuleType]:
    """The tools modules that call json themselves (module global `json` is json)."""
    return [m for m in modules if getattr(m, "json", None) is json]


def plain_tool_calls(make_tool_call: Callable[..., Any], tools_modules: list[ModuleType]) -> Callable[..., Any]:
    """`Environment.make_tool_call` with the tools modules' `json` swapped for PLAIN_JSON during the
    call only: the source, which runs in the same worker, keeps tau2's own escaping."""
    if not tools_modules:
        return make_tool_call

    def call(*args: Any, **kwargs: Any) -> Any:
        with _PLAIN_LOCK:
            saved = [module.json for module in tools_modules]
            for module in tools_modules:
                module.json = PLAIN_JSON  # type: ignore[attr-defined]
            try:
                return make_tool_call(*args, **kwargs)
            finally:
                for module, own in zip(tools_modules, saved, strict=True):
                    module.json = own  # type: ignore[attr-defined]

    return call
