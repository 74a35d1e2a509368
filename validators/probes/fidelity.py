"""Layer 3, semantic fidelity: a QA catalogue in the pofilter/Xbench tradition plus agent checks.

Deterministic offline; a configured model adds judgement through the validator agents.
"""

from __future__ import annotations

import json
import re
from collections import Counter

from babelflow.entity_policy import EntityRendering, entity_renderings
from babelflow.inline_codes import swapped_tokens
from babelflow.language_data import language_data, month_numbers, numbers_in, spelled_numbers
from babelflow.target_language import language_problem
from babelflow.target_lexicon import target_lexicon
from babelflow.text import (
    MODEL_ANSWER,
    PATH_LIKE,
    RLO,
    TRANSLATOR_COMMENTARY,
    WORD,
    ascii_fold,
    without_tokens,
)
from validators.calibration import ratio as prose_ratio
from validators.calibration import variant_band
from validators.context import ValidationContext
from validators.findings import Finding, Layer, Severity, SuppressedCheck, finding_id, make_finding
from validators.probes.language_checks import READ_BY_NO_MODEL, check_language
from validators.probes.prompt_entities import check_prompt_entities
from validators.probes.pseudo_checks import check_pseudo
from validators.probes.readers import read_by_no_model

_DIGITS = re.compile(r"\d+(?:[.,]\d+)*")
# an all-capital abbreviation (FAQ, ATM, PIN, APR): translations keep it as it is
# an abbreviation ('FAQ', 'SSD'), one with a suffix ('USB-C') or a measure with its unit ('1TB', '500ml'): a
# value copied as it is ('1TB SSD' as a localized option value) holds no prose to translate
_ACRONYM = re.compile(r"(?<![\w-])(?:[A-Z]{2,5}(?:-[A-Z0-9]{1,2})?s?|\d+(?:\.\d+)?[A-Za-z]{1,3})(?![\w-])")


def _without_kept_numbers(source: str, target: str) -> tuple[str, str]:
    """Both sides without the numbers the translation kept character for character.

    The pipeline hands numbers to a translator as placeholders, so "$30,000" stays "$30,000" in a
    Spanish sentence: the same number, written the source's way (read with Spanish conventions it
    would be 30, which is how it was reported as a critical change). Numbers that differ are still
    compared by value in each side's CLDR forms."""
    kept = Counter(_DIGITS.findall(source)) & Counter(_DIGITS.findall(target))
    if not kept:
        return source, target
    for number, count in kept.items():
        pattern = re.compile(rf"(?<![\d.,]){re.escape(number)}(?![\d]|[.,]\d)")
        source = pattern.sub(" ", source, count=count)
        target = pattern.sub(" ", target, count=count)
    return source, target


def _numbers_changed(source: str, target: str, language: str) -> tuple[str, str] | None:
    """Numbers compared by value in each side's CLDR forms ('$8,276.23' = '8.276,23 đô la');
    a month the source names may appear as its number ('April 2023' -> 'tháng 4 năm 2023')."""
    source_data, target_data = language_data("en"), language_data(language)
    source, target = _without_kept_numbers(source, target)
    if re.search(r"\d:\d\d", source):  # CLDR times: "2:30 AM" may become "pukul 02.30" (id)
        target = re.sub(r"\b(\d{1,2})\.(\d{2})\b", r"\1:\2", target)
    expected = Counter(numbers_in(source, source_data))
    found = Counter(numbers_in(target, target_data))
    if expected == found:
        return None
    extra = found - expected
    for month in month_numbers(source, source_data) + spelled_numbers(source, source_data):
        for form in (str(month), f"{month:02d}"):
            if extra.get(form):
                extra[form] -= 1
                break
    if +extra or +(expected - found):
        return " ".join(sorted(expected.elements())), " ".join(sorted(found.elements()))
    return None


_READ_NUMBER = re.compile(r"^(?:[$#€£]|\d[\d,]*[.:]\d|\d{4,}|\d+\s*(?:[ap]\.?m\b|[A-Za-z]))")


