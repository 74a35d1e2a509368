"""Apply a variant's code overlay to AgentDojo's task classes and tools at run time.

Task prompts, goals and the literals inside `utility()` / `security()` / `ground_truth()` live in
Python. The variant never forks that code: each task class gets a per-variant subclass whose text
attributes are the translations and whose methods are the originals rebuilt with translated string
constants (`CodeType.replace(co_consts=...)`) and module globals where translated module
constants replace the English ones. Tools are rebuilt by AgentDojo's own `make_function` from the
original function carrying its translated docstring, so schemas come from the same parser.
"""

from __future__ import annotations

import inspect
import re
import sys
import types
from collections import defaultdict
from typing import Any

from babelflow.text import WORD
from babelflow.variant import CodeOverlay
from source_benchmarks.agentdojo.combinations import combinator, combined_parts
from source_benchmarks.agentdojo.files import module_path
from source_benchmarks.agentdojo.loader import load_module

TEXT_ROLES = ("prompt",)  # the overlay role of the class attributes holding text
TEXT_ATTRIBUTES = ("PROMPT", "GOAL", "GROUND_TRUTH_OUTPUT", "COMMENT")  # a task's text attributes


def _swap(value: Any, table: dict[str, str]) -> Any:
    if isinstance(value, str):
        return table.get(value, value)
    if isinstance(value, types.CodeType):
        return swap_constants(value, table)
    if isinstance(value, tuple):
        swapped = tuple(_swap(v, table) for v in value)
        return value if swapped == value else swapped
    if isinstance(value, frozenset):
        swapped_set = frozenset(_swap(v, table) for v in value)
        return value if swapped_set == value else swapped_set
    return value


def swap_constants(code: types.CodeType, table: dict[str, str]) -> types.CodeType:
    """`code` with its string constants (and those of nested lambdas/comprehensions) translated."""
    if not table:
        return code
    consts = tuple(_swap(c, table) for c in code.co_consts)
    return (
        code
        if consts == code.co_consts and all(a is b for a, b in zip(consts, code.co_consts))
        else code.replace(co_consts=consts)
    )


def _rebuild(
    fn: types.FunctionType, table: dict[str, str], namespace: dict[str, Any], closure: tuple | None = None
) -> types.FunctionType:
    new = types.FunctionType(
        swap_constants(fn.__code__, table),
        namespace,
        fn.__name__,
        fn.__defaults__,
        closure if closure is not None else fn.__closure__,
    )
    new.__kwdefaults__ = fn.__kwdefaults__
    new.__qualname__ = fn.__qualname__
    new.__doc__ = fn.__doc__
    new.__annotations__ = dict(fn.__annotations__)
    new.__dict__.update(fn.__dict__)
    return new


class ModuleTexts:
    """The overlay's texts of one module: per qualname, source text -> translation."""

    def __init__(self) -> None:
        self.constants: dict[str, dict[str, str]] = defaultdict(dict)  # qualname (function or NAME) -> table
        self.attributes: dict[str, str] = {}  # "Class.ATTR" -> translated value
        self.docstrings: dict[str, list[tuple[int, str, str]]] = defaultdict(
            list
        )  # function -> (line piece, source, target)


def texts_by_module(overlay: CodeOverlay | None) -> dict[str, ModuleTexts]:
    modules: dict[str, ModuleTexts] = defaultdict(ModuleTexts)
    for text in overlay.texts if overlay else []:
        entry = modules[text.module]
        if text.role in TEXT_ROLES:
            entry.attributes[text.qualname] = text.target
        elif text.role == "docstring":
            entry.docstrings[text.qualname].append((text.occurrence, text.source, text.target))
        else:
            entry.constants[text.qualname][text.source] = text.target
    return modules


class TranslatedModule:
    """A translated view of one task module: its globals and rebuilt functions, built once."""

    def __init__(self, module: Any, texts: ModuleTexts):
        self.module, self.texts = module, texts
        self.namespace: dict[str, Any] = dict(vars(module))
        for name, value in list(self.namespace.items()):
            if isinstance(value, str) and name in texts.constants and value in texts.constants[name]:
                self.namespace[name] = texts.constants[name][value]
        for name, value in list(self.namespace.items()):
            if isinstance(value, types.FunctionType) and value.__module__ == module.__name__:
                self.namespace[name] = _rebuild(value, texts.constants.get(name, {}), self.namespace)

    def task_class(self, cls: type) -> type:
        body: dict[str, Any] = {"__module__": cls.__module__, "__doc__": cls.__doc__}
        for klass in reversed([k for k in cls.__mro__ if k.__module__ == self.module.__name__]):
            for name, value in vars(klass).items():
                qual = f"{cls.__name__}.{name}"
                if isinstance(value, staticmethod) and isinstance(value.__func__, types.FunctionType):
                    body[name] = staticmethod(
                        _rebuild(value.__func__, self.texts.constants.get(qual, {}), self.namespace)
                    )
                elif isinstance(value, types.FunctionType):
                    body[name] = _rebuild(value, self.texts.constants.get(qual, {}), self.namespace)
                elif isinstance(value, str) and value in self.texts.constants.get(qual, {}):
                    body[name] = self.texts.constants[qual][value]  # a class constant (_TARGET) checks compare
        for qual, target in self.texts.attributes.items():
            owner, _, attr = qual.partition(".")
            if owner == cls.__name__:
                body[attr] = target
        return type(cls.__name__, (cls,), body)


