"""XLIFF 1.2 and PO through translate-toolkit: an exchange unit written, an entry read back.

Each unit becomes one entry (id = unit key) with its notes and its protected placeholders as inline codes
(`<ph id="N">original</ph>` in XLIFF, `⟦N⟧` in PO with the originals in an extracted comment); reading
gives every entry as the file has it, with the header that names its benchmark and language.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from lxml import etree
from pydantic import Field
from translate.storage import po, xliff
from translate.storage.placeables import StringElem
from translate.storage.placeables.xliff import Ph

from babelflow.errors import BabelflowError
from babelflow.ir import Record
from babelflow.text import PLACEHOLDER
from translators.placeholders import ProtectedText
from translators.units import TranslationUnit

XLIFF_12 = "urn:oasis:names:tc:xliff:document:1.2"


class Xliff12Unit(xliff.xliffunit):
    namespace = XLIFF_12


class Xliff12File(xliff.xlifffile):
    """translate-toolkit writes XLIFF 1.1 by default; the skeleton and namespace make it 1.2."""

    UnitClass = Xliff12Unit
    namespace = XLIFF_12
    XMLskeleton = f"""<?xml version="1.0" ?>
<xliff version='1.2' xmlns='{XLIFF_12}'>
<file original='NoName' source-language='en' datatype='plaintext'>
<body>
</body>
</file>
</xliff>"""


@dataclass
class ExchangeUnit:
    unit: TranslationUnit
    protected: ProtectedText
    target: str | None  # protected target (with ⟦N⟧): the unit's current text (a draft or a human's), if any
    notes: list[str]
    # XLIFF 1.2 target state: needs-translation (no target), needs-review-translation (a machine draft),
    # translated (a human's text), final (signed off); None: not said (written without a state)
    state: str | None = None


ExchangeFormat = Literal["xliff", "po"]

# XLIFF 1.2 target states that are a translator's word. No state at all also counts: our export
# writes none, and a plain editor or a tool that tracks no workflow leaves none. new and needs-*
# (translation, adaptation, l10n, review-*) say the translator is not done; an x- state has a
# meaning we cannot know. `approved` is a reviewer's sign-off on top, not required here.
FINAL_STATES = frozenset({"translated", "signed-off", "final"})


class ExchangeEntry(Record):
    key: str = Field(description="unit id as the file gives it (XLIFF id, PO msgctxt)")
    source: str = Field(description="protected source text (⟦N⟧ codes) as the file gives it")
    target: str = Field(description="protected target; empty when the entry is not translated")
    where: str = Field(description="where in the file: 'line 42' (XLIFF) or 'entry 7' (PO)")
    not_final: str = Field(default="", description="why the target is not the translator's final word; '' = final")
    foreign_codes: list[str] = Field(default_factory=list, description="inline elements of the target other than <ph>")


class ExchangeFile(Record):
    path: Path
    fmt: ExchangeFormat
    benchmarks: list[str] = Field(description="XLIFF <file original>, PO X-Babelflow-Benchmark header (absent: [])")
    target_languages: list[str] = Field(description="XLIFF <file target-language>, PO Language header ('' = missing)")
    entries: list[ExchangeEntry]


def _rich(text: str, protected: ProtectedText) -> list[StringElem]:
    originals = {p.index: p.original for p in protected.placeholders}
    parts: list = []
    cursor = 0
    for match in PLACEHOLDER.finditer(text):
        if match.start() > cursor:
            parts.append(text[cursor : match.start()])
        index = int(match.group(1))
        parts.append(Ph(id=str(index), sub=[originals.get(index, "")]))
        cursor = match.end()
    if cursor < len(text):
        parts.append(text[cursor:])
    return [StringElem(parts)]


def _from_rich(elements) -> str:
    out = []
    for element in elements:
        for part in element.sub if isinstance(element, StringElem) else [element]:
            if isinstance(part, str):
                out.append(part)
            elif getattr(part, "id", None) is not None and type(part).__name__ != "StringElem":
                out.append(f"⟦{part.id}⟧")
            else:
                out.append(_from_rich([part]))
    return "".join(out)


def xliff_bytes(units: list[ExchangeUnit], source_language: str, target_language: str, benchmark: str) -> bytes:
    store = Xliff12File(sourcelanguage=source_language, targetlanguage=target_language)
    store.setfilename(store.getfilenode("NoName"), benchmark)
    for item in units:
        entry = store.UnitClass(item.unit.text)
        entry.setid(item.unit.key)
        entry.rich_source = _rich(item.protected.text, item.protected)
        if item.target is not None:
            entry.rich_target = _rich(item.target, item.protected)
        for note in item.notes:
            entry.addnote(note, origin="developer")
        if item.state is not None:
            target_node = entry.xmlelement.find(f"{{{XLIFF_12}}}target")
            if target_node is None:  # an untranslated unit says so: CAT tools show it as to do
                target_node = etree.SubElement(entry.xmlelement, f"{{{XLIFF_12}}}target")
                entry.xmlelement.remove(target_node)
                entry.xmlelement.find(f"{{{XLIFF_12}}}source").addnext(target_node)
            target_node.set("state", item.state)
        store.addunit(entry)
    return bytes(store)


def po_bytes(units: list[ExchangeUnit], target_language: str, benchmark: str) -> bytes:
    store = po.pofile()
    # the benchmark header lets import refuse a file of another benchmark (XLIFF: <file original>)
    store.updateheader(add=True, Language=target_language, X_Generator="babelflow", X_Babelflow_Benchmark=benchmark)
    for item in units:
        entry = store.UnitClass(item.protected.text)
        entry.setcontext(item.unit.key)
        entry.target = item.target or ""
        for note in item.notes:
            entry.addnote(note, origin="developer")
        if item.state == "needs-review-translation":  # PO's word for a draft to review: CAT tools show it so
            entry.markfuzzy(True)
        store.addunit(entry)
    return bytes(store)


def read_xliff(path: Path, data: bytes) -> ExchangeFile:
    store = xliff.xlifffile.parsestring(data)
    files = list(store.document.getroot().iter(f"{{{XLIFF_12}}}file"))
    if not files:
        raise BabelflowError(
            "Not a babelflow XLIFF 1.2 file: no <file> element",
            file=path,
            fix="export again with `babelflow export --format xliff`",
        )
    entries = []
    for unit in store.units:
        if not unit.istranslatable():
            continue
        node = unit.xmlelement
        target_node = node.find(f"{{{XLIFF_12}}}target")
        state = target_node.get("state") if target_node is not None else None
        target = _from_rich(unit.rich_target) if unit.target else ""
        not_final = "" if state is None or state in FINAL_STATES else f'state="{state}"'
        # the export writes only <ph>; a <g>, <x/>, <bpt>… a tool made would lose its text in _from_rich
        inner = [] if target_node is None else [e for e in target_node.iter() if e is not target_node]
        foreign = [_node_name(e) for e in inner]
        entries.append(
            ExchangeEntry(
                key=node.get("id") or "",
                source=_from_rich(unit.rich_source),
                target=target,
                where=f"line {node.sourceline}",
                not_final=not_final,
                foreign_codes=sorted({name for name in foreign if name != "<ph>"}),
            )
        )
    return ExchangeFile(
        path=path,
        fmt="xliff",
        benchmarks=[f.get("original") or "" for f in files],
        target_languages=[f.get("target-language") or "" for f in files],
        entries=entries,
    )


def _node_name(node) -> str:
    if isinstance(node.tag, str):
        return f"<{etree.QName(node).localname}>"
    return {
        etree.Comment: "<!-- comment -->",
        etree.Entity: f"&{node.text.strip('&;') if node.text else ''};",
        etree.PI: "<?…?>",
    }.get(node.tag, "node")


def read_po(path: Path, data: bytes) -> ExchangeFile:
    store = po.pofile.parsestring(data)
    header = store.parseheader()
    entries = []
    for number, unit in enumerate((u for u in store.units if not u.isheader()), start=1):
        flags = [flag for flag, on in (("obsolete #~ entry", unit.isobsolete()), ("#, fuzzy", unit.isfuzzy())) if on]
        entries.append(
            ExchangeEntry(
                key=unit.getcontext() or "",
                source=unit.source or "",
                target=unit.target or "",
                where=f"entry {number}",
                not_final=", ".join(flags),
            )
        )
    benchmark = header.get("X-Babelflow-Benchmark")
    return ExchangeFile(
        path=path,
        fmt="po",
        benchmarks=[benchmark] if benchmark else [],
        target_languages=[header.get("Language") or ""],
        entries=entries,
    )
