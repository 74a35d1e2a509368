"""Perturb one text in tau2's (or a domain package's) running code, and put it back.

Three places a code text lives, each changed where the running code reads it:
- a module constant (`STOP = "###STOP###"`): the module attribute, and every module that bound the
  same object under the same name with `from ... import STOP`;
- a class constant (`LLMSoloAgent.STOP_TOKEN`): the class attribute;
- a literal inside a function (`f"task_{n + 1}"`): the function's code object, with its string
  constants (an f-string's literal parts) replaced — the function object stays the same one every
  class and registry already holds.
Only meant for a process of its own (code_trials.py): nothing else may run while code is patched.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import os
import re
import sys
import types
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

from babelflow.text import ACCENT_TABLE
from source_benchmarks.protocol import CodeLiteral


def perturbed(text: str) -> str:
    """A pseudo-translation that protects nothing: every ASCII letter accented (slots and tokens too);
    a text without letters (a separator such as " | ") is wrapped in marks instead."""
    accented = text.translate(ACCENT_TABLE)
    return accented if accented != text else f"¤{text}¤"


@functools.cache  # each literal asks again for ~1,000 loaded modules: each path resolved once (telecom: 30 -> 10 s)
def _resolved(origin: str | os.PathLike[str]) -> Path:
    return Path(origin).resolve()


def module_for(file: str) -> types.ModuleType:
    wanted = Path(file).resolve()
    for module in list(sys.modules.values()):
        origin = getattr(module, "__file__", None)
        if origin and _resolved(origin) == wanted:
            return module
    for root in sys.path:
        try:
            relative = wanted.relative_to(Path(root).resolve())
        except (ValueError, OSError):
            continue
        return importlib.import_module(".".join(relative.with_suffix("").parts))
    raise LookupError(f"no importable module for {file}")


def _owner(module: types.ModuleType, qualname: str) -> Any:
    owner: Any = module
    for part in qualname.split("."):
        owner = getattr(owner, part)
    return owner


_SLOT = re.compile(r"\{[^{}]*\}")  # a format slot or an f-string expression, as the scanner renders it


def literal_parts(text: str) -> set[str]:
    """The strings the compiler stores for a scanned literal: itself, or an f-string's literal parts;
    the scanner keeps source escapes (`\\n`), the code object holds what they mean."""
    parts = {part for part in _SLOT.split(text) if part} | {text}
    for part in list(parts):
        if "\\" in part:
            try:
                parts.add(part.encode("latin-1", "backslashreplace").decode("unicode_escape"))
            except UnicodeDecodeError:
                continue
    return parts


def _replace_const(const: object, mapping: dict[str, str]) -> object:
    if isinstance(const, types.CodeType):
        return const.replace(co_consts=tuple(_replace_const(c, mapping) for c in const.co_consts))
    if type(const) is str:
        return mapping.get(const, const)
    if type(const) is tuple:  # {"message": ..., "line": ...} stores its keys as one tuple constant
        return tuple(_replace_const(c, mapping) for c in const)
    if type(const) is frozenset:  # `x in {"a", "b"}`
        return frozenset(_replace_const(c, mapping) for c in const)
    return const


def _replace_consts(code: types.CodeType, mapping: dict[str, str]) -> types.CodeType:
    replaced = _replace_const(code, mapping)
    assert isinstance(replaced, types.CodeType)
    return replaced


@contextmanager
def _set(owner: Any, name: str, value: Any) -> Iterator[None]:
    had = name in vars(owner)
    saved = vars(owner).get(name)
    setattr(owner, name, value)
    try:
        yield
    finally:
        if had:
            setattr(owner, name, saved)
        else:
            delattr(owner, name)


@functools.cache  # every trial patches the same constants again: read each source once
def _imports_from(module: types.ModuleType, owner: types.ModuleType, name: str) -> bool:
    """`module` bound `name` with `from <owner> import name` (not an equal, interned string of its own)."""
    try:
        source = Path(module.__file__ or "").read_text(encoding="utf-8")
    except OSError:
        return False
    pattern = (
        rf"from\s+{re.escape(owner.__name__)}\s+import\s[^\n]*\b{re.escape(name)}\b"  # from m import a, name
        rf"|from\s+{re.escape(owner.__name__)}\s+import\s*\([^)]*\b{re.escape(name)}\b"  # from m import (a, name)
    )
    return re.search(pattern, source) is not None


def _locate(literal: CodeLiteral) -> tuple[types.ModuleType, Any] | None:
    """The module and the module/class/function holding the literal; None where the running code has
    no such name (a nested function, `<locals>`): that text is reported not found, never a crash."""
    try:
        module = module_for(literal.file)
        return module, module if literal.qualname == "<module>" else _owner(module, literal.qualname)
    except (AttributeError, LookupError, ImportError):
        return None


@contextmanager
def _one(literal: CodeLiteral) -> Iterator[bool]:
    """Perturb one literal; yields whether it was found where the scanner said."""
    located = _locate(literal)
    if located is None:
        yield False
        return
    module, owner = located
    with ExitStack() as stack:
        original = (
            vars(owner).get(literal.name) if literal.name and isinstance(owner, (types.ModuleType, type)) else None
        )
        # the module's value may be the literal `.strip()`ped, as tau2's prompt templates are
        if isinstance(original, str) and literal.name and original in (literal.text, literal.text.strip()):
            value = perturbed(original)
            stack.enter_context(_set(owner, literal.name, value))
            if isinstance(owner, types.ModuleType):  # `from module import NAME` bound the same object elsewhere
                for other in list(sys.modules.values()):
                    if (
                        other is not owner
                        and isinstance(other, types.ModuleType)
                        and vars(other).get(literal.name) is original
                        and _imports_from(other, owner, literal.name)
                    ):
                        stack.enter_context(_set(other, literal.name, value))
            yield True
            return
        function = getattr(owner, "__func__", owner)  # a classmethod or staticmethod: the function itself
        function = inspect.unwrap(function) if callable(function) else None
        code = getattr(function, "__code__", None)
        if code is None or not isinstance(code, types.CodeType):
            yield False
            return
        # the plain literal, or an f-string's literal parts (its slots are code, not text)
        patched = _replace_consts(code, {part: perturbed(part) for part in literal_parts(literal.text)})
        if patched == code:
            yield False
            return
        function.__code__ = patched  # type: ignore[union-attr]
        try:
            yield True
        finally:
            function.__code__ = code  # type: ignore[union-attr]


@contextmanager
def perturbation(literals: list[CodeLiteral]) -> Iterator[list[str]]:
    """Every literal perturbed at once; yields the keys not found in the running code."""
    missing: list[str] = []
    with ExitStack() as stack:
        for literal in literals:
            if not stack.enter_context(_one(literal)):
                missing.append(literal.key)
        yield missing