class _Translator:
    def __init__(self, overlay: CodeOverlay | None):
        self.by_module = texts_by_module(overlay)
        self.views: dict[str, TranslatedModule] = {}
        self.done: dict[int, Any] = {}

    def view(self, module_name: str) -> TranslatedModule:
        path = module_path(module_name)
        if path not in self.views:
            self.views[path] = TranslatedModule(sys.modules[module_name], self.by_module.get(path, ModuleTexts()))
        return self.views[path]

    def task(self, task: Any) -> Any:
        if id(task) in self.done:
            return self.done[id(task)]
        cls = type(task)
        parts = combined_parts(cls)
        if parts:  # a combined task: AgentDojo's own combinator combines the translated parts
            texts = {
                q.partition(".")[2]: t
                for q, t in self.view(type(parts[0]).__module__).texts.attributes.items()
                if q.partition(".")[0] == cls.__name__
            }
            new_cls = combinator()._create_combined_task(
                cls.__name__, self.task(parts[0]), self.task(parts[1]), texts.get("PROMPT")
            )
            new_cls.ID = (
                cls.ID
            )  # the suite set it on the registered class; the combinator's new class inherits the first part's
            if "GROUND_TRUTH_OUTPUT" in texts:
                new_cls.GROUND_TRUTH_OUTPUT = texts["GROUND_TRUTH_OUTPUT"]
        else:
            new_cls = self.view(cls.__module__).task_class(cls)
        new = new_cls()
        new.__dict__.update(task.__dict__)
        self.done[id(task)] = new
        return new


def translate_tasks(tasks: dict[str, Any], overlay: CodeOverlay | None) -> dict[str, Any]:
    """task id -> an instance of the task's per-variant subclass (the instance's state copied)."""
    translator = _Translator(overlay)
    return {task_id: translator.task(task) for task_id, task in tasks.items()}


_FIELD = re.compile(
    r"^(\s*(?::(?:param|type|return|returns|raise|raises|rtype)\b[^:]*:)?\s*)(.*?)(\s*)$"
)  # matches every line


def _line_parts(line: str) -> tuple[str, str, str]:
    """(reST field name and indent, text, trailing space) of one docstring line."""
    match = _FIELD.match(line)
    assert match is not None  # every part of the pattern is optional
    return match.group(1), match.group(2), match.group(3)


def docstring_pieces(doc: str) -> list[str]:
    """The translatable text of each docstring line, without reST field names (`:param x:`):
    AgentDojo's `make_function` builds the tool schema from them."""
    return [text for _, text, _ in map(_line_parts, doc.split("\n")) if WORD.search(text)]


def translated_docstring(doc: str, pieces: list[tuple[int, str, str]]) -> str:
    """Each line's text replaced by its translation; reST field names and layout untouched."""
    by_source = {source: target for _, source, target in pieces}
    out = []
    for line in doc.split("\n"):
        head, text, tail = _line_parts(line)
        out.append(head + by_source.get(text, text) + tail)
    return "\n".join(out)


def translate_tools(tools: list[Any], overlay: CodeOverlay | None) -> list[Any]:
    """Tools whose docstrings or messages the overlay translates, rebuilt by AgentDojo's `make_function`
    from the original function carrying its translated docstring and translated string constants."""
    make_function = load_module("agentdojo.functions_runtime").make_function
    by_module = texts_by_module(overlay)
    out = []
    for tool in tools:
        module = inspect.getmodule(tool.run)
        texts = by_module.get(module_path(module.__name__), ModuleTexts()) if module else ModuleTexts()
        pieces, messages = texts.docstrings.get(tool.run.__name__), texts.constants.get(tool.run.__name__, {})
        if not pieces and not messages:
            out.append(tool)
            continue
        run = _rebuild(tool.run, messages, tool.run.__globals__)
        run.__doc__ = translated_docstring(tool.run.__doc__ or "", pieces or [])
        out.append(make_function(run))
    return out
