"""Bounds on a translation file checked before it is parsed: its size, its units and the nodes around them.

A 200 MB XLIFF took 2.4 GB of RSS to parse; 48 MiB of `<a/>` 3.1 GB. Units and nodes (XML) or lines (PO)
are counted by streaming, so an oversized file is refused before translate-toolkit reads it.
"""

from __future__ import annotations

import io
from pathlib import Path

from lxml import etree
from pydantic import Field

from babelflow.errors import BabelflowError
from babelflow.ir import Record
from translators.exchange_formats import ExchangeFormat

DEFAULT_MAX_BYTES = 50 * 1024 * 1024  # tau2-telecom's es export (614 units) is 0.4 MB
DEFAULT_MAX_UNITS = 20_000  # 33x tau2-telecom's 614; 20,000 units in 49 MiB parse in ~400 MB of RSS
# XML nodes (elements, attributes, ...) or PO lines per unit allowed: tau2-telecom's es export has 13
# nodes and 11 lines per unit on average, 227 and 105 in its largest unit
NODES_PER_UNIT = 50


class ImportLimits(Record):
    """Bounds checked before the file is parsed (a 200 MB XLIFF took 2.4 GB of RSS to parse)."""

    max_bytes: int = Field(default=DEFAULT_MAX_BYTES, gt=0)
    max_units: int = Field(default=DEFAULT_MAX_UNITS, gt=0)

    @property
    def max_nodes(self) -> int:
        """XML nodes or PO lines a file may have before it is parsed."""
        return self.max_units * NODES_PER_UNIT


def file_size(n: int) -> str:
    return f"{n / 2**20:.1f} MiB" if n >= 2**20 else f"{n:,} bytes"


def refuse_size(path: Path, what: str, limit: str, fix: str) -> BabelflowError:
    return BabelflowError(
        f"Translation file is too large: {what} (limit {limit}); nothing was read", file=path, field="size", fix=fix
    )


def count_units(data: bytes, fmt: ExchangeFormat, limits: ImportLimits, path: Path) -> int:
    """Units counted by streaming (no tree is kept), so an oversized file is refused before parsing.
    What the parser would hold besides units is bounded too (XML nodes, PO lines): 48 MiB of
    `<a/>` took 3.1 GB of RSS to parse, 48 MiB of `#a` comment lines 2.1 GB."""
    return _count_po(data, limits, path) if fmt == "po" else _count_xliff(data, limits, path)


def _too_many(path: Path, what: str, limits: ImportLimits) -> BabelflowError:
    return BabelflowError(
        f"Translation file has more than {limits.max_nodes:,} {what} ({NODES_PER_UNIT} per unit of the"
        f" {limits.max_units:,}-unit limit); it was not parsed and nothing was imported",
        file=path,
        field="units",
        fix="split the file and import the parts, or raise the limit: --max-units / BABELFLOW_IMPORT_MAX_UNITS",
    )


def _count_po(data: bytes, limits: ImportLimits, path: Path) -> int:
    """Entries as translate-toolkit's parser starts them: a line that begins with the msgid keyword
    (whatever follows it: a tab or nothing passes that parser too), or an obsolete `#~` line that
    does after any whitespace, each line decoded as that parser does (UTF-8, else Latin-1, whose
    no-break space is whitespace too)."""
    lines = data.count(b"\n") + data.count(b"\r") - data.count(b"\r\n") + 1
    if lines > limits.max_nodes:
        raise _too_many(path, "lines", limits)
    starts = 0
    header = False
    for raw in data.splitlines():
        try:
            line = raw.decode("utf-8").lstrip()
        except UnicodeDecodeError:
            line = raw.decode("latin-1").lstrip()
        if line.startswith("#~"):
            line = line[2:].lstrip()
        if line.startswith("msgid") and not line.startswith("msgid_plural"):
            header = header or (starts == 0 and line == 'msgid ""')
            starts += 1
    return starts - header  # the header is an entry with an empty msgid, not a unit


def _count_xliff(data: bytes, limits: ImportLimits, path: Path) -> int:
    """trans-units in any namespace (translate-toolkit takes its units' namespace from the root),
    and the nodes around them: elements, attributes, namespace declarations, comments, PIs."""
    count = nodes = 0
    context = etree.iterparse(
        io.BytesIO(data),
        events=("end", "start-ns", "comment", "pi"),
        resolve_entities=False,
        no_network=True,
        huge_tree=False,
        load_dtd=False,
    )
    try:
        for event, element in context:
            nodes += 1
            if event == "end":
                nodes += len(element.attrib)
                count += isinstance(element.tag, str) and element.tag.rpartition("}")[2] == "trans-unit"
                element.clear()
                while element.getprevious() is not None:  # what was read is dropped as it goes
                    del element.getparent()[0]
            if count > limits.max_units:
                return count
            if nodes > limits.max_nodes:
                raise _too_many(path, "XML nodes", limits)
    except etree.XMLSyntaxError as exc:
        raise BabelflowError(
            f"Cannot read translation file: {exc}",
            file=path,
            fix="export again with `babelflow export` and edit only the targets",
        ) from exc
    if context.root is not None and context.root.getroottree().docinfo.internalDTD is not None:
        # entity declarations: each reference would be a node of the parsed tree, uncounted here
        raise BabelflowError(
            "Translation file declares its own DTD (<!DOCTYPE … [ … ]>); the export writes none",
            file=path,
            field="DOCTYPE",
            fix="remove the DOCTYPE declaration and use the characters themselves instead of entities",
        )
    return count
