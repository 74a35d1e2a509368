"""Interchange with human translators: XLIFF 1.2 and PO files written and imported (exchange_formats.py).

Importing is all-or-nothing: the file's size and unit count are bounded before it is parsed, its
header must name this benchmark and language, and every entry is checked (known and unique id,
unchanged source, a final state, each inline code once, paired tags in order, no swapped codes)
before the caller writes anything. One bad entry refuses the whole file, never a part of it.
"""

from __future__ import annotations

import stat
from pathlib import Path

from pydantic import Field
from translate.storage.xliff import ID_SEPARATOR

from babelflow.atomic_io import write_bytes_atomic
from babelflow.canonical_map import as_read
from babelflow.errors import BabelflowError
from babelflow.ir import Record
from translators.code_order import code_order_problems
from translators.exchange_formats import (
    ExchangeEntry,
    ExchangeFile,
    ExchangeFormat,
    ExchangeUnit,
    po_bytes,
    read_po,
    read_xliff,
    xliff_bytes,
)
from translators.import_bounds import ImportLimits, count_units, file_size, refuse_size
from translators.placeholders import placeholder_problems, restore

# how the export marks a machine draft (XLIFF state, PO flag): the only unfinished marks a text may keep
DRAFT_MARKS = frozenset({'state="needs-review-translation"', "#, fuzzy"})
XLIFF_SUFFIXES = (".xlf", ".xliff")
PO_SUFFIXES = (".po",)


def write_exchange(
    units: list[ExchangeUnit],
    path: Path,
    fmt: ExchangeFormat,
    source_language: str,
    target_language: str,
    benchmark: str,
) -> None:
    data = (
        xliff_bytes(units, source_language, target_language, benchmark)
        if fmt == "xliff"
        else po_bytes(units, target_language, benchmark)
    )
    write_bytes_atomic(Path(path), data)


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


def read_exchange(path: Path, limits: ImportLimits | None = None) -> ExchangeFile:
    """Every entry of an exported and edited file, with its header; size and unit count are checked first."""
    path = Path(path)
    limits = limits or ImportLimits()
    fix_size = (
        "split the file (its entries are independent) and import the parts,"
        " or raise the limit: --max-bytes / BABELFLOW_IMPORT_MAX_BYTES"
    )
    suffix = path.suffix.lower()
    if str(path) in ("", ".") or path.is_dir():  # '' reads as '.': say what was given, not "type '(none)'"
        raise BabelflowError(
            "No translation file was given (an empty path)"
            if str(path) in ("", ".")
            else "The translation file given is a folder",
            file=path,
            fix="give the .xlf/.xliff or .po file written by `babelflow export` (e.g. retail-es.xlf)",
        )
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
            raise refuse_size(path, file_size(info.st_size), file_size(limits.max_bytes), fix_size)
        with open(path, "rb") as handle:
            data = handle.read(limits.max_bytes + 1)  # a file that grows while we read is still bounded
    except OSError as exc:
        raise BabelflowError(
            f"Cannot read translation file: {exc.strerror or exc}", file=path, fix="check the path and its permissions"
        ) from exc
    if len(data) > limits.max_bytes:
        raise refuse_size(path, f"more than {file_size(limits.max_bytes)}", file_size(limits.max_bytes), fix_size)
    units = count_units(data, fmt, limits, path)
    if units > limits.max_units:
        raise BabelflowError(
            f"Translation file has more than {limits.max_units:,} units; it was not parsed and nothing was imported",
            file=path,
            field="units",
            fix="split the file and import the parts, or raise the limit: --max-units / BABELFLOW_IMPORT_MAX_UNITS",
        )
    try:
        return read_xliff(path, data) if fmt == "xliff" else read_po(path, data)
    except BabelflowError:
        raise
    except Exception as exc:  # translate-toolkit raises parser-specific types
        raise BabelflowError(
            f"Cannot read translation file: {exc}",
            file=path,
            fix="export again with `babelflow export` and edit only the targets",
        ) from exc


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