def _read_number(source: str, numbers: list[str], tokens: list[str]) -> bool:
    """Is a changed number one a tool, evaluator or user reads: part of a value the IR links to
    other artifacts (an inline token: ids, amounts, dates the DB or gold calls hold), or written as
    an amount, id, date, time or a count of things ($30.50, #W123, 2024, 2:30 pm, 2 shirts)?
    A percentage in prose ('not 100% sure') is none of them."""
    english = language_data("en")
    if any(n in numbers_in(token, english) for token in tokens for n in numbers):
        return True
    for match in re.finditer(r"[$#€£]?\d+(?:[.,:]\d+)*\s*\S?", source):
        if set(numbers_in(match.group(0), english)) & set(numbers) and _READ_NUMBER.search(match.group(0)):
            return True
    return False


# what a broken translator leaves in any field, read or not (not a matter of language or style)
MALFUNCTION = frozenset({"answered_not_translated", "added_commentary", "placeholder_left"})


def check_fidelity(ctx: ValidationContext, suppressed: list[SuppressedCheck]) -> list[Finding]:
    validator_id = ctx.validator_id
    skip = {s.artifact for s in suppressed if s.layer is Layer.FIDELITY}
    findings: list[Finding] = []
    pack_key = ctx.pack.model_dump_json() if ctx.pack is not None else None
    kept, kept_classes = kept_by_map(ctx), kept_by_policy(ctx)
    copied = copied_by_translator(ctx)
    copies: dict[tuple[str, str], list] = {}  # map entries the translator returned unchanged -> their fields
    for element in ctx.translatable():
        entry = (element.canonical_group or "default", element.source_text)
        if element.artifact in skip or entry in kept:
            continue  # a canonical value its class's policy keeps as it is: the map says so, nothing to translate
        unread = read_by_no_model(ctx, element)
        current = ctx.code_target(element) if element.locator.kind == "python_literal" else ctx.target_text(element)
        if element.canonical_group in kept_classes and current == element.source_text:
            continue  # the same, for a variant validated without its map: the language's policy keeps the class
        if entry in copied and current == element.source_text:
            # one rendering everywhere, the code's literal included ('Le Baratin' in a check): reported once, below
            copies.setdefault(entry, []).append(element)
            continue
        if element.locator.kind == "python_literal":
            if ctx.overlay is not None and not ctx.in_overlay(element):  # the variant runs the source's text
                source = element.source_text
                findings += check_pair(
                    validator_id,
                    element.artifact,
                    _code_place(element),
                    element.id,
                    source,
                    source,
                    list(element.inline_tokens),
                    ctx.language,
                    ctx.pack,
                )
            continue  # the overlay's texts are checked whole (below)
        target = ctx.target_text(element)
        if target is None:
            continue
        found = _checked_pair(validator_id, element, target, ctx, pack_key)
        if unread:  # maintainer metadata no agent, user simulator or evaluator reads: only a broken translator counts
            found = [f for f in found if f.kind in MALFUNCTION]
        findings += found
    findings += _copies_note(validator_id, copies)
    findings += check_language(ctx, validator_id, skip)
    # an answer or commentary in place of the translation is reported as such, not word by word
    malfunctioned = {f.element_id for f in findings if f.kind in MALFUNCTION}
    findings += [f for f in check_pseudo(ctx, validator_id, skip) if f.element_id not in malfunctioned]
    findings += check_prompt_entities(ctx, validator_id, skip)
    if ctx.overlay is not None:
        # the field itself when one translatable element sits at the text's place (a confirmed finding routes to it)
        fields: dict[tuple, list[str]] = {}
        for element in ctx.translatable():
            key = ctx.code_key(element)
            if key is not None:
                fields.setdefault(key, []).append(element.id)
        for text in ctx.overlay.texts:
            ids = fields.get((text.module, text.qualname, text.role, text.occurrence), [])
            element_id = ids[0] if len(ids) == 1 else None
            where = f"{text.qualname} ({text.role})"
            findings += check_pair(
                validator_id, text.module, where, element_id, text.source, text.target, [], ctx.language, ctx.pack
            )
    return findings


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
    """(group, source) of the map entries the translator returned as they are ('5 ft', 'unisex')."""
    entries = ctx.canonical_map.lookup().values() if ctx.canonical_map is not None else ()
    return {(e.group, e.source) for e in entries if e.target == e.source and e.origin == "translator"}


