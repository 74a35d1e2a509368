"""Interchange with human translators: XLIFF 1.2 and PO through translate-toolkit.

Each translation unit becomes one entry (id = unit key) with its context, notes (fields, canonical
group, glossary) and its protected placeholders as inline codes (`<ph id="N">original</ph>` in
XLIFF, `⟦N⟧` in PO with the originals in an extracted comment).

Importing is all-or-nothing: the file's size and unit count are bounded before it is parsed, its
header must name this benchmark and language, and every entry is checked (known and unique id,
unchanged source, a final state, each inline code once, paired tags in order, no swapped codes)
before the caller writes anything. One bad entry refuses the whole file, never a part of it.
"""

from __future__ import annotations

import io
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from lxml import etree
from pydantic import Field
from translate.storage import po, xliff
from translate.storage.placeables import StringElem
from translate.storage.placeables.xliff import Ph
from translate.storage.xliff import ID_SEPARATOR

from babelflow.atomic_io import write_bytes_atomic
from babelflow.canonical_map import CanonicalMap, as_read
from babelflow.errors import BabelflowError
from babelflow.ir import IRDocument, Record
from babelflow.text import PLACEHOLDER
from translators.code_order import code_order_problems
from translators.engine import TranslationEngine, protect_unit
from translators.placeholders import ProtectedText, placeholder_problems, restore
from translators.units import TranslationUnit, canonical_groups_of_values, extract_units

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


def exchange_units(ir: IRDocument, cmap: CanonicalMap, engine: TranslationEngine) -> list[ExchangeUnit]:
    canonical, free = extract_units(ir)
    groups = canonical_groups_of_values(ir)
    roles = {e.id: e.role for e in ir.elements}
    out = []
    for unit in canonical + free:
        protected = protect_unit(unit, cmap, groups)
        pending = engine.pending_unit(unit, protected)
        target = engine.memory.entries.get(pending.tm_key)
        if unit.kind == "canonical" and cmap.target_of(unit.canonical_group or "default", unit.text) and target is None:
            target = cmap.target_of(unit.canonical_group or "default", unit.text)
        notes = [f"context: {unit.context}", "fields: " + "; ".join(sorted({roles[i] for i in unit.element_ids})[:4])]
        if unit.canonical_group:
            notes.append(f"canonical term ({unit.canonical_group}): translate once, it is reused in every file")
        if protected.placeholders:
            notes.append(
                "inline codes: "
                + "; ".join(f"{p.index}={p.original!r}" for p in protected.placeholders)
                + " — keep every code exactly once"
            )
        out.append(ExchangeUnit(unit, protected, target, notes))
    return out


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


ExchangeFormat = Literal["xliff", "po"]


def write_exchange(
    units: list[ExchangeUnit],
    path: Path,
    fmt: ExchangeFormat,
    source_language: str,
    target_language: str,
    benchmark: str,
) -> None:
    data = (
        _xliff(units, source_language, target_language, benchmark)
        if fmt == "xliff"
        else _po(units, target_language, benchmark)
    )
    write_bytes_atomic(Path(path), data)


def _xliff(units: list[ExchangeUnit], source_language: str, target_language: str, benchmark: str) -> bytes:
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


def _po(units: list[ExchangeUnit], target_language: str, benchmark: str) -> bytes:
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


# ---- import ------------------------------------------------------------------------------------
DEFAULT_MAX_BYTES = 50 * 1024 * 1024  # tau2-telecom's es export (614 units) is 0.4 MB
DEFAULT_MAX_UNITS = 20_000  # 33x tau2-telecom's 614; 20,000 units in 49 MiB parse in ~400 MB of RSS
# XML nodes (elements, attributes, ...) or PO lines per unit allowed: tau2-telecom's es export has 13
# nodes and 11 lines per unit on average, 227 and 105 in its largest unit
NODES_PER_UNIT = 50
# XLIFF 1.2 target states that are a translator's word. No state at all also counts: our export
# writes none, and a plain editor or a tool that tracks no workflow leaves none. new and needs-*
# (translation, adaptation, l10n, review-*) say the translator is not done; an x- state has a
# meaning we cannot know. `approved` is a reviewer's sign-off on top, not required here.
FINAL_STATES = frozenset({"translated", "signed-off", "final"})
# how the export marks a machine draft (XLIFF state, PO flag): the only unfinished marks a text may keep
DRAFT_MARKS = frozenset({'state="needs-review-translation"', "#, fuzzy"})
XLIFF_SUFFIXES = (".xlf", ".xliff")
PO_SUFFIXES = (".po",)


