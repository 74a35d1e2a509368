"""Text as HTML table cells that wrap at any width: the review material, the terms table and the failure
report are read in the Prefect UI at 1,280 px, in scripts with few spaces (Thai) and with long ids and
paths. Light (no engine import): `babelflow --help` loads the failure report's module."""

from __future__ import annotations

import html
import re

_LONG_TOKEN = re.compile(r"\S{48,}")


def breakable(text: str) -> str:
    """A zero-width space every 40 characters of a long unbroken token (a URL, an id, a JSON path)
    lets the browser wrap it instead of scrolling the page sideways."""
    return _LONG_TOKEN.sub(lambda m: "\u200b".join(m[0][i : i + 40] for i in range(0, len(m[0]), 40)), text)


def joints(text: str) -> str:
    """A place to wrap after each '/', '_' and '.' of a path or a kind ('data/tau2/domains/…',
    'tasks_en.json[*].environment.shops.S1756…_I00002.products'): six columns of the failure report, or an
    opened finding's field in the review form, do not fit 1,280 px unbroken (the form cut them at its right)."""
    return text.replace("/", "/\u200b").replace("_", "_\u200b").replace(".", ".\u200b")


# ASCII punctuation that starts Markdown markup: links and images, emphasis, code, tables, headings, HTML
_MARKUP = re.compile(r"([\\`*_\[\]()!#|~>])")


def inline(text: str | None) -> str:
    """Text as Markdown inline prose that carries no markup of its own. A variant made elsewhere (or a
    model's reasoning) may hold `<img src=…>` or `![](…)`: rendered in the UI, it would fetch from
    wherever it points the moment a reviewer opens the report, or show a link that is not ours."""
    if not text:
        return "—"
    return _MARKUP.sub(r"\\\1", html.escape(breakable(text), quote=False)).replace("\n", " ")


def fenced(text: str) -> str:
    """A fenced code block that the text cannot close: its fence is longer than any run of backticks in it."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}\n{text}\n{fence}"


def cell(text: str | None) -> str:
    """Text as one wrapping HTML table cell."""
    if not text:
        return "—"
    return html.escape(breakable(text)).replace("\n", "<br>")


def proposed_line(fixes) -> str | None:
    """A finding's proposed repair in one line, or None when it proposes none."""
    if not fixes:
        return None
    shown = "; ".join(f"{inline(fix.find)} → {inline(fix.replace)}" for fix in fixes[:3])
    more = f" and {len(fixes) - 3} more" if len(fixes) > 3 else ""
    return f"**Proposed fix:** {shown}{more} (confirming applies it to the unit's text)"