def _copies_note(validator_id: str, copies: dict[tuple[str, str], list]) -> list[Finding]:
    """Canonical values the translator kept as they are: rendered one way everywhere (no behaviour
    risk), so one note listing them for the reviewer of the map, not a finding per occurrence."""
    if not copies:
        return []
    values = sorted(source for _, source in copies)
    first = min((elements[0] for elements in copies.values()), key=lambda e: (e.artifact, e.id))
    fields = sum(len(elements) for elements in copies.values())
    shown = ", ".join(repr(v) for v in values[:8]) + (f" and {len(values) - 8} more" if len(values) > 8 else "")
    return [
        make_finding(
            validator_id,
            Layer.FIDELITY,
            "untranslated",
            Severity.NOTE,
            first.artifact,
            "canonical map: values the translator kept",
            f"{len(values)} canonical value(s) the translator kept as they are, in {fields} field(s): {shown}; "
            "each is rendered that way everywhere: a reviewer may give one a rendering in the map",
            source=values[0],
            target=values[0],
            pattern="canonical values kept by the translator",
            detail={"values": json.dumps(values, ensure_ascii=False), "fields": str(fields)},
        )
    ]


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


_PAIRS: dict[tuple, list[Finding]] = {}  # distinct (field kind, source, target) -> its findings, once per process


