"""What the benchmark's tool code is called and looks data up by, read from its source with `ast`.

The IR inventories the texts of code (docstrings, outputs, some compared constants); two couplings
with the data it does not hold:
- the tools' own names. Prose cites them for an agent to call or unlock (τ³ banking's documents
  name discoverable tools such as `submit_credit_limit_increase_request_7392`): a translated name
  sends the agent to a tool the code does not have.
- the strings the code looks data up by: keys of its dicts, members of its lists and sets, and
  values it compares with (τ³ banking's early-closure fees are a dict keyed by the account class,
  "Silver Plus Account"). Data that renders such a value without the code no longer matches it.
Read once per source file (by path, size and modification time).
"""

from __future__ import annotations

import ast
import functools
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from babelflow.ir import ArtifactFormat, ArtifactRole
from babelflow.memo import BoundedMemo

if TYPE_CHECKING:
    from validators.context import ValidationContext


@dataclass(frozen=True)
class ToolModule:
    names: frozenset[str]  # public functions and methods whose name reads as an identifier
    lookups: frozenset[str]  # dict keys, list/tuple/set members and compared values (strings)


_MODULES: BoundedMemo[tuple[str, int, int], ToolModule] = BoundedMemo("tool code modules", 32)


def tool_names(ctx: ValidationContext) -> frozenset[str]:
    """Public function and method names of the source's tool code that read as identifiers."""
    return frozenset().union(*(m.names for m in _tool_modules(ctx)))


def lookup_literals(ctx: ValidationContext) -> frozenset[str]:
    """Strings the source's tool code looks data up by or compares data with."""
    return frozenset().union(*(m.lookups for m in _tool_modules(ctx)))


def _tool_modules(ctx: ValidationContext) -> list[ToolModule]:
    modules = []
    for spec in ctx.specs:
        if spec.role is not ArtifactRole.TOOL_CODE or spec.format is not ArtifactFormat.PYTHON:
            continue
        try:
            path = Path(ctx.source.artifact_path(spec))
            stat = path.stat()
        except OSError:
            continue  # a tool module the source does not ship: nothing to cite
        key = (str(path), stat.st_size, stat.st_mtime_ns)
        modules.append(_MODULES.get_or_compute(key, functools.partial(_read, path)))
    return modules


def _read(path: Path) -> ToolModule:
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, UnicodeDecodeError):
        return ToolModule(frozenset(), frozenset())
    names: set[str] = set()
    lookups: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if not node.name.startswith("_") and _is_snake_case_name(node.name):
                names.add(node.name)
            continue
        if isinstance(node, ast.Dict):
            held: list = list(node.keys)
        elif isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            held = list(node.elts)
        elif isinstance(node, ast.Compare) and any(
            isinstance(op, (ast.Eq, ast.NotEq, ast.In, ast.NotIn)) for op in node.ops
        ):
            held = [node.left, *node.comparators]
        else:
            continue
        lookups.update(
            item.value for item in held if isinstance(item, ast.Constant) and isinstance(item.value, str) and item.value
        )
    return ToolModule(frozenset(names), frozenset(lookups))


def cited(names: frozenset[str] | set[str], text: str) -> dict[str, int]:
    """How often `text` names each of `names` as a whole identifier (not inside a longer one)."""
    if not names or "_" not in text:
        return {}
    counts: dict[str, int] = {}
    for match in re.finditer(r"[A-Za-z0-9_]+", text):
        word = match.group()
        if word in names:
            counts[word] = counts.get(word, 0) + 1
    return counts


def _is_snake_case_name(name: str) -> bool:
    """A letter, then ASCII letters and digits in at least two parts joined by single underscores
    (split by hand: the equivalent regex scanned superlinearly over adversarial text). A name a
    translator could take for words has an underscore ('get_order_details'); a one-word tool
    ('think', 'transfer') is also an ordinary word of the prose and is left to the other checks."""
    parts = name.split("_")
    return len(parts) >= 2 and parts[0][:1].isalpha() and all(p.isascii() and p.isalnum() for p in parts)
