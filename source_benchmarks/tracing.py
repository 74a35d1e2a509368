"""Location-tagged strings: see where each text field goes while tau2's own code runs.

Every string leaf (and data key) of a task or DB is replaced, after tau2's models validated it,
by a `Traced` str that remembers its file and path. tau2 code then runs unchanged; what happens to
a traced value is observed, not inferred from its spelling:
- comparisons (`==`, dict lookups, `in`) call `Traced.__eq__`/`__contains__`, which note the
  location(s) and the phase they ran in (a tool, set_state, the action/communicate evaluator, an
  env assertion);
- case/whitespace helpers return `Traced`, so `info.lower() in content.lower()` stays observable;
- f-string formatting is seen (`__format__`): a tool that answers with text (τ³ banking's
  "   user_id: u_123" lines) shows the agent the values it formatted into that text.

Pydantic re-validation strips the subclass (it builds plain `str`), so tagging is done on the
validated objects in place (`tag_tree`), and lost tags are simply no observation (never a wrong one).
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, SupportsIndex

from pydantic import BaseModel

from babelflow.ir import LinkKind

# (artifact, path, is_key): the same address the IR's data locators use.
Location = tuple[str, tuple, bool]


class Kind:
    """Closed set of observations (values of the IR's LinkKind)."""

    TOOL_ARGUMENT = LinkKind.TOOL_ARGUMENT.value
    ARGUMENT_NAME = LinkKind.ARGUMENT_NAME.value
    TOOL_OUTPUT = LinkKind.TOOL_OUTPUT.value
    DB_WRITE = LinkKind.DB_WRITE.value
    COMPARED_IN_CODE = LinkKind.COMPARED_IN_CODE.value
    COMPARED_BY_EVALUATOR = LinkKind.COMPARED_BY_EVALUATOR.value
    READ_BY_SET_STATE = LinkKind.READ_BY_HARNESS.value


@dataclass
class TraceRecorder:
    """Observations by location: first detail per kind (bounded), plus the current phase."""

    phase: str | None = None
    evaluator: bool = False
    task_id: str | None = None
    observations: dict[Location, dict[str, str]] = field(default_factory=dict)
    # values formatted into text (f-strings) while a tool runs: the tool's text result is then searched for them
    formatted: list[Traced] | None = None
    # when set, a comparison is noted only if one side's location passes it (τ³'s golden prompt: titles
    # compared with each other while τ³ indexes them are no comparison with the task's references)
    only_with: Callable[[Location], bool] | None = None

    def note(self, loc: Location | None, kind: str, detail: str) -> None:
        if loc is None:
            return
        kinds = self.observations.get(loc)
        if kinds is None:
            kinds = self.observations[loc] = {}
        if kind not in kinds:
            kinds[kind] = f"{detail} (task {self.task_id})" if self.task_id else detail

    def compared(self, *values: Any) -> None:
        if self.phase is None:
            return
        kind = Kind.COMPARED_BY_EVALUATOR if self.evaluator else Kind.COMPARED_IN_CODE
        if self.only_with is not None:
            locations = [getattr(value, "loc", None) for value in values]
            if not any(loc is not None and self.only_with(loc) for loc in locations):
                return
        for value in values:
            loc = getattr(value, "loc", None)
            if loc is not None:
                self.note(loc, kind, self.phase)


RECORDER = TraceRecorder()
TRACE_LOCK = threading.Lock()


class Traced(str):
    """A str that knows where it came from. Equality and hashing are str's own."""

    loc: Location | None

    def __new__(cls, value: str, loc: Location | None) -> Traced:
        obj = str.__new__(cls, value)
        obj.loc = loc
        return obj

    __hash__ = str.__hash__

    def __eq__(self, other: object) -> bool:
        result = str.__eq__(self, other)
        if result is not NotImplemented and RECORDER.phase is not None:
            RECORDER.compared(self, other)
        return result

    def __ne__(self, other: object) -> bool:
        result = self.__eq__(other)
        return result if result is NotImplemented else not result

    def __contains__(self, item: object) -> bool:
        if RECORDER.phase is not None:
            RECORDER.compared(self, item)
        if not isinstance(item, str):  # str's own error, raised by str.__contains__ too
            raise TypeError(f"'in <string>' requires string as left operand, not {type(item).__name__}")
        return str.__contains__(self, item)

    def __format__(self, spec: str) -> str:
        # f"{value}" calls this for a str subclass (not for a plain str): seen while a tool builds its text
        if RECORDER.formatted is not None:
            RECORDER.formatted.append(self)
        return str.__format__(self, spec)

    def __reduce__(self):  # deepcopy/pickle keep the tag (tau2 deep-copies messages)
        return (Traced, (str(self), self.loc))

    # The helpers code applies before comparing keep the tag.
    def lower(self) -> Traced:
        return Traced(str.lower(self), self.loc)

    def upper(self) -> Traced:
        return Traced(str.upper(self), self.loc)

    def casefold(self) -> Traced:
        return Traced(str.casefold(self), self.loc)

    def strip(self, chars: str | None = None) -> Traced:
        return Traced(str.strip(self, chars), self.loc)

    def replace(self, old: str, new: str, count: SupportsIndex = -1) -> Traced:
        return Traced(str.replace(self, old, new, count), self.loc)


def copy_traced(value: Any) -> Any:
    """Equal values with the same tags but new identities (so `a == b` is really evaluated)."""
    if isinstance(value, Traced):
        return Traced(str(value), value.loc)
    if isinstance(value, dict):
        return {copy_traced(k): copy_traced(v) for k, v in value.items()}
    if isinstance(value, list):
        return [copy_traced(v) for v in value]
    return value


@functools.cache  # one entry per model class: bounded by the benchmark's code
def _fields(model: type[BaseModel]) -> list[tuple[str, str]]:
    return [(name, info.alias or name) for name, info in model.model_fields.items()]


def tag_tree(node: Any, artifact: str, path: tuple = ()) -> Any:
    """Replace, in place, every str leaf and dict key under `node` by a Traced; returns the node.

    Iterative (DBs hold ~10^6 strings); a str Enum member is left alone (its identity is its meaning)."""
    new = str.__new__
    if type(node) in (str, Traced):
        return Traced(str(node), (artifact, path, False))
    stack: list[tuple[Any, tuple]] = [(node, path)]

    def tagged(value: Any, where: tuple) -> Any:
        """A string leaf as a located Traced; a container is queued and returned as it is."""
        kind = type(value)
        if kind is str or kind is Traced:
            leaf = new(Traced, value)
            leaf.loc = (artifact, where, False)
            return leaf
        if kind is dict or kind is list or isinstance(value, BaseModel):
            stack.append((value, where))
        return value

    while stack:
        item, where = stack.pop()
        if isinstance(item, BaseModel):
            values = item.__dict__
            for name, key in _fields(type(item)):
                if name in values:
                    values[name] = tagged(values[name], where + (key,))
        elif type(item) is dict:
            entries = list(item.items())
            item.clear()
            for key, value in entries:
                child = where + (key if type(key) not in (str, Traced) else str(key),)
                if type(key) is str or type(key) is Traced:
                    key = new(Traced, str(key))
                    key.loc = (artifact, child, True)
                item[key] = tagged(value, child)
        elif type(item) is list:
            for index, value in enumerate(item):
                item[index] = tagged(value, where + (index,))
    return node


def traced_leaves(node: Any, depth: int = 0) -> Iterator[Traced]:
    """Traced strings reachable from a tool's result or arguments (models, dicts, lists)."""
    if depth > 40:
        return
    if isinstance(node, Traced):
        yield node
    elif isinstance(node, BaseModel):
        for value in node.__dict__.values():
            yield from traced_leaves(value, depth + 1)
    elif isinstance(node, dict):
        for key, value in node.items():
            if isinstance(key, Traced):
                yield key
            yield from traced_leaves(value, depth + 1)
    elif isinstance(node, (list, tuple)):
        for value in node:
            yield from traced_leaves(value, depth + 1)


def leaf_values(node: Any, path: tuple = ()) -> dict[tuple, Any]:
    """Flat {path: scalar} of a DB model, to diff the DB around one call."""
    out: dict[tuple, Any] = {}
    stack: list[tuple[Any, tuple]] = [(node, path)]
    while stack:
        item, where = stack.pop()
        if isinstance(item, BaseModel):
            stack.extend((v, where + (k,)) for k, v in item.__dict__.items())
        elif isinstance(item, dict):
            stack.extend((v, where + (str(k) if isinstance(k, str) else k,)) for k, v in item.items())
        elif isinstance(item, list):
            stack.extend((v, where + (i,)) for i, v in enumerate(item))
        else:
            out[where] = item
    return out


def string_leaves(node: Any, depth: int = 0) -> Iterator[str]:
    """Every string in a tool's result (models, dicts, lists), tagged or not."""
    if depth > 40:
        return
    if isinstance(node, str):
        yield str(node)
    elif isinstance(node, BaseModel):
        for value in node.__dict__.values():
            yield from string_leaves(value, depth + 1)
    elif isinstance(node, dict):
        for value in node.values():
            yield from string_leaves(value, depth + 1)
    elif isinstance(node, (list, tuple)):
        for value in node:
            yield from string_leaves(value, depth + 1)


@contextmanager
def phase(name: str | None, evaluator: bool = False) -> Iterator[None]:
    saved = RECORDER.phase, RECORDER.evaluator
    RECORDER.phase, RECORDER.evaluator = name, evaluator
    try:
        yield
    finally:
        RECORDER.phase, RECORDER.evaluator = saved


def note_arguments(kwargs: dict, what: str) -> None:
    for name, value in kwargs.items():
        if isinstance(name, Traced):
            RECORDER.note(name.loc, Kind.ARGUMENT_NAME, f"argument name of {what}")
        for leaf in traced_leaves(value):
            RECORDER.note(leaf.loc, Kind.TOOL_ARGUMENT, f"{what}({name})")


def note_formatted(formatted: list[Traced], text: str, what: str) -> None:
    """Traced values the tool formatted into the text it answered with: shown to the agent (or user)."""
    with phase(None):  # our own search is no observation
        seen: set[Location] = set()
        for value in formatted:
            if value.loc is not None and value.loc not in seen and str.__len__(value) and str(value) in text:
                seen.add(value.loc)
                RECORDER.note(value.loc, Kind.TOOL_OUTPUT, f"{what} (formatted into the text it returned)")
