"""The code-overlay entry that replaces one Python literal of the IR with its target text."""

from __future__ import annotations

from babelflow.ir import IRElement, PythonLiteralLocator
from babelflow.variant import CodeText


def literal_overlay_text(element: IRElement, locator: PythonLiteralLocator, target: str) -> CodeText:
    """Where the literal stands in its module (qualname, role, occurrence), its source and its target."""
    return CodeText(
        module=element.artifact,
        qualname=locator.qualname,
        role=locator.role,
        occurrence=locator.occurrence,
        source=element.source_text,
        target=target,
    )
