"""Raw docstrings of a Python source file by qualified name (stdlib `ast`, no import of the module)."""

from __future__ import annotations

import ast
from functools import lru_cache
from pathlib import Path


@lru_cache(maxsize=64)
def _docstrings(source: str) -> dict[str, str]:
    found: dict[str, str] = {}

    def visit(node: ast.AST, scope: tuple[str, ...]) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = scope + (child.name,)
                doc = ast.get_docstring(child, clean=False)
                if doc is not None:
                    found[".".join(name)] = doc
                visit(child, name)
            else:
                visit(child, scope)

    visit(ast.parse(source), ())
    return found


def docstrings_of(path: Path) -> dict[str, str]:
    """qualname -> docstring exactly as written (not cleaned), for every function and class."""
    return _docstrings(Path(path).read_text(encoding="utf-8"))
