"""What the real-language checks calibrate, computed from named calibration languages and passed
explicitly, so a language can be measured without having been tuned on it (held-out discipline).

- Length band. A variant's length ratios (target/source characters of prose) are read relative
  to the variant's own median, which the variant itself gives (Vietnamese ~1.0, Indonesian ~1.19,
  Chinese ~0.3): no per-language table. What is calibrated is the spread around the median,
  pooled over the calibration languages.
- English literals left in a Latin-script target. A literal a pipeline protects without context
  ('user', 'available') is kept by its translations into every language; a word one translation
  keeps wherever its source says it while the others translate it (Taglish 'order', 'zip code')
  is that language's own vocabulary. So a kept literal is ordinary vocabulary when the
  calibration languages' variants translate it (pooled keep rate < PROTECTED) and this variant
  keeps it in most of its fields; a one-off 'pending' left in one sentence stays a leak.
- Loanwords the language data lists (Vietnamese "email") are pooled from the calibration
  languages written in the measured language's script; a language measured held out
  (`excluded`) has its own list ignored: what its reviewers said about it is exactly what a
  held-out measurement must not see.

`python -m bench.real_language_validation` calibrates on three corpus languages and measures on
the fourth; the stored default (validators/data/calibration.json) is calibrated on all four.
A calibration language's variant is measured by validators/calibration_measure.py.
"""

from __future__ import annotations

import dataclasses
import re
import statistics
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

from pydantic import Field

from babelflow.ir import Record
from babelflow.language_data import LanguageData, language_data
from babelflow.text import FORMAT_SLOT

DEFAULT_PATH = Path(__file__).with_name("data") / "calibration.json"
MARGIN = (0.6, 1.5)  # the band is [p1 × 0.6, p99 × 1.5] of the spread: free translation varies, cuts do not
MIN_FIELDS = 30  # fewer measured fields than this: the variant's median falls back to the language data's
MIN_PROSE = 20  # characters of prose a field needs to be measured
PROTECTED = 0.5  # kept in at least this share of the calibration languages' fields: protected by the pipeline

# option dicts keep their length in any language (each '{' scans to the next brace: linear)
_OPTION_DICT = re.compile(r"\{[^{}]*\}")


class LanguageMeasure(Record):
    """What one calibration language's variant shows: its length ratios, and per literal of the
    benchmark, the fields whose source names it and the fields whose translation keeps it."""

    language: str
    ratios: list[float]
    kept: dict[str, tuple[int, int]] = Field(default_factory=dict, description="literal -> (kept, fields)")

    @property
    def median(self) -> float:
        return statistics.median(self.ratios)


class Calibration(Record):
    languages: list[str] = Field(description="the languages the values were computed from")
    length_spread: tuple[float, float] = Field(description="[p1, p99] of ratio / the language's median, pooled")
    fields: int = Field(description="measured fields it was computed from")
    loanwords: dict[str, list[str]] = Field(
        default_factory=dict, description="script -> English words the calibration languages in it keep as their own"
    )
    translated_literals: list[str] = Field(
        default_factory=list, description="literals the calibration languages' variants translate (keep rate < 0.5)"
    )
    excluded: list[str] = Field(default_factory=list, description="languages measured held out: own data unused")

    def band(self, median: float) -> tuple[float, float]:
        low, high = self.length_spread
        return (round(median * low * MARGIN[0], 3), round(median * high * MARGIN[1], 3))


def _is_prose(word: str) -> bool:
    """Emails, URLs, ids and numbers (anything with @, a digit, _ or ://) keep their length."""
    return not ("@" in word or "_" in word or "://" in word or any(c.isdigit() for c in word))


def prose_length(text: str) -> int:
    """Characters of prose: without format slots, option dicts, whitespace and words that are not prose."""
    return sum(len(w) for w in _OPTION_DICT.sub(" ", FORMAT_SLOT.sub("", text)).split() if _is_prose(w))


def ratio(source: str, target: str) -> float | None:
    """target/source prose characters; None when the source has too little prose to measure."""
    source_length = prose_length(source)
    if source_length < MIN_PROSE:
        return None
    return prose_length(target) / source_length


def _quantile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * (len(ordered) - 1))))]


