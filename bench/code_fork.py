"""A fork another team made of a benchmark whose texts live in code (AgentDojo): its data files and Python
modules copied, with string literals translated in place by a libcst transformer. The "translation" marks
vowels (a → á), which keeps escapes, f-string slots and reST field names ("\\n", "{user}", ":param x:") as a
careful translator keeps them. `which` picks the literals a team translated: task prompts and tool
docstrings (`PROMPTS_AND_DOCS`), or every string with a word in it (a naive fork, compared values too)."""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from pathlib import Path

import libcst as cst

_VOWELS = str.maketrans("aeiouAEIOU", "áéíóúÁÉÍÓÚ")
# what a careful translator keeps: reST field names (':param city:'), Google-style section headers ('Args:')
# and item heads ('order_id (str):', 'ValueError:'), which tau2 and AgentDojo parse into tool schemas
_FIELD = re.compile(r"^(\s*:\w+(?: \w+)?:\s*|\s*\w+(?: \([^)]*\))?:(?:\s+|$))")


def marked(text: str) -> str:
    """Vowels marked, outside `{...}` slots, code spans, field names and docstring section heads."""
    out = []
    for line in text.split("\n"):
        head = _FIELD.match(line)
        start = head.end() if head else 0
        pieces = re.split(r"(\{[^{}]*\}|`[^`]*`)", line[start:])
        out.append(line[:start] + "".join(p if p[:1] in "{`" and p else p.translate(_VOWELS) for p in pieces))
    return "\n".join(out)


Which = Callable[[str, str], bool]  # (enclosing names, the literal's text) -> translated?


def prompts_and_docs(scope: str, text: str) -> bool:
    """Task prompts and goals, docstrings, and prompt constants ('AGENT_INSTRUCTION', 'SYSTEM_PROMPT')."""
    name = scope.rsplit(".", 1)[-1]
    return name in ("PROMPT", "GOAL", "__doc__") or (name.isupper() and ("PROMPT" in name or "INSTRUCTION" in name))


def every_word(scope: str, text: str) -> bool:
    return bool(re.search(r"[A-Za-z]{3,}", text))


class _Fork(cst.CSTTransformer):
    def __init__(self, which: Which):
        self.which = which
        self.names: list[str] = []
        self.target: str | None = None  # the name a simple assignment binds

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.names.append(node.name.value)

    def leave_ClassDef(self, original_node, updated_node):
        self.names.pop()
        return updated_node

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.names.append(node.name.value)

    def leave_FunctionDef(self, original_node, updated_node):
        self.names.pop()
        return updated_node

    def visit_Assign(self, node: cst.Assign) -> None:
        first = node.targets[0].target
        self.target = first.value if isinstance(first, cst.Name) else None

    def leave_Assign(self, original_node, updated_node):
        self.target = None
        return updated_node

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self.target = node.target.value if isinstance(node.target, cst.Name) else None

    def leave_AnnAssign(self, original_node, updated_node):
        self.target = None
        return updated_node

    def _scope(self, docstring: bool) -> str:
        return ".".join(self.names + ["__doc__" if docstring else (self.target or "")])

    def leave_SimpleString(self, original_node, updated_node):
        value = updated_node.evaluated_value
        if not isinstance(value, str) or updated_node.prefix.lower() not in ("",):
            return updated_node
        docstring = '"""' in updated_node.value or "'''" in updated_node.value
        if not self.which(self._scope(docstring), value):
            return updated_node
        quote = updated_node.value[:3] if docstring else updated_node.value[0]
        body = updated_node.value[len(quote) : -len(quote)]
        return updated_node.with_changes(value=quote + marked_source(body) + quote)

    def leave_FormattedStringText(self, original_node, updated_node):
        if not self.which(self._scope(False), updated_node.value):
            return updated_node
        return updated_node.with_changes(value=marked_source(updated_node.value))


def marked_source(body: str) -> str:
    """`marked` on a literal's source text: an escape ('\\n', '\\u00e9') keeps its letter."""
    return re.sub(r"(\\.)|([^\\]+)", lambda m: m.group(1) or marked(m.group(2)), body)


def fork(package_root: Path, artifacts: list[str], dest: Path, which: Which) -> Path:
    """`dest` laid out like the package: each artifact copied, its Python literals translated by `which`."""
    for artifact in artifacts:
        target = dest / artifact
        target.parent.mkdir(parents=True, exist_ok=True)
        if artifact.endswith(".py"):
            module = cst.parse_module((package_root / artifact).read_text(encoding="utf-8"))
            target.write_text(module.visit(_Fork(which)).code, encoding="utf-8")
        else:
            shutil.copy(package_root / artifact, target)
    return dest
