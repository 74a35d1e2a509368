"""Text inside Python sources, found with LibCST: docstrings, Field descriptions, prompts, messages.

Also collects the string literals the code *compares* against (==, !=, in, startswith, dict keys,
getattr): a data value equal to one of them is executable and must be preserved.

`scan_runtime_literals` is the scan of a family typed by perturbation trial: every literal of a module's
classes and functions, valued as the imported module holds it (the texts its code overlay replaces).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

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
    formatted: bool = False  # an f-string's text: each `{expr}` is a slot the code fills


@dataclass(frozen=True)
class KeyRead:
    """A string key the code reads (`reply["reasoning"]`, `.get("results")`): a prompt must keep it."""

    key: str
    line: int


@dataclass
class CodeScan:
    texts: list[CodeText] = field(default_factory=list)
    compared_literals: dict[str, list[int]] = field(default_factory=dict)  # value -> lines
    key_reads: list[KeyRead] = field(default_factory=list)


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
                parts.append(_resolved_escapes(part.value, node.start))
            elif isinstance(part, cst.FormattedStringExpression):
                parts.append("{" + cst.Module([]).code_for_node(part.expression) + "}")
            else:
                raise TypeError(f"unknown f-string part {type(part).__name__}")
        return "".join(parts)
    if (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value in _TEXT_METHODS
        and not node.args
    ):
        return string_value(node.func.value)  # """...""".strip(): the literal is what gets read
    if isinstance(node, cst.ConcatenatedString):
        left, right = string_value(node.left), string_value(node.right)
        return None if left is None or right is None else left + right
    return None


def _resolved_escapes(text: str, prefix: str) -> str:
    """An f-string's text part with its escapes (\\n) as the compiler resolves them, `{{` kept: the
    text matches what the code produces, and its slots are still told apart from literal braces."""
    if "\\" not in text or "r" in prefix.lower():
        return text
    try:
        return ast.literal_eval('"""' + text.replace('"', '\\"') + '"""')
    except (ValueError, SyntaxError):
        return text


def is_formatted(node: cst.BaseExpression) -> bool:
    """Does the literal's text hold f-string slots?"""
    if isinstance(node, cst.FormattedString):
        return True
    if isinstance(node, cst.ConcatenatedString):
        return is_formatted(node.left) or is_formatted(node.right)
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
        return is_formatted(node.func.value)
    return False


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
        self.scan.texts.append(
            CodeText(self._qualname(), role, occurrence, line, text, name, self.tool_depth > 0, is_formatted(node))
        )

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
        if func.endswith(".get") and node.args:
            self._key_read(node.args[0].value)

    def _key_read(self, node: cst.BaseExpression) -> None:
        if isinstance(node, cst.SimpleString):
            key = string_value(node)
            if key:
                self.scan.key_reads.append(KeyRead(key, self.get_metadata(PositionProvider, node).start.line))

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
                self._key_read(element.slice.value)

    def visit_Return(self, node: cst.Return) -> None:
        if node.value is not None:
            for sub in _string_children(node.value, top_only=True):
                self._add(sub, "tool_output")


def _string_children(node: cst.CSTNode, top_only: bool = False) -> list[cst.BaseExpression]:
    """String literals in an expression (sets, tuples, lists, binary ops, calls' args)."""
    found: list[cst.BaseExpression] = []

    def visit(n: cst.CSTNode) -> None:
        if isinstance(n, (cst.SimpleString, cst.FormattedString, cst.ConcatenatedString)) or (
            isinstance(n, cst.Call) and string_value(n) is not None
        ):
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


def _string_parts(node: cst.BaseExpression) -> list[cst.BaseExpression]:
    if isinstance(node, cst.ConcatenatedString):
        return _string_parts(node.left) + _string_parts(node.right)
    return [node]


def _plain_string(node: cst.BaseExpression) -> str | None:
    """The value of a literal with no f-string in it (an f-string's value exists only at run time)."""
    if not isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
        return None
    if any(isinstance(part, cst.FormattedString) for part in _string_parts(node)):
        return None
    return string_value(node)


# ---- literals as the interpreter holds them (code and data typed together by a perturbation trial) ----
# A runtime literal's value is what the interpreter holds (the evaluated PROMPT of an f-string, the
# constant a literal compiles to, an f-string's text parts with `{{` unescaped), because that is what a
# variant's code overlay replaces; LibCST says where it is (qualname, line, occurrence).
Where = Literal["attribute", "class_constant", "module_constant", "function_literal", "fstring_part", "docstring"]