class ImportLimits(Record):
    """Bounds checked before the file is parsed (a 200 MB XLIFF took 2.4 GB of RSS to parse)."""

    max_bytes: int = Field(default=DEFAULT_MAX_BYTES, gt=0)
    max_units: int = Field(default=DEFAULT_MAX_UNITS, gt=0)

    @property
    def max_nodes(self) -> int:
        """XML nodes or PO lines a file may have before it is parsed."""
        return self.max_units * NODES_PER_UNIT


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


class ImportProblem(Record):
    unit_key: str
    where: str
    target: str
    problems: list[str]


class PlannedEntry(Record):
    """One checked entry of the file and the fields it will set."""

    unit_key: str
    where: str
    element_ids: list[str]
    canonical_group: str | None = Field(description="set for a canonical term (it goes to the canonical map)")
    source: str = Field(description="the unit's source text (not protected)")
    target: str = Field(description="the restored target")
    kept: list[tuple[str, str]] = Field(
        default_factory=list,
        description="(source text, restored text) of its inline codes: kept verbatim, checked once each",
    )


class ImportPlan(Record):
    """What an import would change, computed before anything is written."""

    entries: list[PlannedEntry]
    empty_units: int = Field(description="entries without a target: left to the translator")
    problems: list[ImportProblem]
    unchanged: int = Field(default=0, description="entries whose target is the unit's current text: nothing to do")

    @property
    def targets(self) -> dict[str, str]:
        """element id -> target, for every field the file sets (canonical terms: all fields of the term)."""
        return {element_id: e.target for e in self.entries for element_id in e.element_ids}

    @property
    def reviewed(self) -> dict[str, str]:
        """element id -> target of free units: stored as reviewed translations."""
        return {element_id: e.target for e in self.entries if e.canonical_group is None for element_id in e.element_ids}

    @property
    def canonical(self) -> dict[tuple[str, str], str]:
        """(group, source) -> target of canonical terms: stored in the canonical map."""
        return {(e.canonical_group, e.source): e.target for e in self.entries if e.canonical_group is not None}


def _size(n: int) -> str:
    return f"{n / 2**20:.1f} MiB" if n >= 2**20 else f"{n:,} bytes"


def _refuse_size(path: Path, what: str, limit: str, fix: str) -> BabelflowError:
    return BabelflowError(
        f"Translation file is too large: {what} (limit {limit}); nothing was read", file=path, field="size", fix=fix
    )


def _count_units(data: bytes, fmt: ExchangeFormat, limits: ImportLimits, path: Path) -> int:
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


def read_exchange(path: Path, limits: ImportLimits | None = None) -> ExchangeFile:
    """Every entry of an exported and edited file, with its header; size and unit count are checked first."""
    path = Path(path)
    limits = limits or ImportLimits()
    fix_size = (
        "split the file (its entries are independent) and import the parts,"
        " or raise the limit: --max-bytes / BABELFLOW_IMPORT_MAX_BYTES"
    )
    suffix = path.suffix.lower()
    if suffix not in XLIFF_SUFFIXES + PO_SUFFIXES:
        raise BabelflowError(
            f"Unknown translation file type {path.suffix or '(none)'!r}",
            file=path,
            fix="import the .xlf/.xliff or .po file written by `babelflow export`",
        )
    fmt: ExchangeFormat = "xliff" if suffix in XLIFF_SUFFIXES else "po"
    try:
        info = path.stat()
        if not stat.S_ISREG(info.st_mode):
            raise BabelflowError(
                "Translation file is not a regular file",
                file=path,
                fix="import the file itself, not a device, pipe or folder",
            )
        if info.st_size > limits.max_bytes:
            raise _refuse_size(path, _size(info.st_size), _size(limits.max_bytes), fix_size)
        with open(path, "rb") as handle:
            data = handle.read(limits.max_bytes + 1)  # a file that grows while we read is still bounded
    except OSError as exc:
        raise BabelflowError(
            f"Cannot read translation file: {exc.strerror or exc}", file=path, fix="check the path and its permissions"
        ) from exc
    if len(data) > limits.max_bytes:
        raise _refuse_size(path, f"more than {_size(limits.max_bytes)}", _size(limits.max_bytes), fix_size)
    units = _count_units(data, fmt, limits, path)
    if units > limits.max_units:
        raise BabelflowError(
            f"Translation file has more than {limits.max_units:,} units; it was not parsed and nothing was imported",
            file=path,
            field="units",
            fix="split the file and import the parts, or raise the limit: --max-units / BABELFLOW_IMPORT_MAX_UNITS",
        )
    try:
        return _read_xliff(path, data) if fmt == "xliff" else _read_po(path, data)
    except BabelflowError:
        raise
    except Exception as exc:  # translate-toolkit raises parser-specific types
        raise BabelflowError(
            f"Cannot read translation file: {exc}",
            file=path,
            fix="export again with `babelflow export` and edit only the targets",
        ) from exc


