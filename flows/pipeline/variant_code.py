"""A variant's Python files read against the source's: the texts a fork translated in code (AgentDojo's task
prompts and tool docstrings, a τ² agent prompt), at the IR's own code locators.

The files are parsed, never imported: a variant made elsewhere is not code babelflow runs while adopting it.
Literals are aligned by position. A module's string literals are taken in document order (a docstring, an
f-string, an implicit concatenation, literals joined with '+': one literal each). Where the variant holds as
many as the source, the k-th is the k-th; where not, they are aligned per enclosing definition, and a
definition whose count differs is not read (never guessed). An IR element is found at the source literal
whose text it is (the k-th of equal ones for the k-th element), or inside a docstring at the same part
(`babelflow.docstring_parts`) or the same line.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import libcst as cst

from analyzers.code_inventory import is_formatted, string_value
from babelflow.docstring_parts import split_docstring
from babelflow.errors import BabelflowError
from babelflow.ir import IRElement, PythonLiteralLocator
from translators.adoption import NotAdoptedReason
from validators.context import ValidationContext

_STRINGS = (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)


_SLOT = re.compile(r"(?<!\{)\{([^{}]*)\}(?!\})")  # an f-string slot as string_value writes it ('{{' is text)


@dataclass(frozen=True)
class StringLiteral:
    scope: str  # the enclosing definitions, dotted ('' for the module)
    text: str | None  # None: not text (bytes)
    formatted: bool = False  # an f-string: `{expr}` slots the code fills

    def pieces(self) -> tuple[list[str], list[str]]:
        """The texts between the slots, and the slots' expressions, in order."""
        split = _SLOT.split(self.text or "")
        return split[0::2], split[1::2]


class _Literals(cst.CSTVisitor):
    """Every string literal in document order with its enclosing definitions; a literal's inner strings
    (an f-string's slot expressions, a concatenation's parts) are part of it."""

    def __init__(self) -> None:
        self.scopes: list[str] = []
        self.found: list[StringLiteral] = []

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.scopes.append(node.name.value)

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self.scopes.pop()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.scopes.append(node.name.value)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.scopes.pop()

    def on_visit(self, node: cst.CSTNode) -> bool:
        strings = _added_strings(node)
        if strings:  # a literal, or literals joined with '+': one text at run time
            values = [string_value(part) for part in strings]
            text = None if None in values else "".join(v for v in values if v is not None)
            self.found.append(StringLiteral(".".join(self.scopes), text, any(map(is_formatted, strings))))
            return False
        return super().on_visit(node)


def _added_strings(node: cst.CSTNode) -> list[cst.BaseExpression] | None:
    """The string literals `node` is, or adds up with '+' (`f"..." + "..."`); None if it is something else."""
    if isinstance(node, _STRINGS):
        return [node]
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add):
        left, right = _added_strings(node.left), _added_strings(node.right)
        return left + right if left is not None and right is not None else None
    return None


def module_literals(text: str, path: Path) -> list[StringLiteral]:
    try:
        module = cst.parse_module(text)
    except cst.ParserSyntaxError as exc:
        raise BabelflowError(
            f"the variant's {path.name} does not parse: {str(exc).splitlines()[0]}",
            file=path,
            field="--from",
            fix="restore the file (a truncated or hand-edited copy?), or remove it to adopt the rest",
        ) from exc
    collector = _Literals()
    module.visit(collector)
    return collector.found


def code_reading(source_text: str, variant_text: str, variant_path: Path) -> CodeReading:
    return CodeReading(module_literals(source_text, variant_path), module_literals(variant_text, variant_path))


@dataclass
class CodeReading:
    """One Python artifact of the variant against the source's: the variant's text for an element, or why not."""

    source: list[StringLiteral]
    variant: list[StringLiteral]
    _pairs: dict[str, list[tuple[StringLiteral, StringLiteral]]] = field(init=False)  # scope -> aligned literals
    _differs: set[str] = field(init=False, default_factory=set)  # scopes whose literal counts differ
    _taken: dict[tuple[str, str], int] = field(init=False, default_factory=lambda: defaultdict(int))

    def __post_init__(self) -> None:
        self._pairs = defaultdict(list)
        if len(self.source) == len(self.variant):  # the whole module in step, renamed scopes included
            for pair in zip(self.source, self.variant, strict=True):
                self._pairs[pair[0].scope].append(pair)
            return
        by_scope: dict[str, tuple[list[StringLiteral], list[StringLiteral]]] = defaultdict(lambda: ([], []))
        for literal in self.source:
            by_scope[literal.scope][0].append(literal)
        for literal in self.variant:
            by_scope[literal.scope][1].append(literal)
        for scope, (ours, theirs) in by_scope.items():
            if len(ours) == len(theirs):
                self._pairs[scope] = list(zip(ours, theirs, strict=True))
            else:
                self._differs.add(scope)

    def _scope_of(self, qualname: str) -> str | None:
        """The longest enclosing definition of the element's qualname that the source has literals in."""
        parts = qualname.split(".")
        for end in range(len(parts), -1, -1):
            scope = ".".join(parts[:end])
            if scope in self._pairs or scope in self._differs:
                return scope
        return None

    def text_of(self, element: IRElement) -> str | tuple[NotAdoptedReason, str]:
        """The variant's text for the element, or (reason, detail) when it is not there to be read."""
        locator = element.locator
        assert isinstance(locator, PythonLiteralLocator)
        scope = self._scope_of(locator.qualname)
        if scope is None:
            return "missing", f"no literal of {locator.qualname} in the source's file"
        if scope in self._differs:
            return "structure_differs", f"{scope or 'the module'} holds another number of string literals"
        pairs = self._pairs[scope]
        whole = [theirs for ours, theirs in pairs if ours.text == element.source_text]
        if whole:  # the k-th element with this text is the k-th literal holding it
            rank = self._taken[(scope, element.source_text)]
            self._taken[(scope, element.source_text)] += 1
            text = whole[min(rank, len(whole) - 1)].text
            return text if text is not None else ("missing", "the variant's literal is not text")
        for ours, theirs in pairs:
            if ours.text is None or theirs.text is None:
                continue
            if ours.formatted:
                read = _formatted(element.source_text, ours, theirs)
                if read is not None:
                    return read
            elif element.source_text in ours.text:
                return _docstring_piece(element, ours.text, theirs.text)
        return "missing", f"no literal of {locator.qualname} holds this text"


