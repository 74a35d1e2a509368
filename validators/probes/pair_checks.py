"""The QA catalogue of one field pair (source text, its translation), pofilter/Xbench style.

`check_pair` runs it on a field the fidelity layer reads, a unit the review workbench shows, or an
entry an import brings; `code_text_pairs` runs it on the code overlay's texts.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from babelflow.inline_codes import swapped_tokens
from babelflow.ir import Record
from babelflow.language_data import language_data, numbers_in
from babelflow.language_pack import LanguagePack
from babelflow.target_language import language_problem
from babelflow.target_lexicon import target_lexicon
from babelflow.text import (
    MODEL_ANSWER,
    PATH_LIKE,
    RLO,
    TRANSLATOR_COMMENTARY,
    WORD,
    ascii_fold,
    comparable,
    without_tokens,
)
from validators.calibration import prose_length
from validators.calibration import ratio as prose_ratio
from validators.checks import Scope, check
from validators.context import ValidationContext
from validators.finding_kinds import PAIRED, FindingKind, Layer, Severity, declare_kind
from validators.findings import Finding, Hit, found
from validators.probes.clock_times import day_period_changes
from validators.probes.number_pairs import numbers_changed, read_number
from validators.probes.readers import READ_BY_NO_MODEL

# what a broken translator leaves in any field, read or not (not a matter of language or style)
MALFUNCTION = frozenset({"answered_not_translated", "added_commentary", "placeholder_left"})


class FieldPair(Record):
    """A source text and its translation, where they sit."""

    artifact: str
    location: str
    element_id: str | None = None
    source: str
    target: str
    tokens: tuple[str, ...] = ()

    @classmethod
    def of(cls, element, target: str, source: str | None = None) -> FieldPair:
        """An IR field's pair (`source`: the field's text when None)."""
        return cls(
            artifact=element.artifact,
            location=element.role,
            element_id=element.id,
            source=element.source_text if source is None else source,
            target=target,
            tokens=tuple(element.inline_tokens),
        )


UNTRANSLATED = declare_kind("untranslated", Layer.FIDELITY, Severity.MAJOR, PAIRED, "text copied through untranslated")


# an all-capital abbreviation (FAQ, ATM, PIN, APR): translations keep it as it is
# an abbreviation ('FAQ', 'SSD'), one with a suffix ('USB-C') or a measure with its unit ('1TB', '500ml'): a
# value copied as it is ('1TB SSD' as a localized option value) holds no prose to translate
_ACRONYM = re.compile(r"(?<![\w-])(?:[A-Z]{2,5}(?:-[A-Z0-9]{1,2})?s?|\d+(?:\.\d+)?[A-Za-z]{1,3})(?![\w-])")


def _target_words_only(prose: str, language: str) -> bool:
    lines = [line for line in (" ".join(part.split()) for part in prose.splitlines()) if WORD.search(line)]
    return bool(lines) and target_lexicon(language).known(lines) == set(lines)


@dataclass(frozen=True)
class PairSetting:
    """What a pair is judged against: the target language, the run's pack, the variant's length band."""

    language: str
    pack: LanguagePack | None = None
    length_band: tuple[float, float] | None = None  # None: the language data's
    source_language: str = "en"  # the IR's: how the source writes its numbers

    @property
    def mirrored(self) -> bool:
        return self.language == "ar-XB" or (self.pack is not None and self.pack.offline_rendering == "mirrored")

    @property
    def accented(self) -> bool:
        return self.language == "en-XA" or (self.pack is not None and self.pack.offline_rendering == "accented")


PairCheckFunction = Callable[[FieldPair, PairSetting], Iterator[Hit]]
PAIR_CHECKS: list[tuple[FindingKind, PairCheckFunction, bool]] = []  # (kind, check, runs on a copied text)


def pair_check(
    kind: str | FindingKind, severity: Severity | None = None, summary: str = "", *, copies: bool = False
) -> Callable[[PairCheckFunction], PairCheckFunction]:
    """Register a check of one field pair (fidelity, fields paired): pofilter's test of a unit. `copies`:
    it runs on a translation that is the source copied (the others judge a translation)."""
    if isinstance(kind, FindingKind):
        declared = kind
    elif severity is None or not summary:
        raise ValueError(f"pair check of {kind!r}: declare its default severity and summary")
    else:
        declared = declare_kind(kind, Layer.FIDELITY, severity, PAIRED, summary)

    def register(function: PairCheckFunction) -> PairCheckFunction:
        PAIR_CHECKS.append((declared, function, copies))
        return function

    return register


def _hit(pair: FieldPair, kind: str, severity: Severity, message: str, **detail: str) -> Hit:
    return Hit(
        kind=kind,
        severity=severity,
        artifact=pair.artifact,
        location=pair.location,
        message=message,
        element_id=pair.element_id,
        source=pair.source,
        target=pair.target,
        detail=detail,
    )


def _prose(pair: FieldPair) -> str:
    return _ACRONYM.sub(" ", without_tokens(pair.source, list(pair.tokens)))  # "FAQ: ⟨kept name⟩": no prose


def _copied(pair: FieldPair) -> bool:
    """The source copied as the translation, unless a path-like text that holds prose (judged as a translation)."""
    return pair.target == pair.source and (
        not WORD.search(_prose(pair)) or not PATH_LIKE.fullmatch(pair.source.strip())
    )


@pair_check("placeholder_left", Severity.CRITICAL, "an unrestored placeholder is in the translation", copies=True)
def placeholder_left(pair: FieldPair, setting: PairSetting) -> Iterator[Hit]:
    if "⟦" in pair.target:
        yield _hit(pair, "placeholder_left", Severity.CRITICAL, "an unrestored placeholder is in the translation")


@pair_check(UNTRANSLATED, copies=True)
def untranslated(pair: FieldPair, setting: PairSetting) -> Iterator[Hit]:
    """Prose copied through. Not a code, an abbreviation or a measure ('USB-C', '1TB SSD'); not a copy the
    target language's own analyser reads as its words ("Total", "San Francisco")."""
    prose = _prose(pair)
    if pair.target != pair.source or not WORD.search(prose) or PATH_LIKE.fullmatch(pair.source.strip()):
        return
    if _target_words_only(prose, setting.language):
        return
    # metadata no model reads (task issues, descriptions) left in English is cosmetic
    severity = Severity.MINOR if any(part in pair.location for part in READ_BY_NO_MODEL) else Severity.MAJOR
    yield _hit(pair, "untranslated", severity, "text was copied through untranslated")