@dataclass(frozen=True)
class RuntimeLiteral:
    qualname: str  # "UserTask3.PROMPT", "_FILENAME", "UserTask3.utility", "send_email"
    where: Where
    value: str
    line: int
    occurrence: int
    is_dict_key: bool = False
    in_container: bool = False  # an item of a list/tuple constant (_NAMES = ["Olivia Smith", ...])


class _LiteralScanner(cst.CSTVisitor):
    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, module: Any, text_attributes: frozenset[str]):
        self.module = module
        self.text_attributes = text_attributes
        self.scope: list[tuple[str, str]] = []  # (kind, name)
        self.found: list[RuntimeLiteral] = []
        self.counts: dict[str, int] = {}
        self.skip: set[int] = set()  # ids of nodes already handled (docstrings, dict keys)
        self.keys: set[int] = set()

    def _qual(self) -> str | None:
        names = [n for _, n in self.scope]
        kinds = [k for k, _ in self.scope]
        if "def" not in kinds:
            return None
        first_def = kinds.index("def")
        return ".".join(names[: first_def + 1])

    def _add(self, qual: str, where: Where, value: str, node: cst.CSTNode, **flags: bool) -> None:
        occurrence = self.counts.get(qual, 0)
        self.counts[qual] = occurrence + 1
        line = self.get_metadata(PositionProvider, node).start.line
        self.found.append(RuntimeLiteral(qual, where, value, line, occurrence, **flags))

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.scope.append(("class", node.name.value))

    def leave_ClassDef(self, node: cst.ClassDef) -> None:
        self.scope.pop()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.scope.append(("def", node.name.value))
        body = node.body.body if isinstance(node.body, cst.IndentedBlock) else []
        if body and isinstance(body[0], cst.SimpleStatementLine) and isinstance(body[0].body[0], cst.Expr):
            self.skip.add(id(body[0].body[0].value))  # the docstring: a tool's is inventoried separately

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.scope.pop()

    def visit_Assign(self, node: cst.Assign) -> None:
        if len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
            self._assignment(node.targets[0].target.value, node)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:  # _NAMES: ClassVar[list[str]] = [...]
        if isinstance(node.target, cst.Name) and node.value is not None:
            self._assignment(node.target.value, node)

    def _assignment(self, name: str, node: cst.Assign | cst.AnnAssign) -> None:
        if not self.scope:
            value = getattr(self.module, name, None)
            literal = isinstance(node.value, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString))
            if isinstance(value, str) and literal:
                self._add(name, "module_constant", value, node)
                self.skip.add(id(node.value))
        elif len(self.scope) == 1 and self.scope[0][0] == "class":
            owner = self.scope[0][1]
            cls = getattr(self.module, owner, None)
            value = vars(cls).get(name) if isinstance(cls, type) else None
            if isinstance(value, str):  # PROMPT/GOAL/... are texts; _TARGET, _FILENAME ... are values checks use
                where: Where = "attribute" if name in self.text_attributes else "class_constant"
                self._add(f"{owner}.{name}", where, value, node)
                self.skip.add(id(node.value))
            elif isinstance(node.value, (cst.List, cst.Tuple)):
                for element in node.value.elements:
                    item = _plain_string(element.value)
                    if item is not None:
                        self._add(f"{owner}.{name}", "class_constant", item, element.value, in_container=True)
                        self.skip.add(id(element.value))

    def visit_DictElement(self, node: cst.DictElement) -> None:
        self.keys.add(id(node.key))

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        self._literal(node)

    def visit_ConcatenatedString(self, node: cst.ConcatenatedString) -> bool:
        if _plain_string(node) is not None:
            self._literal(node)
            return False
        return True

    def _literal(self, node: cst.BaseExpression) -> None:
        qual = self._qual()
        if qual is None or id(node) in self.skip:
            return
        value = _plain_string(node)
        if value is not None:
            self._add(qual, "function_literal", value, node, is_dict_key=id(node) in self.keys)

    def visit_FormattedString(self, node: cst.FormattedString) -> None:
        qual = self._qual()
        if qual is None or id(node) in self.skip:
            return
        for part in node.parts:
            if isinstance(part, cst.FormattedStringText) and part.value:
                text = _resolved_escapes(part.value.replace("{{", "{").replace("}}", "}"), node.start)
                self._add(qual, "fstring_part", text, part)


def scan_runtime_literals(path: Path, module: Any, text_attributes: frozenset[str]) -> list[RuntimeLiteral]:
    """Every string literal of a module's classes and functions, valued as the imported `module` holds it;
    a class attribute named in `text_attributes` (a task's PROMPT) is text, other class strings constants."""
    tree = cst.parse_module(Path(path).read_text(encoding="utf-8"))
    scanner = _LiteralScanner(module, text_attributes)
    MetadataWrapper(tree).visit(scanner)
    return scanner.found
