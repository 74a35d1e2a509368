"""Split Markdown into top-level blocks and join them back byte-identically.

A block is a maximal run of non-blank lines (a fenced code block is one block even with blank
lines inside); an ATX heading line is always a block of its own. Whatever lies between blocks
(blank lines) is kept as a gap, so `join(split(text)) == text` for every input.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
_HEADING = re.compile(r"^\s{0,3}#{1,6}(\s|$)")
_LIST = re.compile(r"^\s{0,3}([-*+]|\d+[.)])\s")
_RULE = re.compile(r"^\s{0,3}([-*_])(\s*\1){2,}\s*$")

BlockKind = Literal[
    "heading", "paragraph", "list", "table", "code", "html", "rule", "quote"
]  # the IR's MarkdownBlockLocator.block_kind


@dataclass(frozen=True)
class MarkdownBlock:
    index: int
    kind: BlockKind
    start_line: int  # 1-based, inclusive
    end_line: int
    text: str  # the block's lines joined with their newlines, without the trailing newline


@dataclass(frozen=True)
class MarkdownDocument:
    chunks: tuple[str | MarkdownBlock, ...]  # gaps (str) and blocks in document order

    @property
    def blocks(self) -> list[MarkdownBlock]:
        return [c for c in self.chunks if isinstance(c, MarkdownBlock)]

    def join(self, replacements: dict[int, str] | None = None) -> str:
        replacements = replacements or {}
        return "".join(c if isinstance(c, str) else replacements.get(c.index, c.text) for c in self.chunks)


def _kind(lines: list[str]) -> BlockKind:
    first = lines[0]
    if _FENCE.match(first):
        return "code"
    if _HEADING.match(first):
        return "heading"
    if _RULE.match(first) and len(lines) == 1:
        return "rule"
    if first.lstrip().startswith("|"):
        return "table"
    if first.lstrip().startswith(">"):
        return "quote"
    if first.lstrip().startswith("<") and lines[-1].rstrip().endswith(">"):
        return "html"
    if _LIST.match(first):
        return "list"
    return "paragraph"


def split_markdown(text: str) -> MarkdownDocument:
    lines = text.splitlines(keepends=True)
    chunks: list[str | MarkdownBlock] = []
    gap: list[str] = []
    current: list[str] = []
    start = 0
    in_fence: str | None = None

    def flush_block() -> None:
        nonlocal current
        if not current:
            return
        body = "".join(current)
        stripped = body.rstrip("\r\n")
        trailing = body[len(stripped) :]
        index = sum(1 for c in chunks if isinstance(c, MarkdownBlock))
        raw_lines = stripped.splitlines()
        chunks.append(MarkdownBlock(index, _kind(raw_lines), start + 1, start + len(raw_lines), stripped))
        gap.append(trailing)
        current = []

    def flush_gap() -> None:
        if gap:
            chunks.append("".join(gap))
            gap.clear()

    for number, line in enumerate(lines):
        if in_fence is not None:
            current.append(line)
            if line.strip().startswith(in_fence):
                in_fence = None
                flush_block()
            continue
        fence = _FENCE.match(line)
        if fence:
            flush_block()
            flush_gap()
            start, current, in_fence = number, [line], fence.group(1)[:3]
            continue
        if not line.strip():
            flush_block()
            gap.append(line)
            continue
        if _HEADING.match(line):
            flush_block()
            flush_gap()
            start, current = number, [line]
            flush_block()
            continue
        if not current:
            flush_gap()
            start = number
        current.append(line)
    flush_block()
    flush_gap()
    return MarkdownDocument(tuple(chunks))
