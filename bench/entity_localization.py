"""How far a built variant localized the benchmark's entities (issue 23), and whether its prose follows.

    python -m bench.entity_localization BENCH --lang L [--variant DIR] [--json FILE] [--worst N]

The variant is the one `babelflow adapt BENCH --lang L` builds (adapted/BENCH/L, or --variant), read
with its canonical map (canonical_maps/BENCH/L.json) and the IR it was built from (the saved IR in the
state folder when the manifest's hash names it, else the default profile's analysis).

1. Localized share. The source DB's distinct *word values* are the strings of the IR's elements of
   the DB artifacts (data values, not keys) that name something in words: product names, option
   values (colours, materials, sizes), cities, people's names, statuses. Excluded, as issue 23 counts
   them: a value with no letter; with a digit (ids, numbers, dates, addresses with a house number,
   codes such as 'EHGLP3'); with '@', '://' or '_' (emails, URLs, identifiers such as 'credit_card');
   whose letters are all capitals (abbreviations and codes: 'USA', 'CA', 'JFK'); and any value the IR
   preserves as an identifier, email/URL, number or date. A value belongs to the entity class whose
   profile entry typed one of its elements (typing rule 'entity NAME: ...'), else to '(no class)'.
   A value is *localized* when the variant holds, where the source held it, a text that does not read
   the same (babelflow.canonical_map.as_read: case, Unicode form and spacing do not count). A value is
   *rendered more than one way* when its DB locations hold more than one distinct text in the variant:
   one value, one rendering, so this must be 0.
2. Prose follows the map. For each localized value of the canonical map (an entity class's entry
   whose target does not read as its source), every mention in the source's Translate-Free elements
   (task instructions, descriptions, nl_assertions, policy documents, tool docstrings) is found
   case-insensitively between word boundaries; longer values match first, so 'Bluetooth Speaker' is
   one mention, not also one of 'Bluetooth'. A mention is *left in English* when the same element's
   variant text still holds that value there (counted per element: min(mentions in the source,
   occurrences in the variant)). Acceptance (issue 23): at most 2% of mentions left in English.
   Longer names that contain a value are matched first and are no mention of it ('229 Maple Drive'
   is an address, not the colour 'maple'; 'battery life' is an option key, which stays; 'no longer
   needed' is a cancel reason the code compares, which the prose keeps as an inline token). A value
   spelt like a value the variant keeps (the colour 'brown', the surname 'Brown') or like a word of
   the target language (the option 'no' in Spanish prose, asked of Apertium's analyser) is
   *ambiguous*: its mentions are reported apart and are not part of the rate.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Collection
from pathlib import Path

from pydantic import Field
from rich.console import Console
from rich.table import Table

from babelflow.atomic_io import sha256_file
from babelflow.canonical_map import CanonicalMap, as_read, load_canonical_map, map_exists
from babelflow.errors import BabelflowError
from babelflow.ir import (
    ArtifactRole,
    DataValueLocator,
    IRDocument,
    IRElement,
    PreserveReason,
    Record,
    TranslationType,
    load_ir,
)
from babelflow.settings import BabelflowSettings
from babelflow.variant import MANIFEST_NAME, load_manifest
from source_benchmarks import get_benchmark
from validators.context import ValidationContext

NO_CLASS = "(no class)"
_LETTER = re.compile(r"[^\W\d_]")
_DIGIT = re.compile(r"\d")
_ID_REASONS = {PreserveReason.IDENTIFIER, PreserveReason.EMAIL_URL, PreserveReason.NUMBER, PreserveReason.DATE_TIME}
_RULE = re.compile(r"entity ([^:]+):")


def is_word_value(text: str) -> bool:
    """The shape filter of the module docstring (the IR's preserve reasons are checked by the caller)."""
    if not _LETTER.search(text) or _DIGIT.search(text):
        return False
    if "@" in text or "://" in text or "_" in text:
        return False
    letters = [c for c in text if c.isalpha()]
    return not all(c.isupper() for c in letters)


def entity_class_of(element: IRElement) -> str | None:
    match = _RULE.match(element.typing_rule)
    return match.group(1) if match else None


# ---- records ---------------------------------------------------------------------------------


class ValueRendering(Record):
    value: str
    entity_class: str
    renderings: list[str] = Field(description="distinct variant texts at the value's DB locations")
    localized: bool
    missing: int = Field(default=0, description="DB locations the variant no longer has")


class ClassShare(Record):
    entity_class: str
    kind: str
    values: int
    localized: int
    multi_rendered: int
    examples: list[str] = Field(default_factory=list)


class ProseMention(Record):
    value: str
    target: str
    entity_class: str
    mentions: int
    left_in_english: int
    elements: int
    ambiguous: str = Field(default="", description="why a mention left as it is may not be English; '': it is")
    example: str = ""


class LocalizationReport(Record):
    benchmark: str
    language: str
    variant: str
    db_values: int
    localized: int
    multi_rendered: int
    classes: list[ClassShare]
    multi_rendered_values: list[ValueRendering]
    map_localized_values: int
    prose_elements: int
    mentions: int = Field(description="mentions of localized values that can only be English (not ambiguous)")
    left_in_english: int
    ambiguous_mentions: int = 0
    ambiguous_left: int = 0
    prose: list[ProseMention]
    seconds: float

    @property
    def localized_pct(self) -> float:
        return 100.0 * self.localized / self.db_values if self.db_values else 0.0

    @property
    def english_pct(self) -> float:
        return 100.0 * self.left_in_english / self.mentions if self.mentions else 0.0


# ---- measurement -----------------------------------------------------------------------------


def variant_ir(settings: BabelflowSettings, benchmark: str, variant: Path, console: Console) -> IRDocument:
    """The IR the variant was built from: the saved one when the manifest names its hash."""
    saved = settings.layout.ir(benchmark)
    manifest = load_manifest(variant) if (variant / MANIFEST_NAME).exists() else None
    if saved.exists() and (manifest is None or manifest.ir_sha256 == sha256_file(saved)):
        return load_ir(saved, benchmark=benchmark)
    from flows.components import analyze_or_reuse  # noqa: PLC0415 - only when the saved IR is not the variant's

    console.log(f"{benchmark}: the saved IR is not the one the variant names; analysing with the default profile")
    ir = analyze_or_reuse(get_benchmark(benchmark), None, saved, lambda line: None)
    if manifest is not None and manifest.ir_sha256 not in (sha256_file(saved), ir.content_sha256()):
        console.log(f"[yellow]{benchmark}: the variant was built from another IR (another profile?): check the numbers")
    return ir


def db_values(ir: IRDocument) -> dict[str, list[IRElement]]:
    """word value -> its DB elements (data values only)."""
    db_artifacts = {a.path for a in ir.artifacts if a.role is ArtifactRole.DATABASE}
    values: dict[str, list[IRElement]] = defaultdict(list)
    excluded: set[str] = set()
    for element in ir.elements:
        if element.artifact not in db_artifacts or not isinstance(element.locator, DataValueLocator):
            continue
        if element.preserve_reason in _ID_REASONS:
            excluded.add(element.source_text)
        if is_word_value(element.source_text):
            values[element.source_text].append(element)
    return {v: es for v, es in values.items() if v not in excluded}


def render_values(ctx: ValidationContext, values: dict[str, list[IRElement]]) -> list[ValueRendering]:
    out = []
    for value, elements in sorted(values.items()):
        classes = [c for c in (entity_class_of(e) for e in elements) if c]
        texts = [ctx.target_text(e) for e in elements]
        renderings = sorted({t for t in texts if t is not None})
        out.append(
            ValueRendering(
                value=value,
                entity_class=Counter(classes).most_common(1)[0][0] if classes else NO_CLASS,
                renderings=renderings,
                localized=any(as_read(t) != as_read(value) for t in renderings),
                missing=sum(t is None for t in texts),
            )
        )
    return out


def _mention_pattern(values: list[str]) -> re.Pattern[str]:
    # longest first: a longer value's mention is not also counted as a shorter one's inside it
    alternatives = "|".join(re.escape(v) for v in sorted(values, key=len, reverse=True))
    return re.compile(rf"(?<!\w)(?:{alternatives})(?!\w)", re.IGNORECASE)


def _shields(ir: IRDocument, cmap: CanonicalMap, localized: re.Pattern[str]) -> set[str]:
    """Longer names that contain a localized value and are not that value: DB strings (values and keys,
    e.g. '229 Maple Drive', 'battery life'), map sources kept whole ('Wireless Earbuds') and the tokens the
    IR keeps inside prose (the cancel reason 'no longer needed', a code literal). Matched
    first, they make 'Maple' in an address or 'battery' in an option key no mention of the colour
    'maple' or the option 'battery'."""
    db_artifacts = {a.path for a in ir.artifacts if a.role is ArtifactRole.DATABASE}
    candidates = {e.source_text for e in ir.elements if e.artifact in db_artifacts and len(e.source_text) < 80}
    candidates |= {e.source for e in cmap.entries}
    candidates |= {t for e in ir.elements for t in e.inline_tokens}  # what the prose keeps: 'no longer needed'
    return {c for c in candidates if (m := localized.search(c)) is not None and m.group(0) != c}


def _ambiguity(
    ctx: ValidationContext, cmap: CanonicalMap, sources: dict[str, str], kept_values: Collection[str]
) -> dict[str, str]:
    """source (casefolded) -> why a mention of it left as it is may not be English: the same word is also a
    value the variant keeps (the colour 'brown' and the surname 'Brown'), or a word of the target language
    that its own analyser knows (the option value 'no' inside Spanish prose: babelflow/target_lexicon.py)."""
    from babelflow.target_lexicon import target_lexicon  # noqa: PLC0415 - finds Apertium once, only here

    kept = {v.casefold() for v in kept_values} | {
        e.source.casefold() for e in cmap.entries if as_read(e.target) == as_read(e.source)
    }
    why = {key: "also a kept value" for key in sources if key in kept}
    known = target_lexicon(ctx.language).known(v for k, v in sources.items() if k not in why)
    why.update({k: f"a word of {ctx.language}" for k, v in sources.items() if v in known and k not in why})
    return why


def prose_mentions(
    ctx: ValidationContext, cmap: CanonicalMap | None, class_names: set[str], kept_values: Collection[str] = ()
) -> tuple[int, list[ProseMention], int]:
    """(Translate-Free elements read, per localized map value its mentions and those left in English,
    mentions whose element the variant no longer has). `kept_values`: DB word values the variant keeps."""
    localized: dict[str, tuple[str, str]] = {}  # source casefolded -> (target, class)
    sources: dict[str, str] = {}
    for entry in cmap.lookup().values() if cmap is not None else ():
        if entry.group in class_names and as_read(entry.target) != as_read(entry.source):
            localized.setdefault(entry.source.casefold(), (entry.target, entry.group))
            sources.setdefault(entry.source.casefold(), entry.source)
    prose = [e for e in ctx.ir.elements if e.translation_type is TranslationType.TRANSLATE_FREE]
    if not localized or cmap is None:
        return len(prose), [], 0
    shields = _shields(ctx.ir, cmap, _mention_pattern(list(sources.values())))
    pattern = _mention_pattern([*sources.values(), *shields])
    ambiguous = _ambiguity(ctx, cmap, sources, kept_values)
    mentions: Counter[str] = Counter()
    english: Counter[str] = Counter()
    elements: Counter[str] = Counter()
    examples: dict[str, str] = {}
    unreadable = 0

    def found_in(text: str) -> Counter[str]:
        return Counter(k for m in pattern.finditer(text) if (k := m.group(0).casefold()) in localized)

    for element in prose:
        found = found_in(element.source_text)
        if not found:
            continue
        text = ctx.code_target(element) if element.locator.kind == "python_literal" else ctx.target_text(element)
        if text is None:
            unreadable += sum(found.values())
            continue
        left = found_in(text)
        for key, count in found.items():
            mentions[key] += count
            elements[key] += 1
            still = min(count, left.get(key, 0))
            if still:
                english[key] += still
                examples.setdefault(key, f"{element.role}: {_snippet(text, sources[key])}")
    rows = [
        ProseMention(
            value=sources[key],
            target=localized[key][0],
            entity_class=localized[key][1],
            mentions=mentions[key],
            left_in_english=english[key],
            elements=elements[key],
            ambiguous=ambiguous.get(key, ""),
            example=examples.get(key, ""),
        )
        for key in mentions
    ]
    rows.sort(key=lambda r: (bool(r.ambiguous), -r.left_in_english, -r.mentions, r.value))
    return len(prose), rows, unreadable


def _snippet(text: str, value: str, width: int = 60) -> str:
    match = re.search(rf"(?<!\w){re.escape(value)}(?!\w)", text, re.IGNORECASE)
    if match is None:
        return text[:width]
    start = max(0, match.start() - width // 2)
    return ("…" if start else "") + " ".join(text[start : match.end() + width // 2].split()) + "…"


def measure(
    benchmark: str,
    language: str,
    variant: Path | None = None,
    console: Console | None = None,
    settings: BabelflowSettings | None = None,
) -> LocalizationReport:
    """`settings`: whose state folder, canonical maps and adapted/ to read (default: the current project's)."""
    console = console or Console(stderr=True)
    started = time.perf_counter()
    settings = settings or BabelflowSettings()
    layout = settings.layout
    variant_dir = layout.variant(benchmark, language, variant)
    if not variant_dir.is_dir():
        raise BabelflowError(
            f"no variant of {benchmark} in {language} at {variant_dir}",
            file=variant_dir,
            fix=f"build it: babelflow adapt {benchmark} --lang {language} (or pass --variant DIR)",
        )
    ir = variant_ir(settings, benchmark, variant_dir, console)
    map_path = layout.canonical_map(benchmark, language)
    cmap = load_canonical_map(map_path, benchmark, language) if map_exists(map_path) else None
    ctx = ValidationContext(get_benchmark(benchmark), variant_dir, ir, language, cmap)
    rendered = render_values(ctx, db_values(ir))
    kinds = {c.name: c.kind.value for c in ir.entity_classes}
    by_class: dict[str, list[ValueRendering]] = defaultdict(list)
    for row in rendered:
        by_class[row.entity_class].append(row)
    classes = [
        ClassShare(
            entity_class=name,
            kind=kinds.get(name, "-"),
            values=len(rows),
            localized=sum(r.localized for r in rows),
            multi_rendered=sum(len(r.renderings) > 1 for r in rows),
            examples=[f"{r.value} → {r.renderings[0]}" for r in rows if r.localized][:2] or [r.value for r in rows][:2],
        )
        for name, rows in sorted(by_class.items(), key=lambda kv: (kv[0] == NO_CLASS, kv[0]))
    ]
    kept = {r.value for r in rendered if not r.localized}
    read, prose, unreadable = prose_mentions(ctx, cmap, set(kinds), kept)
    sure = [r for r in prose if not r.ambiguous]
    if unreadable:
        console.log(f"[yellow]{unreadable} mentions sit in elements the variant no longer has (not counted)")
    return LocalizationReport(
        benchmark=benchmark,
        language=language,
        variant=str(variant_dir),
        db_values=len(rendered),
        localized=sum(r.localized for r in rendered),
        multi_rendered=sum(len(r.renderings) > 1 for r in rendered),
        classes=classes,
        multi_rendered_values=[r for r in rendered if len(r.renderings) > 1],
        map_localized_values=sum(1 for _ in prose),
        prose_elements=read,
        mentions=sum(r.mentions for r in sure),
        left_in_english=sum(r.left_in_english for r in sure),
        ambiguous_mentions=sum(r.mentions for r in prose if r.ambiguous),
        ambiguous_left=sum(r.left_in_english for r in prose if r.ambiguous),
        prose=prose,
        seconds=time.perf_counter() - started,
    )


def _pct(part: int, whole: int) -> str:
    return f"{100.0 * part / whole:.1f}%" if whole else "-"


def render(report: LocalizationReport, console: Console, worst: int = 10) -> None:
    table = Table(title=f"{report.benchmark} {report.language}: DB word values rendered in the target language")
    for column in ("entity class", "kind", "values", "localized", "share", ">1 rendering", "example"):
        table.add_column(column, justify="left" if column in ("entity class", "kind", "example") else "right")
    for c in report.classes:
        table.add_row(
            c.entity_class,
            c.kind,
            str(c.values),
            str(c.localized),
            _pct(c.localized, c.values),
            str(c.multi_rendered),
            "; ".join(c.examples),
        )
    table.add_section()
    table.add_row(
        "total", "", str(report.db_values), str(report.localized), _pct(report.localized, report.db_values),
        str(report.multi_rendered), "",
    )  # fmt: skip
    console.print(table)
    for row in report.multi_rendered_values[:worst]:
        console.print(f"  rendered {len(row.renderings)} ways: {row.value!r} → {row.renderings[:4]}")
    console.print(
        f"prose follows the map: {report.map_localized_values} localized values mentioned in "
        f"{report.prose_elements:,} Translate-Free elements: {report.mentions:,} mentions, "
        f"{report.left_in_english:,} left in English ({_pct(report.left_in_english, report.mentions)}); "
        f"besides, {report.ambiguous_mentions:,} mentions of ambiguous values ({report.ambiguous_left:,} left as "
        "they are: a kept value or a target-language word of the same spelling)"
    )
    shown = [r for r in report.prose if r.left_in_english][:worst]  # unambiguous first
    if shown:
        worst_table = Table(title="worst: mentions left in English")
        for column in ("value", "rendering", "class", "mentions", "left", "ambiguous", "example (variant text)"):
            worst_table.add_column(column, overflow="fold")
        for r in shown:
            worst_table.add_row(
                r.value, r.target, r.entity_class, str(r.mentions), str(r.left_in_english), r.ambiguous, r.example
            )
        console.print(worst_table)
    console.print(f"[dim]{report.seconds:.1f} s[/]")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.entity_localization", description=__doc__.split("\n")[0])
    parser.add_argument("benchmark")
    parser.add_argument("--lang", required=True)
    parser.add_argument("--variant", type=Path, default=None)
    parser.add_argument("--json", type=Path, default=None, help="write the report here")
    parser.add_argument("--worst", type=int, default=10, help="examples shown")
    args = parser.parse_args(argv)
    console = Console(width=160)
    try:
        report = measure(args.benchmark, args.lang, args.variant, Console(stderr=True))
    except BabelflowError as exc:
        print(f"error: {exc.message}" + (f" fix: {exc.fix}" if exc.fix else ""), file=sys.stderr)
        return 2
    render(report, console, args.worst)
    if args.json:
        args.json.write_text(report.model_dump_json(indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