def _read_xliff(path: Path, data: bytes) -> ExchangeFile:
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


def _read_po(path: Path, data: bytes) -> ExchangeFile:
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


def same_language(a: str, b: str) -> bool:
    """BCP 47 tags compare case-insensitively; PO headers often write es_ES for es-ES."""
    return a.replace("_", "-").casefold() == b.replace("_", "-").casefold()


def header_problems(exchange: ExchangeFile, benchmark: str, language: str) -> list[str]:
    """The file must be this benchmark's export for this language (an en-XA file imported as es is refused)."""
    problems = []
    for original in exchange.benchmarks:
        if original != benchmark:
            what = "<file original>" if exchange.fmt == "xliff" else "X-Babelflow-Benchmark header"
            problems.append(f"the file is for benchmark {original!r} ({what}), not {benchmark!r}")
    for tag in exchange.target_languages:
        if not tag:
            what = "<file target-language>" if exchange.fmt == "xliff" else "Language header"
            problems.append(f"the file does not name its target language ({what} is missing)")
        elif not same_language(tag, language):
            problems.append(f"the file's target language is {tag!r}, not {language!r} (--lang)")
    return problems


def exported_flag(item: ExchangeUnit, fmt: ExchangeFormat) -> str:
    """How the export marked the unit's target not final (as `ExchangeEntry.not_final` reads it)."""
    if fmt == "po":
        return "#, fuzzy" if item.state == "needs-review-translation" else ""
    return f'state="{item.state}"' if item.state else ""


def plan_import(units: list[ExchangeUnit], exchange: ExchangeFile, *, keep_order: bool) -> ImportPlan:
    """Check every entry (ids, duplicates, states, sources, inline codes) and restore the good ones.

    Nothing here writes; `problems` non-empty means the import must be refused as a whole."""
    by_key = {u.unit.key: u for u in units}
    seen: dict[str, str] = {}
    planned: list[PlannedEntry] = []
    problems: list[ImportProblem] = []
    empty = unchanged = 0
    for entry in exchange.entries:
        key = entry.key.rsplit(ID_SEPARATOR, 1)[-1]  # translate-toolkit may prefix the <file original>

        def refuse(*why: str, key: str = key, entry: ExchangeEntry = entry) -> None:
            problems.append(ImportProblem(unit_key=key, where=entry.where, target=entry.target, problems=list(why)))

        if key in seen:
            refuse(f"duplicate unit id: also at {seen[key]}")
            continue
        seen[key] = entry.where
        item = by_key.get(key)
        if item is None:
            refuse("unknown unit id: not exported by babelflow for this benchmark's current IR")
            continue
        if entry.source != item.protected.text:
            refuse(
                "the source text differs from this benchmark's"
                " (the file was exported from another version, or its source was edited)"
            )
            continue
        if not entry.target:
            empty += 1
            continue
        # a mark the export never writes on a text (needs-translation, obsolete #~, needs-adaptation …)
        # says the translator is not done with this unit, edited or not: refused, naming it
        if entry.not_final and entry.not_final not in DRAFT_MARKS:
            refuse(f"not a translator's final word ({entry.not_final})")
            continue
        if item.target is not None and entry.target == item.target:
            unchanged += 1  # what the unit holds now (a draft stays a draft; its state needs no change)
            continue
        if not as_read(entry.target) and as_read(item.unit.text):  # ' ' or a zero-width space emptied the field
            refuse("the target is blank (only spaces or invisible characters)")
            continue
        # the draft mark the export wrote, kept by an editor that tracks none, over an edited text: the
        # edit is the word; the mark on a text exported as finished says it is not done
        if entry.not_final and entry.not_final != exported_flag(item, exchange.fmt):
            refuse(f"not a translator's final word ({entry.not_final})")
            continue
        if entry.foreign_codes:
            names = ", ".join(entry.foreign_codes)
            refuse(f"inline elements {names} in the target: the export has only <ph> codes; keep those as they are")
            continue
        found = placeholder_problems(entry.target, item.protected)
        found = found or code_order_problems(entry.target, item.protected, keep_order=keep_order)
        if found:
            refuse(*found)
            continue
        group = (item.unit.canonical_group or "default") if item.unit.kind == "canonical" else None
        planned.append(
            PlannedEntry(
                unit_key=key,
                where=entry.where,
                element_ids=list(item.unit.element_ids),
                canonical_group=group,
                source=item.unit.text,
                target=restore(entry.target, item.protected),
                kept=[(p.original, p.restore_as) for p in item.protected.placeholders],
            )
        )
    return ImportPlan(entries=planned, empty_units=empty, problems=problems, unchanged=unchanged)
