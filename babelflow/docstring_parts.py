"""Split Google-style tool docstrings into translatable and fixed parts.

tau2 builds each tool's JSON schema with ``docstring_parser.parse(func.__doc__)``: section headers
(``Args:``, ``Returns:`` …), parameter names with their ``(type):`` prefix and the indentation the
parser uses to tell items apart must survive byte-for-byte, or parameters silently vanish from the
schema. Only prose and item descriptions are handed to a translator. The section rules below are
those of ``docstring_parser.google`` (imported, not copied, so they stay in sync with it).
"""

from __future__ import annotations

import inspect
import re
from typing import Literal

import docstring_parser
from docstring_parser.google import DEFAULT_SECTIONS, MULTIPLE_PATTERN, GoogleParser, SectionType

from babelflow.ir import Record

_TITLES: re.Pattern[str] = GoogleParser().titles_re  # set in an unannotated method, so mypy sees Any
_SECTION_TYPES = {section.title: section.type for section in DEFAULT_SECTIONS}
_EXTRA_INDENT = "    "


class DocstringPart(Record):
    text: str
    translatable: bool
    continuation_indent: str = ""  # indent any extra line of a translation needs to parse the same
    # fixed parts: section header, `name (type):`, whitespace
    kind: Literal["prose", "header", "spec", "layout"] = "prose"


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


def _trimmed(doc: str, start: int, end: int) -> tuple[int, int]:
    """``[start, end)`` without surrounding whitespace (may become empty)."""
    while start < end and doc[start].isspace():
        start += 1
    while end > start and doc[end - 1].isspace():
        end -= 1
    return start, end


def _continuation(doc: str, start: int, end: int, fallback: str) -> str:
    """Indent of the span's own second line if it has one, else ``fallback``."""
    for line in doc[start:end].split("\n")[1:]:
        if line.strip():
            return _indent(line)
    return fallback


def _title(line: str) -> str:
    """The section title of a header line (one that ``_TITLES`` matched)."""
    match = _TITLES.match(line)
    if match is None:
        raise ValueError(f"not a docstring section header: {line!r}")
    return match.group(1)


def split_docstring(doc: str) -> list[DocstringPart]:
    """Parts whose concatenation is exactly ``doc``; translatable parts never start or end in whitespace."""
    lines = doc.split("\n")
    if any("\t" in _indent(line) for line in lines):
        # inspect.cleandoc expands tabs, which would shift every offset computed below
        raise ValueError("docstrings indented with tabs are not supported")
    starts = [0]
    for line in lines[:-1]:
        starts.append(starts[-1] + len(line) + 1)
    ends = [start + len(line) for start, line in zip(starts, lines)]
    margins = [len(_indent(line)) for line in lines[1:] if line.strip()]
    margin = min(margins, default=0)
    # what inspect.cleandoc (and therefore the parser) sees on each line
    cleaned = [lines[0].lstrip()] + [line[margin:] for line in lines[1:]]
    headers = [i for i, text in enumerate(cleaned) if _TITLES.match(text)]

    spans: list[tuple[int, int, str]] = []  # (start, end, continuation_indent), translatable only

    def add(start: int, end: int, fallback: str) -> None:
        start, end = _trimmed(doc, start, end)
        if start < end:
            spans.append((start, end, _continuation(doc, start, end, fallback)))

    prose_end = starts[headers[0]] if headers else len(doc)
    add(0, prose_end, " " * margin)
    for number, header in enumerate(headers):
        stop = headers[number + 1] if number + 1 < len(headers) else len(lines)
        title = _title(cleaned[header])
        # the parser drops everything from the first unindented line to the next header
        body = list(range(header + 1, stop))
        for i in body:
            if cleaned[i][:1] and not cleaned[i][:1].isspace():
                body = list(range(header + 1, i))
                break
        while body and cleaned[body[0]] == "":
            body.pop(0)
        while body and cleaned[body[-1]] == "":
            body.pop()
        if not body or not cleaned[body[0]].strip() or _SECTION_TYPES[title] == SectionType.SINGULAR:
            continue  # empty, oddly indented, or an Example section: keep verbatim
        indent = _indent(cleaned[body[0]])
        item_indent = " " * margin + indent
        if _SECTION_TYPES[title] == SectionType.SINGULAR_OR_MULTIPLE:
            items = [body]  # Returns/Yields: the whole section is one entry
        else:
            firsts = [
                i for i in body if cleaned[i].startswith(indent) and cleaned[i][len(indent) : len(indent) + 1].strip()
            ]
            items = [list(range(a, b)) for a, b in zip(firsts, firsts[1:] + [body[-1] + 1])]
        for item in items:
            start, end = _trimmed(doc, starts[item[0]], ends[item[-1]])
            entry = doc[start:end]
            has_spec = ":" in entry
            if _SECTION_TYPES[title] == SectionType.SINGULAR_OR_MULTIPLE:
                has_spec = MULTIPLE_PATTERN.match(inspect.cleandoc(entry)) is not None
                fallback = item_indent
            else:
                fallback = item_indent + _EXTRA_INDENT  # deeper than the item, or it starts a new item
            if has_spec:
                start = start + entry.index(":") + 1  # the name/type spec before the colon is fixed
            elif _SECTION_TYPES[title] == SectionType.MULTIPLE:
                continue  # no "name:" at all: the parser rejects it, so never touch it
            add(start, end, fallback)
    return _parts_from_spans(doc, spans)