def _formatted(text: str, ours: StringLiteral, theirs: StringLiteral) -> str | tuple[NotAdoptedReason, str] | None:
    """The element read from an f-string: one of its texts between slots (a tool message's part), or its value
    at run time (a task prompt with its constants filled in), each slot filled as in the source (the map's
    rendering replaces a value's mention later). A translation may move slots; a part then has no counterpart."""
    texts, slots = ours.pieces()
    their_texts, their_slots = theirs.pieces()
    if text in texts:
        if slots != their_slots:
            return "structure_differs", "the variant's f-string has its slots in another order or others"
        return their_texts[texts.index(text)]
    pattern = "(.*?)".join(re.escape(piece) for piece in texts)
    match = re.fullmatch(pattern, text, re.DOTALL)
    if match is None:
        return None
    values: dict[str, str] = {}
    for expression, value in zip(slots, match.groups(), strict=True):
        if values.setdefault(expression, value) != value:
            return "structure_differs", f"the slot {{{expression}}} is filled two ways"
    if not set(their_slots) <= set(values):
        return "structure_differs", "the variant's f-string fills other slots"
    filled = [values[expression] for expression in their_slots] + [""]
    return "".join(piece + value for piece, value in zip(their_texts, filled, strict=True))


def _docstring_piece(element: IRElement, ours: str, theirs: str) -> str | tuple[NotAdoptedReason, str]:
    """The element's part of a docstring (τ²: babelflow.docstring_parts) or its line (AgentDojo: one piece
    per line, a reST field name kept before it), read from the variant's docstring at the same place."""
    part = element.locator.part if isinstance(element.locator, PythonLiteralLocator) else None
    if part is not None:
        try:
            mine, their_parts = split_docstring(ours), split_docstring(theirs)
        except ValueError as exc:
            return "structure_differs", str(exc)
        if [p.kind for p in mine] != [p.kind for p in their_parts] or part >= len(mine):
            return "structure_differs", "the variant's docstring has other sections"
        return their_parts[part].text.strip()
    lines, their_lines = ours.split("\n"), theirs.split("\n")
    if len(lines) != len(their_lines):
        return "structure_differs", f"the variant's docstring has {len(their_lines)} lines, the source's {len(lines)}"
    for line, their_line in zip(lines, their_lines, strict=True):
        at = line.find(element.source_text)
        if at < 0:
            continue
        head, tail = line[:at], line[at + len(element.source_text) :]
        if not (their_line.startswith(head) and their_line.endswith(tail)):
            return "structure_differs", f"the variant's line lost {head.strip() or tail.strip()!r}"
        return their_line[len(head) : len(their_line) - len(tail)]
    return "structure_differs", "the text spans lines of the docstring"


class VariantCode:
    """The variant's Python artifacts, each parsed once, when an element of it is first asked for."""

    def __init__(self, ctx: ValidationContext):
        self.ctx = ctx
        self._specs = {spec.path: spec for spec in ctx.specs}
        self._readings: dict[str, CodeReading | None] = {}

    def text_of(self, element: IRElement) -> str | tuple[NotAdoptedReason, str]:
        if element.artifact not in self._readings:
            spec = self._specs.get(element.artifact)
            theirs = self.ctx.target_document(spec) if spec is not None else None
            self._readings[element.artifact] = (
                None
                if spec is None or not isinstance(theirs, str)
                else code_reading(self.ctx.source_document(spec), theirs, self.ctx.target_path(spec))
            )
        reading = self._readings[element.artifact]
        if reading is None:
            return "code_not_in_variant", f"the variant has no {element.artifact}"
        return reading.text_of(element)
