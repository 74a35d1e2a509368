"""Apply a variant's code overlay to live tau2 toolkits, without forking or mutating tau2's code.

Each toolkit instance gets a per-variant subclass whose tool methods are thin wrappers carrying the
translated docstrings (tau2 builds the schemas from them with its own parser), whose schemas have
the translated `Field` descriptions, and whose tool results and error messages pass through the
variant's message catalog. The source environment in the same process is untouched.
"""

from __future__ import annotations

import functools
import inspect
from typing import Any

from babelflow.variant import CodeOverlay
from source_benchmarks.message_catalog import MessageCatalog, TextCatalog


def _rewrite_descriptions(node: Any, mapping: dict[str, str]) -> Any:
    if isinstance(node, dict):
        out = {}
        for key, value in node.items():
            if key == "description" and isinstance(value, str):
                out[key] = mapping.get(value, value)
            else:
                out[key] = _rewrite_descriptions(value, mapping)
        return out
    if isinstance(node, list):
        return [_rewrite_descriptions(item, mapping) for item in node]
    return node


def _localized_tool_class(mapping: dict[str, str]) -> type:
    from tau2.environment.tool import Tool

    class LocalizedTool(Tool):
        @property
        def openai_schema(self) -> dict:
            return _rewrite_descriptions(Tool.openai_schema.fget(self), mapping)

    return LocalizedTool


def _bare_instance(toolkit_class: Any) -> Any:
    """An instance without __init__ (no DB), only to read the tools its class declares (`_func_tools`
    is a property of tau2's toolkit metaclass); Any because toolkit classes are tau2's, which has no types."""
    return toolkit_class.__new__(toolkit_class)


def _localized_class(base: type[Any], namespace: dict[str, Any], catalog: TextCatalog, tool_class: type) -> type:
    """`base` plus `namespace`, with tool results, error messages and tool schemas localized.

    A module-level function, not a method: mypy resolves `super()` in a function nested in a method
    against the method's class, not the class built here."""

    def use_tool(self, tool_name: str, **kwargs):
        try:
            result = super(localized, self).use_tool(tool_name, **kwargs)
        except Exception as exc:  # same exception object, translated message: control flow unchanged
            if exc.args and isinstance(exc.args[0], str):
                exc.args = (catalog.translate(exc.args[0]),) + exc.args[1:]
            raise
        if isinstance(result, str):
            return catalog.translate(result)
        if isinstance(result, dict):  # e.g. {"message": "Line resumed successfully", "line": Line(...)}
            return {key: catalog.translate(value) if isinstance(value, str) else value for key, value in result.items()}
        return result

    def get_tools(self, *args, **kwargs):  # τ³'s toolkits take include=[names]
        tools = super(localized, self).get_tools(*args, **kwargs)
        for tool in tools.values():
            object.__setattr__(tool, "__class__", tool_class)
        return tools

    namespace["use_tool"] = use_tool
    namespace["get_tools"] = get_tools
    localized: type[Any] = type(base.__name__, (base,), namespace)
    return localized


class ToolkitLocalizer:
    """Builds (once per toolkit class) the localized subclass and swaps an instance's class to it."""

    def __init__(self, overlay: CodeOverlay, module: str):
        self.overlay = overlay
        self.module = module
        self.catalog: TextCatalog = MessageCatalog.of_overlay(overlay)
        mapping: dict[str, str] = {}
        for text in overlay.texts:
            if text.role in ("field_description", "docstring"):
                mapping[text.source] = text.target
                mapping[inspect.cleandoc(text.source)] = inspect.cleandoc(text.target)
        self.tool_class = _localized_tool_class(mapping)
        self._classes: dict[type, type] = {}

    def _subclass(self, base: type[Any]) -> type:
        if base in self._classes:
            return self._classes[base]
        docs = {
            q.split(".", 1)[1]: t
            for (m, q), t in self.overlay.docstrings().items()
            if m == self.module and q.startswith(base.__name__ + ".")
        }
        catalog, tool_class = self.catalog, self.tool_class
        namespace: dict[str, Any] = {"__module__": base.__module__}
        probe = _bare_instance(base)
        for name in probe._func_tools:
            if name in docs:
                original = getattr(base, name)

                @functools.wraps(original)
                def wrapper(self, *args, __original=original, **kwargs):
                    return __original(self, *args, **kwargs)

                wrapper.__doc__ = docs[name]
                namespace[name] = wrapper
        localized = _localized_class(base, namespace, catalog, tool_class)
        self._classes[base] = localized
        return localized

    def apply(self, toolkit: Any) -> Any:
        if toolkit is not None:
            toolkit.__class__ = self._subclass(type(toolkit))
        return toolkit