@pair_check("number_changed", Severity.CRITICAL, "numbers differ between source and translation")
def number_changed(pair: FieldPair, setting: PairSetting) -> Iterator[Hit]:
    target = pair.target
    if target.endswith(f" ({pair.source})"):  # a term told apart from another by its source (term_renderings.py)
        target = target[: -len(pair.source) - 3]
    changed = numbers_changed(pair.source, target, setting.language, setting.source_language)
    if changed:
        read = read_number(pair.source, changed[0].split(), list(pair.tokens))
        yield _hit(
            pair,
            "number_changed",
            Severity.CRITICAL if read else Severity.MAJOR,
            "numbers differ between source and translation"
            + ("" if read else " (in prose: no id, amount, date or quantity a tool or evaluator reads)"),
            source_numbers=changed[0],
            target_numbers=changed[1],
        )


@pair_check("day_period_changed", Severity.MAJOR, "a clock time's half of the day is garbled or turned over")
def day_period_changed(pair: FieldPair, setting: PairSetting) -> Iterator[Hit]:
    """'10:00 AM' -> '10:00 SOY' (garbled: the digits still read as the morning) or '3:00 PM' -> '3:00'
    (twelve hours earlier: critical where the time is one a tool, evaluator or user reads)."""
    style = "accented" if setting.accented else "mirrored" if setting.mirrored else None
    target = comparable(pair.target, style)  # en-XA's 'ÞṀ' is 'PM'
    for change in day_period_changes(pair.source, target, setting.language, setting.source_language):
        moved = change.how == "other_half"
        read = moved and read_number(pair.source, numbers_in(change.time, language_data("en")), list(pair.tokens))
        yield _hit(
            pair,
            "day_period_changed",
            Severity.CRITICAL if read else Severity.MAJOR,
            f"{change.time!r} is written {change.written!r}: "
            + ("its half of the day turned over (twelve hours apart)" if moved else "its day period is garbled"),
            time=change.time,
            written=change.written,
        )


