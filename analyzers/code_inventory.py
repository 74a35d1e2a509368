"""Text inside Python sources, found with LibCST: docstrings, Field descriptions, prompts, messages.

Also collects the string literals the code *compares* against (==, !=, in, startswith, dict keys,
getattr): a data value equal to one of them is executable and must be preserved.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from babelflow.ir import PythonTextRole


@dataclass(frozen=True)
class CodeText:
    qualname: str
    role: PythonTextRole
    occurrence: int
    line: int
    text: str
    name: str | None = None  # the assigned name for constants, the keyword for call arguments
    in_tool: bool = False  # inside a function decorated with @is_tool


@dataclass
class CodeScan:
    texts: list[CodeText] = field(default_factory=list)
    compared_literals: dict[str, list[int]] = field(default_factory=dict)  # value -> lines


_TEXT_METHODS = {"strip", "lstrip", "rstrip"}


def string_value(node: cst.BaseExpression) -> str | None:
    """The text of a string literal; f-strings keep `{expr}` slots as written."""
    if isinstance(node, cst.SimpleString):
        try:
            value = node.evaluated_value
        except Exception:  # bytes or odd prefixes: not text a model reads
            return None
        return value if isinstance(value, str) else None
    if isinstance(node, cst.FormattedString):
        parts = []
        for part in node.parts:
            if isinstance(part, cst.FormattedStringText):
                parts.append(part.value)
            elif isinstance(part, cst.FormattedStringExpression):
                parts.append("{" + cst.Module([]).code_for_node(part.expression) + "}")
            else:
                raise TypeError(f"unknown f-string part {type(part).__name__}")
        return "".join(parts)
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value in _TEXT_METHODS and not node.args:
        return string_value(node.func.value)  # """...""".strip(): the literal is what gets read
    if isinstance(node, cst.ConcatenatedString):
        left, right = string_value(node.left), string_value(node.right)
        return None if left is None or right is None else left + right
    return None


def _decorator_names(node: cst.FunctionDef) -> set[str]:
    names = set()
    for decorator in node.decorators:
        expr = decorator.decorator
        if isinstance(expr, cst.Call):
            expr = expr.func
        names.add(cst.Module([]).code_for_node(expr).split(".")[-1])
    return names


class _Collector(cst.CSTVisitor):
    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self) -> None:
        self.scan = CodeScan()
        self.scope: list[str] = []
        self.tool_depth = 0
        self.counts: dict[tuple[str, str], int] = {}
        self.claimed: set[int] = set()  # ids of string nodes already given a role
        self.raise_depth = 0

    # -- helpers ---------------------------------------------------------------------------
    def _qualname(self) -> str:
        return ".".join(self.scope) or "<module>"

    def _add(self, node: cst.BaseExpression, role: PythonTextRole, name: str | None = None) -> None:
        text = string_value(node)
        if text is None or id(node) in self.claimed:
            return
        self.claimed.add(id(node))
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):  # """...""".strip(): see string_value
            self.claimed.add(id(node.func.value))
        for sub in _string_children(node):
            self.claimed.add(id(sub))
        key = (self._qualname(), role)
        occurrence = self.counts.get(key, 0)
        self.counts[key] = occurrence + 1
        line = self.get_metadata(PositionProvider, node).start.line
        self.scan.texts.append(CodeText(self._qualname(), role, occurrence, line, text, name, self.tool_depth > 0))

    def _compared(self, node: cst.BaseExpression) -> None:
        for sub in _string_children(node):
            text = string_value(sub)
            if text is not None:
                line = self.get_metadata(PositionProvider, sub).start.line
                self.scan.compared_literals.setdefault(text, []).append(line)

    def _docstring(self, body: cst.BaseSuite) -> None:
        if isinstance(body, cst.IndentedBlock) and body.body:
            first = body.body[0]
            if isinstance(first, cst.SimpleStatementLine) and isinstance(first.body[0], cst.Expr):
                expr = first.body[0].value
                if isinstance(expr, (cst.SimpleString, cst.ConcatenatedString)):
                    self._add(expr, "docstring")

    # -- scopes ----------------------------------------------------------------------------
    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.scope.append(node.name.value)
        self._docstring(node.body)

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self.scope.pop()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.scope.append(node.name.value)
        if "is_tool" in _decorator_names(node):
            self.tool_depth += 1
        self._docstring(node.body)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        if "is_tool" in _decorator_names(original_node):
            self.tool_depth -= 1
        self.scope.pop()

    # -- roles -----------------------------------------------------------------------------
    def visit_Raise(self, node: cst.Raise) -> None:
        if isinstance(node.exc, cst.Call) and node.exc.args:
            self._add(node.exc.args[0].value, "error_message")

    def visit_Call(self, node: cst.Call) -> None:
        func = cst.Module([]).code_for_node(node.func)
        for arg in node.args:
            keyword = arg.keyword.value if arg.keyword else None
            if keyword == "description" and func.split(".")[-1] == "Field":
                self._add(arg.value, "field_description", keyword)
            elif keyword == "content":
                self._add(arg.value, "prompt", keyword)
        if func.endswith((".startswith", ".endswith", ".get")) or func in ("getattr", "hasattr", "setattr"):
            for arg in node.args[:2]:
                self._compared(arg.value)

    def visit_Assign(self, node: cst.Assign) -> None:
        target = node.targets[0].target
        if isinstance(target, cst.Name) and string_value(node.value) is not None:
            self._add(node.value, "constant", target.value)
        elif isinstance(target, cst.Name) and isinstance(node.value, cst.BinaryOperation):
            for sub in _string_children(node.value):  # "<main_policy>\n" + text + ...: markup sent to models
                self._add(sub, "constant", target.value)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if isinstance(node.target, cst.Name) and node.value is not None and string_value(node.value) is not None:
            self._add(node.value, "constant", node.target.value)

    def visit_Comparison(self, node: cst.Comparison) -> None:
        self._compared(node.left)
        for target in node.comparisons:
            self._compared(target.comparator)

    def visit_Subscript(self, node: cst.Subscript) -> None:
        for element in node.slice:
            if isinstance(element.slice, cst.Index):
                self._compared(element.slice.value)

    def visit_Return(self, node: cst.Return) -> None:
        if node.value is not None:
            for sub in _string_children(node.value, top_only=True):
                self._add(sub, "tool_output")


def _string_children(node: cst.CSTNode, top_only: bool = False) -> list[cst.BaseExpression]:
    """String literals in an expression (sets, tuples, lists, binary ops, calls' args)."""
    found: list[cst.BaseExpression] = []

    def visit(n: cst.CSTNode) -> None:
        if isinstance(n, (cst.SimpleString, cst.FormattedString, cst.ConcatenatedString)) or (isinstance(n, cst.Call) and string_value(n) is not None):
            found.append(n)
            return
        if top_only and isinstance(n, (cst.Lambda, cst.FunctionDef)):
            return
        for child in n.children:
            visit(child)

    visit(node)
    return found


@lru_cache(maxsize=64)
def _scan_cached(source: str) -> CodeScan:
    wrapper = MetadataWrapper(cst.parse_module(source))
    collector = _Collector()
    wrapper.visit(collector)
    return collector.scan


def scan_python_file(path: Path) -> CodeScan:
    return _scan_cached(Path(path).read_text(encoding="utf-8"))
