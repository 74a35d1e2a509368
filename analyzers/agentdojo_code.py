"""Text in AgentDojo's Python: task attributes, module constants, check literals, tool docstrings.

LibCST finds where each literal is (qualname, line, occurrence); its value is what the
interpreter holds at run time (the evaluated PROMPT of an f-string, the constant a literal
compiles to, an f-string's text parts with `{{` already unescaped), because that is what the
variant's overlay replaces.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

TEXT_ATTRIBUTES = ("PROMPT", "GOAL", "GROUND_TRUTH_OUTPUT", "COMMENT")

Where = Literal["attribute", "class_constant", "module_constant", "function_literal", "fstring_part", "docstring"]


@dataclass(frozen=True)
class CodeLiteral:
    qualname: str  # "UserTask3.PROMPT", "_FILENAME", "UserTask3.utility", "send_email"
    where: Where
    value: str
    line: int
    occurrence: int
    is_dict_key: bool = False
    is_keyword: bool = False
    in_container: bool = False  # an item of a list/tuple constant (_NAMES = ["Olivia Smith", ...])


def _string_value(node: cst.BaseExpression) -> str | None:
    if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)) and not any(isinstance(n, cst.FormattedString) for n in _parts(node)):
        try:
            value = ast.literal_eval(cst.Module([]).code_for_node(node))
        except (ValueError, SyntaxError):
            return None
        return value if isinstance(value, str) else None
    return None


def _parts(node: cst.BaseExpression) -> list[cst.BaseExpression]:
    if isinstance(node, cst.ConcatenatedString):
        return _parts(node.left) + _parts(node.right)
    return [node]


class _Scanner(cst.CSTVisitor):
    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, module: Any):
        self.module = module
        self.scope: list[tuple[str, str]] = []  # (kind, name)
        self.found: list[CodeLiteral] = []
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
        self.found.append(CodeLiteral(qual, where, value, self.get_metadata(PositionProvider, node).start.line, occurrence, **flags))

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
            if isinstance(value, str) and isinstance(node.value, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)):
                self._add(name, "module_constant", value, node)
                self.skip.add(id(node.value))
        elif len(self.scope) == 1 and self.scope[0][0] == "class":
            cls = getattr(self.module, self.scope[0][1], None)
            value = vars(cls).get(name) if isinstance(cls, type) else None
            if isinstance(value, str):  # PROMPT/GOAL/... are texts; _TARGET, _FILENAME ... are values checks use
                self._add(f"{self.scope[0][1]}.{name}", "attribute" if name in TEXT_ATTRIBUTES else "class_constant", value, node)
                self.skip.add(id(node.value))
            elif isinstance(node.value, (cst.List, cst.Tuple)):
                for element in node.value.elements:
                    item = _string_value(element.value)
                    if item is not None:
                        self._add(f"{self.scope[0][1]}.{name}", "class_constant", item, element.value, in_container=True)
                        self.skip.add(id(element.value))

    def visit_DictElement(self, node: cst.DictElement) -> None:
        self.keys.add(id(node.key))

    def visit_Arg(self, node: cst.Arg) -> None:
        pass

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        self._literal(node)

    def visit_ConcatenatedString(self, node: cst.ConcatenatedString) -> bool:
        if _string_value(node) is not None:
            self._literal(node)
            return False
        return True

    def _literal(self, node: cst.BaseExpression) -> None:
        qual = self._qual()
        if qual is None or id(node) in self.skip:
            return
        value = _string_value(node)
        if value is not None:
            self._add(qual, "function_literal", value, node, is_dict_key=id(node) in self.keys)

    def visit_FormattedString(self, node: cst.FormattedString) -> None:
        qual = self._qual()
        if qual is None or id(node) in self.skip:
            return
        for part in node.parts:
            if isinstance(part, cst.FormattedStringText) and part.value:
                text = part.value.replace("{{", "{").replace("}}", "}")
                try:  # escapes (\n) as the compiler resolves them
                    text = ast.literal_eval('"""' + text.replace('"', '\\"') + '"""') if "\\" in text else text
                except (ValueError, SyntaxError):
                    pass
                self._add(qual, "fstring_part", text, part)


def scan_module(path: Path, module: Any) -> list[CodeLiteral]:
    tree = cst.parse_module(Path(path).read_text(encoding="utf-8"))
    scanner = _Scanner(module)
    MetadataWrapper(tree).visit(scanner)
    return scanner.found