@pair_check("token_duplicated", Severity.MAJOR, "a protected token appears more often than in the source")
def token_duplicated(pair: FieldPair, setting: PairSetting) -> Iterator[Hit]:
    # a word the source also writes in lower case, capitalised by the translator, is no second token ('durian
    # pizza' -> 'durián Pizza' beside the protected 'Pizza Hut'): the source's count is then read caseless
    folded = pair.source.casefold()
    token = next(
        (t for t in pair.tokens if pair.target.count(t) > max(pair.source.count(t), folded.count(t.casefold()))),
        None,
    )
    if token is not None:
        message = f"protected token {token!r} appears more often than in the source"
        yield _hit(pair, "token_duplicated", Severity.MAJOR, message, token=token)


@pair_check("tokens_swapped", Severity.CRITICAL, "two protected values traded places (the quoted one is another)")
def tokens_swapped(pair: FieldPair, setting: PairSetting) -> Iterator[Hit]:
    # "called 'Important Meeting' for user_1" -> "called 'user_1' for …"
    swaps = swapped_tokens(pair.source, pair.target, list(pair.tokens))
    if swaps:
        message = "; ".join(f"{b!r} stands where the source quotes {a!r}" for a, b in swaps)
        yield _hit(pair, "tokens_swapped", Severity.CRITICAL, message)


@pair_check("wrong_language", Severity.MAJOR, "not written in the target language or script")
def wrong_language(pair: FieldPair, setting: PairSetting) -> Iterator[Hit]:
    if PATH_LIKE.fullmatch(pair.source.strip()):
        return
    problem = language_problem(pair.target, pair.source, setting.language, list(pair.tokens), setting.pack)
    if problem:
        yield _hit(pair, "wrong_language", Severity.MAJOR, problem)


@pair_check("answered_not_translated", Severity.CRITICAL, "the model answered instead of translating")
def answered_not_translated(pair: FieldPair, setting: PairSetting) -> Iterator[Hit]:
    if MODEL_ANSWER.search(ascii_fold(pair.target)) and not MODEL_ANSWER.search(pair.source):
        message = "the translation reads like an answer, not a translation"
        yield _hit(pair, "answered_not_translated", Severity.CRITICAL, message)


@pair_check("added_commentary", Severity.MAJOR, "the translation adds commentary")
def added_commentary(pair: FieldPair, setting: PairSetting) -> Iterator[Hit]:
    if TRANSLATOR_COMMENTARY.search(ascii_fold(pair.target)) and not TRANSLATOR_COMMENTARY.search(pair.source):
        yield _hit(pair, "added_commentary", Severity.MAJOR, "the translation adds commentary absent from the source")


_CODE = re.compile(r"(?<![\w-])[A-Z]{2,5}(?![\w-])")  # 'JFK', 'USD', 'SKU': codes keep their length
LENGTH_SLACK = 12  # source characters (a word or two) a complete short translation may differ by beyond its band


def _prose_without_codes(text: str, tokens: tuple[str, ...]) -> str:
    for token in sorted(tokens, key=len, reverse=True):
        text = text.replace(token, " ")
    return _CODE.sub(" ", text)


@pair_check("length_ratio_outlier", Severity.MAJOR, "length far outside the language's expected ratio")
def length_ratio_outlier(pair: FieldPair, setting: PairSetting) -> Iterator[Hit]:
    """The prose left once ids, codes and protected values are out (they keep their length), judged by the
    language's band with a slack of a word or two: in a short sentence one word more is a large ratio."""
    source, target = (_prose_without_codes(text, pair.tokens) for text in (pair.source, pair.target))
    ratio = prose_ratio(source, target)  # None: too little prose (ids, emails, option dicts keep their length)
    if ratio is None:
        return
    data = language_data(setting.language)
    low, high = setting.length_band if setting.length_band is not None else data.length_band
    # the slack in the target's own characters: a word or two at the language's usual ratio (0.3 for zh)
    slack = LENGTH_SLACK * data.length_observed[1] / prose_length(source)
    if not low - slack <= ratio <= high + slack:
        yield _hit(
            pair,
            "length_ratio_outlier",
            Severity.MAJOR,
            f"length ratio {ratio:.2f} outside {setting.language}'s expected ({low}, {high})",
            ratio=f"{ratio:.2f}",
            band_from="calibrated" if setting.length_band is not None else data.length_source,
        )