def _checked_pair(
    validator_id: str, element, target: str, ctx: ValidationContext, pack_key: str | None
) -> list[Finding]:
    """The checks of a field depend on its artifact, role, texts and tokens, which repeat across
    tasks (telecom: 170k fields, ~3,400 distinct texts): each combination is checked once."""
    pack = ctx.pack
    band = variant_band(ctx)
    key = (
        validator_id,
        band,
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
        found = _PAIRS[key] = check_pair(
            validator_id,
            element.artifact,
            element.role,
            element.id,
            element.source_text,
            target,
            list(element.inline_tokens),
            ctx.language,
            pack,
            band,
        )
    if all(f.element_id == element.id for f in found):
        return list(found)
    return [_for_element(f, element.id) for f in found]


def _target_words_only(prose: str, language: str) -> bool:
    lines = [line for line in (" ".join(part.split()) for part in prose.splitlines()) if WORD.search(line)]
    return bool(lines) and target_lexicon(language).known(lines) == set(lines)


def _for_element(finding: Finding, element_id: str) -> Finding:
    copy = finding.model_copy(update={"element_id": element_id}, deep=True)
    copy.id = finding_id(copy.key)
    return copy


def check_pair(
    validator_id: str,
    artifact: str,
    location: str,
    element_id: str | None,
    source: str,
    target: str,
    tokens: list[str],
    language: str,
    pack=None,
    length_band: tuple[float, float] | None = None,
) -> list[Finding]:
    """`length_band`: the variant's calibrated band (validators/calibration.py); None: the language data's."""

    def finding(kind: str, severity: Severity, message: str, **detail: str) -> Finding:
        return make_finding(
            validator_id,
            Layer.FIDELITY,
            kind,
            severity,
            artifact,
            location,
            message,
            element_id=element_id,
            source=source,
            target=target,
            detail=detail,
        )

    out: list[Finding] = []
    if "⟦" in target:
        out.append(finding("placeholder_left", Severity.CRITICAL, "an unrestored placeholder is in the translation"))
    prose = _ACRONYM.sub(" ", without_tokens(source, tokens))  # "FAQ: ⟨kept name⟩" holds no prose to translate
    if target == source and not WORD.search(prose):
        return out  # a copy of a code, an abbreviation or a measure ('USB-C', '1TB SSD'): nothing to translate
    if target == source and not PATH_LIKE.fullmatch(source.strip()):
        if _target_words_only(prose, language):
            return out  # "Total", "San Francisco": a copy the target language's own analyser reads as its words
        # metadata no model reads (task issues, descriptions) left in English is cosmetic
        severity = Severity.MINOR if any(part in location for part in READ_BY_NO_MODEL) else Severity.MAJOR
        return out + [finding("untranslated", severity, "text was copied through untranslated")]
    changed = _numbers_changed(source, target, language)
    if changed:
        read = _read_number(source, changed[0].split(), tokens)
        out.append(
            finding(
                "number_changed",
                Severity.CRITICAL if read else Severity.MAJOR,
                "numbers differ between source and translation"
                + ("" if read else " (in prose: no id, amount, date or quantity a tool or evaluator reads)"),
                source_numbers=changed[0],
                target_numbers=changed[1],
            )
        )
    for token in tokens:
        if target.count(token) > source.count(token):
            out.append(
                finding(
                    "token_duplicated",
                    Severity.MAJOR,
                    f"protected token {token!r} appears more often than in the source",
                    token=token,
                )
            )
            break
    swaps = swapped_tokens(source, target, tokens)  # "called 'Important Meeting' for user_1" -> "called 'user_1' for …"
    if swaps:
        out.append(
            finding(
                "tokens_swapped",
                Severity.CRITICAL,
                "; ".join(f"{b!r} stands where the source quotes {a!r}" for a, b in swaps),
            )
        )
    problem = None if PATH_LIKE.fullmatch(source.strip()) else language_problem(target, source, language, tokens, pack)
    if problem:
        out.append(finding("wrong_language", Severity.MAJOR, problem))
    if MODEL_ANSWER.search(ascii_fold(target)) and not MODEL_ANSWER.search(source):
        out.append(
            finding(
                "answered_not_translated", Severity.CRITICAL, "the translation reads like an answer, not a translation"
            )
        )
    if TRANSLATOR_COMMENTARY.search(ascii_fold(target)) and not TRANSLATOR_COMMENTARY.search(source):
        out.append(
            finding("added_commentary", Severity.MAJOR, "the translation adds commentary absent from the source")
        )
    ratio = prose_ratio(source, target)  # None: too little prose (ids, emails, option dicts keep their length)
    if ratio is not None:
        data = language_data(language)
        low, high = length_band if length_band is not None else data.length_band
        if not low <= ratio <= high:
            out.append(
                finding(
                    "length_ratio_outlier",
                    Severity.MAJOR,
                    f"length ratio {ratio:.2f} outside {language}'s expected ({low}, {high})",
                    ratio=f"{ratio:.2f}",
                    band_from="calibrated" if length_band is not None else data.length_source,
                )
            )
    mirrored = language == "ar-XB" or (pack is not None and pack.offline_rendering == "mirrored")
    if mirrored and RLO in target:  # each source letter run is one right-to-left run or a kept token
        words = len(WORD.findall(source))
        # runs end at or before the last PDF: an RLO after it never closes, so it is not searched
        # (each one would rescan the rest: 20,000 unclosed RLOs took 0.3 s, and the time is quadratic)
        closed = target.rfind("\u202c") + 1
        kept = len(WORD.findall(re.sub("\u202e[^\u202c]*\u202c", " ", target[:closed]) + target[closed:]))
        if words >= 4 and target.count(RLO) + kept < 0.9 * words:
            out.append(
                finding(
                    "truncated",
                    Severity.MAJOR,
                    f"{target.count(RLO) + kept} words for {words} source words: the segment was cut",
                )
            )
    accented = language == "en-XA" or (pack is not None and pack.offline_rendering == "accented")
    if accented and target.count("[") - target.count("]") != source.count("[") - source.count("]"):
        out.append(finding("truncated", Severity.MAJOR, "en-XA brackets are unbalanced: the segment was cut"))
    return out
