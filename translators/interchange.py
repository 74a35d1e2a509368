"""Interchange with human translators: XLIFF 1.2 and PO through translate-toolkit.

Each translation unit becomes one entry (id = unit key) with its context, notes (fields, canonical
group, glossary) and its protected placeholders as inline codes (`<ph id="N">original</ph>` in
XLIFF, `⟦N⟧` in PO with the originals in an extracted comment). Importing applies the same checks
as a model translation: a dropped, duplicated or invented inline code is a finding, never patched.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from translate.storage import po, xliff
from translate.storage.placeables import StringElem
from translate.storage.placeables.xliff import Ph

from babelflow.atomic_io import write_bytes_atomic
from babelflow.canonical_map import CanonicalMap
from babelflow.errors import BabelflowError
from babelflow.ir import IRDocument
from babelflow.text import PLACEHOLDER
from translators.engine import TranslationEngine, protect_unit
from translators.placeholders import PlaceholderError, ProtectedText, restore
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
    target: str | None  # protected target (with ⟦N⟧) from the translation memory, if any
    notes: list[str]


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
            notes.append("inline codes: " + "; ".join(f"{p.index}={p.original!r}" for p in protected.placeholders) + " — keep every code exactly once")
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


def write_exchange(units: list[ExchangeUnit], path: Path, fmt: ExchangeFormat, source_language: str, target_language: str, benchmark: str) -> None:
    data = _xliff(units, source_language, target_language, benchmark) if fmt == "xliff" else _po(units, target_language)
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
        store.addunit(entry)
    return bytes(store)


def _po(units: list[ExchangeUnit], target_language: str) -> bytes:
    store = po.pofile()
    store.updateheader(add=True, Language=target_language, X_Generator="babelflow")
    for item in units:
        entry = store.UnitClass(item.protected.text)
        entry.setcontext(item.unit.key)
        entry.target = item.target or ""
        for note in item.notes:
            entry.addnote(note, origin="developer")
        store.addunit(entry)
    return bytes(store)


@dataclass
class ImportProblem:
    unit_key: str
    element_ids: list[str]
    source: str
    target: str
    problems: list[str]


def read_exchange(path: Path) -> dict[str, str]:
    """unit key -> protected target text (⟦N⟧ codes), for every translated entry of the file."""
    path = Path(path)
    data = path.read_bytes()
    try:
        if path.suffix in (".xlf", ".xliff"):
            store = xliff.xlifffile.parsestring(data)
            return {u.getid(): _from_rich(u.rich_target) for u in store.units if u.istranslatable() and u.target}
        store = po.pofile.parsestring(data)
        return {u.getcontext(): u.target for u in store.units if not u.isheader() and u.target}
    except Exception as exc:  # translate-toolkit raises parser-specific types
        raise BabelflowError(f"Cannot read translation file: {exc}", file=path, fix="export again with `babelflow export` and edit only the targets") from exc


def import_translations(units: list[ExchangeUnit], translated: dict[str, str]) -> tuple[dict[str, str], list[ImportProblem]]:
    """(element id -> restored target for good entries, problems for broken ones)."""
    by_key = {u.unit.key: u for u in units}
    targets: dict[str, str] = {}
    problems: list[ImportProblem] = []
    for raw_key, text in translated.items():
        key = next((k for k in by_key if raw_key.endswith(k)), None)  # XLIFF ids may be prefixed by the file name
        if key is None:
            problems.append(ImportProblem(raw_key, [], "", text, ["unknown unit id: not exported by babelflow for this IR"]))
            continue
        item = by_key[key]
        try:
            restored = restore(text, item.protected)
        except PlaceholderError as exc:
            problems.append(ImportProblem(key, item.unit.element_ids, item.protected.text, text, list(exc.problems)))
            continue
        targets.update(dict.fromkeys(item.unit.element_ids, restored))
    return targets, problems
