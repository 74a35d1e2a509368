"""Layer 3, semantic fidelity: the field-pair QA catalogue (probes/pair_checks.py) on every field the
variant translates, plus checks that read the whole variant (probes/language_checks.py,
probes/pseudo_checks.py). Deterministic offline; a configured model adds judgement through the
validator agents.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

from babelflow.entity_policy import EntityRendering, entity_renderings
from validators.calibration import variant_band
from validators.checks import Scope, check
from validators.context import ValidationContext
from validators.findings import Hit, Severity
from validators.probes.pair_checks import MALFUNCTION, PAIR_KINDS, UNTRANSLATED, FieldPair, pair_hits
from validators.probes.readers import read_by_no_model

WHOLE_FILE_SHARE = 0.8  # this share of a file's texts copied through: the file was not translated at all
WHOLE_FILE_MIN = 3


@check(UNTRANSLATED, also=PAIR_KINDS[1:])
def field_pairs(ctx: ValidationContext, scope: Scope) -> Iterator[Hit]:
    """The pair catalogue on every translatable field, as the variant holds it (code texts the
    overlay holds are checked whole by pair_checks.code_text_pairs)."""
    checked: dict[str, int] = {}
    hits = names_with_numbers(list(_field_pair_hits(ctx, scope, checked)))
    yield from untranslated_files(hits, checked)


NAME_FIELDS_MIN = 3  # a number that comes with one name in this many fields is the name's own


def names_with_numbers(hits: list[Hit]) -> list[Hit]:
    """A number the target adds, with no number of the source missing, wherever the source names one
    place ('66' in every field naming 恒隆广场, whose English name is 'Center 66'): the name's rendering
    carries it. Those fields are one note naming the name, not a changed number each; a number added
    once, or with no name shared by every field adding it, stays a finding."""
    added: dict[str, list[Hit]] = {}
    for hit in hits:
        if hit.kind == "number_changed" and not hit.detail.get("source_numbers") and hit.detail.get("target_numbers"):
            added.setdefault(hit.detail["target_numbers"], []).append(hit)
    renamed: dict[int, Hit] = {}
    for number, group in added.items():
        name = _shared_name([h.source or "" for h in group])
        words = _shared_words_with(number, [h.target or "" for h in group])
        if len(group) < NAME_FIELDS_MIN or name is None or words is None:
            continue
        for hit in group:
            renamed[id(hit)] = hit.model_copy(
                update={
                    "severity": Severity.NOTE,
                    "message": f"{number!r} comes with {name!r} in all {len(group)} fields that add it: the name's "
                    f"rendering ({words!r}) carries the number",
                    "pattern": f"{number!r} with {name!r}",
                }
            )
    return [renamed.get(id(hit), hit) for hit in hits]


def _shared_name(sources: list[str]) -> str | None:
    """The longest run of two or more letters (no digit) every source holds, or None."""
    first = min(sources, key=len) if sources else ""
    for size in range(len(first), 1, -1):
        for start in range(len(first) - size + 1):
            run = first[start : start + size]
            if all(ch.isalpha() for ch in run) and all(run in s for s in sources):
                return run
    return None


def _shared_words_with(number: str, targets: list[str]) -> str | None:
    """The number with the word before or after it, as every target writes it ('Center 66'), or None."""
    for pattern in (rf"[^\W\d_]+ {re.escape(number)}\b", rf"\b{re.escape(number)} [^\W\d_]+"):
        found = [re.search(pattern, t) for t in targets]
        written = {m.group(0) for m in found if m}
        if all(found) and len(written) == 1:
            return written.pop()
    return None


def untranslated_files(hits: list[Hit], checked: dict[str, int]) -> list[Hit]:
    """A file nearly all of whose texts are copied through (a variant made elsewhere that never translated the
    tools' descriptions or the user guidelines) is one cause with one fix: its copies become one group, not one
    group per function or heading. A module some of whose texts are copied through is one cause too."""
    copies: dict[str, int] = {}
    for hit in hits:
        if hit.kind == "untranslated":
            copies[hit.artifact] = copies.get(hit.artifact, 0) + 1
    whole = {
        artifact
        for artifact, n in copies.items()
        if (n >= WHOLE_FILE_MIN and n >= WHOLE_FILE_SHARE * checked.get(artifact, n)) or n == checked.get(artifact)
    }
    out = []
    for hit in hits:
        if hit.kind == "untranslated" and hit.artifact in whole:
            n, total = copies[hit.artifact], checked.get(hit.artifact, copies[hit.artifact])
            hit = hit.model_copy(
                update={
                    "pattern": "the file is not translated",
                    "cause": "files the variant does not translate",
                    # models read these texts in English: the reading suffers, no call or score changes
                    "severity": Severity.MINOR,
                    "message": f"{n} of the {total} texts of {hit.artifact} are copied through untranslated: the"
                    " variant holds no translation of this file; translate it (--translator, or export/import)",
                }
            )
        elif hit.kind == "untranslated" and hit.artifact.endswith(".py"):
            # a module's texts left in English (a fork that kept its tools' messages) are one decision per
            # module, not one group per function
            hit = hit.model_copy(
                update={"cause": f"texts of {hit.artifact.rsplit('/', 1)[-1]} copied through untranslated"}
            )
        out.append(hit)
    return out


def _field_pair_hits(ctx: ValidationContext, scope: Scope, checked: dict[str, int]) -> Iterator[Hit]:
    pack_key = ctx.pack.model_dump_json() if ctx.pack is not None else None
    kept, kept_classes = kept_by_map(ctx), kept_by_policy(ctx)
    copied = copied_by_translator(ctx)
    localized = localized_by_map(ctx)
    for element in ctx.translatable():
        entry = (element.canonical_group or "default", element.source_text)
        if scope.skips(element) or entry in kept:
            continue  # a canonical value its class's policy keeps as it is: the map says so, nothing to translate
        current = ctx.code_target(element) if element.locator.kind == "python_literal" else ctx.target_text(element)
        if entry in localized and current == localized[entry]:
            continue  # a person or place the map localized: another one by design (its house number too)
        if element.canonical_group in kept_classes and current == element.source_text:
            continue  # the same, for a variant validated without its map: the language's policy keeps the class
        if entry in copied and current == element.source_text:
            continue  # one rendering everywhere, the code's literal included: `translator_copies` notes it once
        checked[element.artifact] = checked.get(element.artifact, 0) + 1
        if element.locator.kind == "python_literal":
            if ctx.overlay is not None and not ctx.in_overlay(element):  # the variant runs the source's text
                pair = FieldPair.of(element, element.source_text).model_copy(update={"location": _code_place(element)})
                yield from pair_hits(pair, ctx.language, ctx.pack, source_language=ctx.ir.source_language)
            continue  # the overlay's texts are checked whole
        target = ctx.target_text(element)
        if target is None:
            continue
        found = _checked_pair(element, target, ctx, pack_key)
        if localized and any(f.kind in _REDRAWN for f in found):
            found = _without_localized_values(element, target, found, localized, ctx)
        if read_by_no_model(ctx, element):
            # maintainer metadata no agent, user simulator or evaluator reads: only a broken translator counts
            found = [f for f in found if f.kind in MALFUNCTION]
        yield from found


def localized_by_map(ctx: ValidationContext) -> dict[tuple[str, str], str]:
    """(group, source) -> rendering of the map entries that localize a person or place (a new one, by design)."""
    entries = ctx.canonical_map.lookup().values() if ctx.canonical_map is not None else ()
    return {(e.group, e.source): e.target for e in entries if e.origin == "localized"}


_REDRAWN = ("number_changed", "length_ratio_outlier")  # what a localized value changes by design


def _without_localized_values(element, target: str, found: list[Hit], localized, ctx: ValidationContext) -> list[Hit]:
    """A sentence that names a localized person or address holds the new one's numbers and length: its
    numbers and length are judged without the value on either side."""
    by_value = {source: rendering for (_, source), rendering in localized.items()}
    source = element.source_text
    for token in sorted(element.inline_tokens, key=len, reverse=True):
        if token in by_value and by_value[token] in target:
            source, target = source.replace(token, " "), target.replace(by_value[token], " ")
    if source == element.source_text:
        return found
    pair = FieldPair.of(element, target, source)
    still = {h.kind for h in pair_hits(pair, ctx.language, ctx.pack, source_language=ctx.ir.source_language)}
    return [f for f in found if f.kind not in _REDRAWN or f.kind in still]


def kept_by_map(ctx: ValidationContext) -> set[tuple[str, str]]:
    """(group, source) of the map entries that keep their value by policy (an entity class kept, a value
    the translator left in source words) or that a reviewer confirmed unchanged."""
    entries = ctx.canonical_map.lookup().values() if ctx.canonical_map is not None else ()
    return {
        (e.group, e.source)
        for e in entries
        if e.target == e.source and (e.origin == "kept" or (e.origin == "reviewer" and e.review_state == "confirmed"))
    }


def copied_by_translator(ctx: ValidationContext) -> set[tuple[str, str]]:
    """(group, source) of the map entries the translator returned as they are ('5 ft', 'unisex'), or that an
    adopted variant kept as they are (SEATau keeps option values in English)."""
    entries = ctx.canonical_map.lookup().values() if ctx.canonical_map is not None else ()
    return {(e.group, e.source) for e in entries if e.target == e.source and e.origin in ("translator", "adopted")}


@check(UNTRANSLATED)
def translator_copies(ctx: ValidationContext, scope: Scope) -> Iterator[Hit]:
    """Canonical values the translator kept as they are: rendered one way everywhere (no behaviour
    risk), so one note listing them for the reviewer of the map, not a finding per occurrence."""
    kept, kept_classes, copied = kept_by_map(ctx), kept_by_policy(ctx), copied_by_translator(ctx)
    copies: dict[tuple[str, str], list] = {}  # map entries the translator returned unchanged -> their fields
    for element in ctx.translatable():
        entry = (element.canonical_group or "default", element.source_text)
        if scope.skips(element) or entry in kept or entry not in copied:
            continue
        current = ctx.code_target(element) if element.locator.kind == "python_literal" else ctx.target_text(element)
        if element.canonical_group in kept_classes and current == element.source_text:
            continue  # field_pairs' order: the language's policy keeps the class
        if current == element.source_text:
            copies.setdefault(entry, []).append(element)
    if not copies:
        return
    values = sorted(source for _, source in copies)
    first = min((elements[0] for elements in copies.values()), key=lambda e: (e.artifact, e.id))
    fields = sum(len(elements) for elements in copies.values())
    shown = ", ".join(repr(v) for v in values[:8]) + (f" and {len(values) - 8} more" if len(values) > 8 else "")
    yield Hit(
        severity=Severity.NOTE,
        artifact=first.artifact,
        location="canonical map: values the translator kept",
        message=f"{len(values)} canonical value(s) the translator kept as they are, in {fields} field(s): {shown}; "
        "each is rendered that way everywhere: a reviewer may give one a rendering in the map",
        source=values[0],
        target=values[0],
        pattern="canonical values kept by the translator",
        detail={"values": json.dumps(values, ensure_ascii=False), "fields": str(fields)},
    )


def kept_by_policy(ctx: ValidationContext) -> set[str]:
    """Canonical entity classes the language's policy keeps by default (people and places for a
    Latin-script target: babelflow/entity_policy.py); a run's --entity override is in its map."""
    if ctx.pack is None or not ctx.ir.entity_classes:
        return set()
    renderings = entity_renderings(
        ctx.ir.entity_classes,
        script=ctx.pack.script,
        pseudo=ctx.pack.offline_rendering is not None,
        pack=ctx.pack.entities,
        overrides={},
    )
    return {name for name, rendering in renderings.items() if rendering is EntityRendering.KEEP}


def _code_place(element) -> str:
    return f"{element.locator.qualname} ({element.locator.role})"


_PAIRS: dict[tuple, list[Hit]] = {}  # distinct (field kind, source, target) -> its findings, once per process


def _checked_pair(element, target: str, ctx: ValidationContext, pack_key: str | None) -> list[Hit]:
    """The checks of a field depend on its artifact, role, texts and tokens, which repeat across
    tasks (telecom: 170k fields, ~3,400 distinct texts): each combination is checked once."""
    pack = ctx.pack
    band = ctx.derived(variant_band)
    key = (
        band,
        ctx.ir.source_language,
        ctx.language,
        pack_key,
        element.artifact,
        element.role,
        element.source_text,
        target,
        tuple(element.inline_tokens),
    )
    if len(_PAIRS) > 500_000:
        _PAIRS.clear()
    found = _PAIRS.get(key)
    if found is None:
        pair = FieldPair.of(element, target)
        found = _PAIRS[key] = pair_hits(pair, ctx.language, pack, band, ctx.ir.source_language)
    if all(f.element_id == element.id for f in found):
        return list(found)
    return [hit.model_copy(update={"element_id": element.id}) for hit in found]