_NON_SPACE = re.compile(r"\S(?:.*\S)?")


def _fixed_parts(text: str) -> list[DocstringPart]:
    """Split fixed text into whitespace, section headers and item specs, so each can be typed."""
    parts: list[DocstringPart] = []
    cursor = 0
    for match in _NON_SPACE.finditer(text):
        if match.start() > cursor:
            parts.append(DocstringPart(text=text[cursor : match.start()], translatable=False, kind="layout"))
        parts.append(
            DocstringPart(
                text=match.group(0), translatable=False, kind="header" if _TITLES.match(match.group(0)) else "spec"
            )
        )
        cursor = match.end()
    if cursor < len(text) or not parts:
        parts.append(DocstringPart(text=text[cursor:], translatable=False, kind="layout"))
    return parts


def _parts_from_spans(doc: str, spans: list[tuple[int, int, str]]) -> list[DocstringPart]:
    parts: list[DocstringPart] = []
    cursor = 0
    for start, end, continuation in spans:
        if start > cursor:
            parts.extend(_fixed_parts(doc[cursor:start]))
        parts.append(DocstringPart(text=doc[start:end], translatable=True, continuation_indent=continuation))
        cursor = end
    if cursor < len(doc) or not parts:
        parts.extend(_fixed_parts(doc[cursor:]))
    return parts


def join_parts(parts: list[DocstringPart]) -> str:
    return "".join(part.text for part in parts)


def reindent_translation(part: DocstringPart, translated: str) -> str:
    """Re-indent the lines of a translated part so the parser reads it exactly like the source.

    LLMs reflow text and drop leading spaces; a continuation line at the item's own indent would
    start a new parameter, one at column 0 would end the section. Surrounding whitespace is
    dropped (it belongs to the fixed parts). Same line count: the source's per-line indents are
    reused (keeps bullet lists); otherwise every extra line gets ``continuation_indent``.
    """
    new_lines = translated.strip().split("\n")
    old_lines = part.text.split("\n")
    same_shape = len(new_lines) == len(old_lines)
    out = [new_lines[0].strip()]
    for number, line in enumerate(new_lines[1:], start=1):
        body = line.strip()
        if not body:
            out.append("")
        elif same_shape and old_lines[number].strip():
            out.append(_indent(old_lines[number]) + body)
        else:
            out.append(part.continuation_indent + body)
    return "\n".join(out)


def docstring_problems(original: str, translated: str) -> list[str]:
    """How tau2's parse of ``translated`` differs structurally from that of ``original``."""
    before, after = docstring_parser.parse(original), docstring_parser.parse(translated)
    problems: list[str] = []
    if before.style != after.style:
        problems.append(f"parsed as {after.style} instead of {before.style}")
    old_params = [(p.arg_name, p.type_name) for p in before.params]
    new_params = [(p.arg_name, p.type_name) for p in after.params]
    if old_params != new_params:
        problems.append(f"parameters changed from {old_params} to {new_params}")
    else:
        for old, new in zip(before.params, after.params):
            if old.description and not new.description:
                problems.append(f"parameter {old.arg_name!r} lost its description")
    old_returns = before.returns.type_name if before.returns else "<none>"
    new_returns = after.returns.type_name if after.returns else "<none>"
    if old_returns != new_returns:
        problems.append(f"returns type changed from {old_returns!r} to {new_returns!r}")
    if [r.type_name for r in before.raises] != [r.type_name for r in after.raises]:
        problems.append("raises entries changed")
    if bool(before.short_description) != bool(after.short_description):
        problems.append("short description appeared or vanished")
    return problems