def calibrate(measured: list[LanguageMeasure], excluded: Sequence[str] = ()) -> Calibration:
    """From the calibration languages' measurements and language data; `excluded`: the languages
    this calibration will measure held out (never among the measured)."""
    if set(excluded) & {m.language for m in measured}:
        raise ValueError("a held-out language cannot be among the calibration languages")
    normalized = [r / m.median for m in measured if m.ratios for r in m.ratios]
    names = language_data("en").loanwords  # brand names every language writes as they are
    loanwords: dict[str, set[str]] = {}
    for m in measured:
        data = language_data(m.language)
        loanwords.setdefault(data.script, set()).update(data.loanwords - names)
    kept: dict[str, list[int]] = {}
    for m in measured:
        for word, (count, fields) in m.kept.items():
            pooled = kept.setdefault(word, [0, 0])
            pooled[0], pooled[1] = pooled[0] + count, pooled[1] + fields
    return Calibration(
        languages=sorted(m.language for m in measured),
        length_spread=(round(_quantile(normalized, 0.01), 3), round(_quantile(normalized, 0.99), 3)),
        fields=len(normalized),
        loanwords={script: sorted(words) for script, words in sorted(loanwords.items())},
        translated_literals=sorted(w for w, (count, fields) in kept.items() if fields and count < PROTECTED * fields),
        excluded=sorted(excluded),
    )


def prose_pairs(ctx):
    for element in ctx.translatable():
        if element.locator.kind not in ("data_value", "markdown_block"):
            continue
        target = ctx.target_text(element)
        if target and target != element.source_text:
            yield element, target


def keep_counts(ctx, vocabulary: frozenset[str], word: re.Pattern) -> dict[str, tuple[int, int]]:
    """literal -> (fields whose translation keeps it, fields whose source names it), over prose.
    `vocabulary` and `word`: the leak check's literals and word pattern (language_checks.py)."""
    kept, fields = dict.fromkeys(vocabulary, 0), dict.fromkeys(vocabulary, 0)
    for element, target in prose_pairs(ctx):
        in_target = set(word.findall(target))
        for literal in {w for w in word.findall(element.source_text) if w.islower()} & vocabulary:
            fields[literal] += 1
            kept[literal] += literal in in_target
    return {w: (kept[w], n) for w, n in sorted(fields.items()) if n}


def calibrated_language_data(ctx, adopted: frozenset[str]) -> LanguageData:
    """The language data the leak check reads for this variant: loanwords pooled from the
    calibration languages in its script, its own list unless it is measured held out, and for a
    Latin-script target `adopted`: the literals the calibration languages translate that this variant
    keeps in most of its fields (adopted_literals: its own vocabulary, not a protected literal)."""
    data = language_data(ctx.language)
    calibration = ctx.calibration if ctx.calibration is not None else load_default()
    own = data.loanwords if ctx.language not in calibration.excluded else language_data("en").loanwords
    words = own | frozenset(calibration.loanwords.get(data.script, ()))
    if data.script == "Latn":
        words |= adopted
    return dataclasses.replace(data, loanwords=words)


def adopted_literals(ctx, vocabulary: frozenset[str], word: re.Pattern) -> frozenset[str]:
    """Literals the calibration languages' variants translate and this variant keeps in most of
    its fields: English words it has made its own (Taglish 'order', 'zip code')."""
    calibration = ctx.calibration if ctx.calibration is not None else load_default()
    translated = set(calibration.translated_literals)
    return frozenset(
        literal
        for literal, (kept, fields) in keep_counts(ctx, vocabulary, word).items()
        if literal in translated and kept >= PROTECTED * fields
    )


@lru_cache(maxsize=1)
def load_default() -> Calibration:
    return Calibration.model_validate_json(DEFAULT_PATH.read_text(encoding="utf-8"))


def variant_band(ctx) -> tuple[float, float]:
    """The length band for this variant: its own median × the calibrated spread (`ctx.derived(variant_band)`)."""
    calibration = ctx.calibration if ctx.calibration is not None else load_default()
    ratios = [r for e, t in prose_pairs(ctx) if (r := ratio(e.source_text, t)) is not None]
    median = statistics.median(ratios) if len(ratios) >= MIN_FIELDS else language_data(ctx.language).length_observed[1]
    return calibration.band(median)
