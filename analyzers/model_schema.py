"""What a benchmark's pydantic models say about its data: which dicts are maps, which values are literals.

A `dict[str, X]` field is a map: its keys are data (record ids, option names), not schema keys.
`Literal[...]` and `Enum` annotations give the closed value sets the code validates against.
Paths are "generalized": `[*]` stands for any list index and `*` for any map key.
"""

from __future__ import annotations

import types
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel

GeneralPath = tuple[str, ...]
LIST_ITEM = "[*]"
MAP_KEY = "*"


@dataclass
class ModelSchemaFacts:
    map_paths: set[GeneralPath] = field(default_factory=set)
    open_map_paths: set[GeneralPath] = field(default_factory=set)  # dict[str, Any]: keys are names (tool arguments)
    literal_values: dict[GeneralPath, frozenset[str]] = field(default_factory=dict)
    model_paths: set[GeneralPath] = field(default_factory=set)  # objects a model describes: their keys are fields


def _is_model(annotation: Any) -> bool:
    return isinstance(annotation, type) and issubclass(annotation, BaseModel)


def _walk(annotation: Any, path: GeneralPath, facts: ModelSchemaFacts, stack: tuple[type, ...]) -> None:
    origin = get_origin(annotation)
    args = get_args(annotation)
    if origin is Annotated:
        _walk(args[0], path, facts, stack)
    elif origin in (Union, types.UnionType):
        for arm in args:
            _walk(arm, path, facts, stack)
    elif origin is Literal:
        values = frozenset(str(a) for a in args if isinstance(a, str))
        facts.literal_values[path] = facts.literal_values.get(path, frozenset()) | values
    elif isinstance(annotation, type) and issubclass(annotation, Enum):
        values = frozenset(str(m.value) for m in annotation if isinstance(m.value, str))
        facts.literal_values[path] = facts.literal_values.get(path, frozenset()) | values
    elif origin in (list, set, tuple, frozenset) or (
        origin is not None and isinstance(origin, type) and issubclass(origin, Sequence) and origin is not str
    ):
        for arm in args:
            if arm is not Ellipsis:
                _walk(arm, path + (LIST_ITEM,), facts, stack)
    elif origin is dict or (origin is not None and isinstance(origin, type) and issubclass(origin, Mapping)):
        if len(args) == 2 and args[1] is Any:
            facts.open_map_paths.add(path)  # keep the key in the generalized path: it names the value
        else:
            facts.map_paths.add(path)
            if len(args) == 2:
                _walk(args[1], path + (MAP_KEY,), facts, stack)
    elif _is_model(annotation):
        facts.model_paths.add(path)
        if annotation in stack:
            return
        for name, info in annotation.model_fields.items():
            _walk(info.annotation, path + (info.alias or name,), facts, stack + (annotation,))
    elif annotation in (dict, dict):
        facts.open_map_paths.add(path)


def schema_facts(model: type[BaseModel], *, top_level_list: bool = False) -> ModelSchemaFacts:
    """Facts for a document that is one `model` (or, with top_level_list, a list of them)."""
    facts = ModelSchemaFacts()
    _walk(model, (LIST_ITEM,) if top_level_list else (), facts, ())
    return facts


def render_role(prefix: str, general: GeneralPath) -> str:
    text = prefix
    for segment in general:
        text += segment if segment == LIST_ITEM else f".{segment}"
    return text


def _unwrap(annotation: Any) -> Any:
    """Optional[X] -> X, Annotated[X, ...] -> X; a union of several types stays a union."""
    while True:
        origin = get_origin(annotation)
        if origin is Union or origin is types.UnionType:
            args = [a for a in get_args(annotation) if a is not type(None)]
            if len(args) != 1:
                return annotation
            annotation = args[0]
        elif origin is Annotated or hasattr(annotation, "__metadata__"):
            annotation = get_args(annotation)[0]
        else:
            return annotation


def annotation_at(model: Any, path: tuple) -> Any:
    """The annotation a leaf at `path` of a `model` document is validated against (None when the
    walk leaves the models: an unknown field, a union of several types)."""
    node = model
    for segment in path:
        node = _unwrap(node)
        if _is_model(node):
            info = node.model_fields.get(str(segment))
            if info is None:
                return None
            node = info.annotation
        elif get_origin(node) is dict:
            node = get_args(node)[1]
        elif get_origin(node) in (list, tuple, set):
            node = get_args(node)[0]
        else:
            return None
    return _unwrap(node)