@pair_check("truncated", Severity.MAJOR, "the segment was cut")
def truncated(pair: FieldPair, setting: PairSetting) -> Iterator[Hit]:
    """Pseudo-locales show a cut: each source letter run is one right-to-left run or a kept token (ar-XB),
    every line keeps its brackets (en-XA)."""
    source, target = pair.source, pair.target
    if setting.mirrored and RLO in target:
        words = len(WORD.findall(source))
        # runs end at or before the last PDF: an RLO after it never closes, so it is not searched
        # (each one would rescan the rest: 20,000 unclosed RLOs took 0.3 s, and the time is quadratic)
        closed = target.rfind("\u202c") + 1
        kept = len(WORD.findall(re.sub("\u202e[^\u202c]*\u202c", " ", target[:closed]) + target[closed:]))
        if words >= 4 and target.count(RLO) + kept < 0.9 * words:
            message = f"{target.count(RLO) + kept} words for {words} source words: the segment was cut"
            yield _hit(pair, "truncated", Severity.MAJOR, message)
    if setting.accented and target.count("[") - target.count("]") != source.count("[") - source.count("]"):
        yield _hit(pair, "truncated", Severity.MAJOR, "en-XA brackets are unbalanced: the segment was cut")


# the kinds the catalogue raises, `untranslated` first: the fidelity checks running it declare them
PAIR_KINDS = (UNTRANSLATED, *(kind for kind, _, _ in PAIR_CHECKS if kind is not UNTRANSLATED))


def pair_hits(
    pair: FieldPair,
    language: str,
    pack=None,
    length_band: tuple[float, float] | None = None,
    source_language: str = "en",
) -> list[Hit]:
    """Every registered pair check on `pair`; on a copied text only those that read copies."""
    setting, copied = PairSetting(language, pack, length_band, source_language), _copied(pair)
    return [hit for _, check_of, copies in PAIR_CHECKS if copies or not copied for hit in check_of(pair, setting)]


def check_pair(
    validator_id: str,
    pair: FieldPair,
    language: str,
    pack=None,
    length_band: tuple[float, float] | None = None,
    source_language: str = "en",
) -> list[Finding]:
    """The catalogue's findings on `pair`. `length_band`: the variant's calibrated band
    (validators/calibration.py); None: the language data's."""
    kinds = {kind.name: kind for kind in PAIR_KINDS}
    hits = pair_hits(pair, language, pack, length_band, source_language)
    return [found(kinds[hit.kind or ""], validator_id, hit) for hit in hits]


@check(UNTRANSLATED, also=PAIR_KINDS[1:])
def code_text_pairs(ctx: ValidationContext, scope: Scope) -> Iterator[Hit]:
    """The code overlay's texts, checked whole (the fields of a docstring are its parts)."""
    if ctx.overlay is None:
        return
    # the field itself when one translatable element sits at the text's place (a confirmed finding routes to it)
    fields: dict[tuple, list[str]] = {}
    for element in ctx.translatable():
        key = ctx.code_key(element)
        if key is not None:
            fields.setdefault(key, []).append(element.id)
    for text in ctx.overlay.texts:
        ids = fields.get((text.module, text.qualname, text.role, text.occurrence), [])
        pair = FieldPair(
            artifact=text.module,
            location=f"{text.qualname} ({text.role})",
            element_id=ids[0] if len(ids) == 1 else None,
            source=text.source,
            target=text.target,
            tokens=tuple(text.slots or ()),  # its format slots are code, not words in a language
        )
        yield from pair_hits(pair, ctx.language, ctx.pack, source_language=ctx.ir.source_language)
