"""Every string leaf and data key of a JSON/TOML document, with its concrete and generalized path."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from analyzers.model_schema import LIST_ITEM, MAP_KEY, GeneralPath, ModelSchemaFacts

Path_ = tuple[str | int, ...]


@dataclass(frozen=True, slots=True)
class DataText:
    path: Path_
    general: GeneralPath
    value: str
    is_key: bool


def iter_data_texts(document: Any, facts: ModelSchemaFacts, keys_are_text: bool = False) -> Iterator[DataText]:
    """Walk the document once; keys of map-typed dicts are data keys, other keys are schema.

    `keys_are_text`: the keys of an object no model describes (below an untyped `dict`) are data keys
    too, named by themselves in the generalized path (VitaBench's `职业`/`occupation`)."""
    stack: list[tuple[Any, Path_, GeneralPath]] = [(document, (), ())]
    map_paths = facts.map_paths
    open_map_paths = facts.open_map_paths
    while stack:
        node, path, general = stack.pop()
        if isinstance(node, str):
            yield DataText(path, general, node, False)
        elif isinstance(node, dict):
            is_map = general in map_paths
            items = list(node.items())
            for key, value in reversed(items):
                child_general = general + ((MAP_KEY,) if is_map else (str(key),))
                stack.append((value, path + (key,), child_general))
            if is_map or general in open_map_paths:
                for key, _ in items:
                    yield DataText(path + (key,), general + (MAP_KEY,), str(key), True)
            elif keys_are_text and general not in facts.model_paths:
                for key, _ in items:
                    yield DataText(path + (key,), general + (str(key),), str(key), True)
        elif isinstance(node, list):
            for index in range(len(node) - 1, -1, -1):
                stack.append((node[index], path + (index,), general + (LIST_ITEM,)))
