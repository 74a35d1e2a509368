"""YAML data files (AgentDojo's environments and injection vectors) read and written with ruamel.yaml's round trip.

Round trip keeps key order, comments, block/literal scalar styles and quoting, so a variant's
`environment.yaml` diffs line by line against the source. `!include` values stay tagged scalars.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError
from ruamel.yaml.util import load_yaml_guess_indent

from babelflow.atomic_io import write_text_atomic
from babelflow.errors import BabelflowError
from source_benchmarks.formats import read_text

_STYLE: dict[int, tuple[int, int]] = {}  # id(document) -> (indent, sequence offset) it was read with


def _yaml() -> YAML:
    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    yaml.width = 4096  # never re-wrap a long line: translations are longer than their sources
    yaml.allow_unicode = True
    return yaml


def load_yaml(path: Path) -> Any:
    text = read_text(path)
    try:
        _, indent, offset = load_yaml_guess_indent(text)
        yaml = _yaml()
        yaml.indent(mapping=2, sequence=indent or 2, offset=offset or 0)
        document = yaml.load(text)
        _STYLE[id(document)] = (indent or 2, offset or 0)
        return document
    except YAMLError as exc:
        raise BabelflowError(
            f"Malformed YAML: {str(exc).splitlines()[0]}", file=path, fix="repair the YAML at the line shown"
        ) from exc


def dump_yaml(path: Path, document: Any) -> None:
    """Write with the indentation the file was read with."""
    stream = io.StringIO()
    yaml = _yaml()
    indent, offset = _STYLE.get(id(document), (2, 0))
    yaml.indent(mapping=2, sequence=indent, offset=offset)
    yaml.dump(document, stream)
    write_text_atomic(path, stream.getvalue())


def styled(original: Any, target: str) -> Any:
    """`target` in the scalar style of `original` (literal block, folded, quoted or plain)."""
    kind = type(original)
    if kind is str or not isinstance(original, str):
        return target
    try:
        return kind(target)
    except TypeError:
        return target


def set_at(document: Any, path: tuple, value: str) -> None:
    parent = document
    for segment in path[:-1]:
        parent = parent[segment]
    parent[path[-1]] = styled(parent[path[-1]], value)


def string_leaves(document: Any, path: tuple = ()) -> list[tuple[tuple, str]]:
    """(path, value) of every string scalar (tagged `!include` scalars are not strings)."""
    out: list[tuple[tuple, str]] = []
    stack = [(document, path)]
    while stack:
        node, where = stack.pop()
        if isinstance(node, str):
            out.append((where, str(node)))
        elif isinstance(node, dict):
            stack.extend((v, where + (k,)) for k, v in reversed(list(node.items())))
        elif isinstance(node, list):
            stack.extend((v, where + (i,)) for i, v in reversed(list(enumerate(node))))
    return out
