"""Why a term's rendering may be wrong: offline signals, each with the evidence a reviewer reads.

A catalogue term is one to four words with no sentence around it, which is where rule-based and
model translators both guess: 'glass' (a material) becomes a drinking glass, 'rose gold' the verb
*rose*, '28 inch' loses its plural. Each signal below asks a tool that knows the language rather
than a list tuned per language:

* the pair's own reading of the source (babelflow/lexical_transfer.py): a word of the term read as
  a verb; a word whose bilingual dictionary offers several translations (the pick is a guess);
* the target's morphological analyser (babelflow/target_lexicon.py): words it does not know, source
  words left in (half or not translated), a verb form where a name is wanted;
* a round trip through the reverse pair: the back-translation has lost a content word of the source;
* CLDR (babel): a number + unit whose unit word is not CLDR's word for that unit in the language;
* the term base itself: two different terms of one class rendered alike.

Signals that need Apertium fire only where its pair is installed; the others hold for any language.
How much each one means is measured, not assumed (translators/terms/confidence.py).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from enum import Enum
from functools import lru_cache

from babel import Locale, UnknownLocaleError
from babel.units import format_unit
from pydantic import Field

from babelflow.apertium import apertium_binary, blocks_document, installed_modes, mode_for, read_blocks, run_apertium
from babelflow.canonical_map import as_read
from babelflow.ir import Record
from babelflow.lexical_transfer import WordTransfer, modifier_follows_noun, transfer_words
from babelflow.target_lexicon import target_lexicon
from translators.term_renderings import term_codes

_WORDS = re.compile(r"[^\W\d_]+")
_QUANTITY = re.compile(r"^(\d+(?:[.,]\d+)?)(?:\s*[-–]\s*(\d+(?:[.,]\d+)?))?\s*([^\W\d_][^\d]*)$")
_CONTENT_TAGS = frozenset({"n", "np", "adj", "vblex", "num", "adv"})


class SignalKind(str, Enum):
    UNTRANSLATED = "untranslated"
    HALF_TRANSLATED = "half_translated"
    UNKNOWN_WORD = "unknown_word"
    SOURCE_READ_AS_VERB = "source_read_as_verb"
    VERB_IN_RENDERING = "verb_in_rendering"
    SEVERAL_SENSES = "several_senses"
    ROUND_TRIP_DIFFERS = "round_trip_differs"
    SHARED_RENDERING = "shared_rendering"
    UNIT_CHANGED = "unit_changed"
    ENGLISH_WORD_ORDER = "english_word_order"
    NO_READING_GIVES_BACK = "no_reading_gives_back"
    HYPHEN_CALQUE = "hyphen_calque"


SIGNAL_MEANING: dict[SignalKind, str] = {
    SignalKind.UNTRANSLATED: "the rendering is the English term, and the target's analyser does not know its words",
    SignalKind.HALF_TRANSLATED: "an English word the target does not know is left beside translated ones",
    SignalKind.UNKNOWN_WORD: "a word of the rendering is unknown to the target's analyser",
    SignalKind.SOURCE_READ_AS_VERB: "the translator read a word of the term as a verb",
    SignalKind.VERB_IN_RENDERING: "the rendering holds a verb form where a name is wanted",
    SignalKind.SEVERAL_SENSES: "the dictionary offers other translations for a word of the term",
    SignalKind.ROUND_TRIP_DIFFERS: "translated back, the rendering lost a word of the term",
    SignalKind.SHARED_RENDERING: "another term of the class has the same rendering",
    SignalKind.UNIT_CHANGED: "the unit word is not the language's word for the unit (CLDR)",
    SignalKind.NO_READING_GIVES_BACK: "no dictionary reading of the rendering's words gives a word of the term back",
    SignalKind.HYPHEN_CALQUE: "an English hyphenated compound translated part by part ('in-ear' as 'en-oreja')",
    SignalKind.ENGLISH_WORD_ORDER: "a code or English word stays before the noun, where the language puts it after",
}


class TermSignal(Record):
    kind: SignalKind
    evidence: str = Field(description="what fired, in the reviewer's words: the reading, the alternatives, …")
    proposal: str = Field(default="", description="a rendering the evidence proposes, if any (CLDR's unit form)")


class TermDraft(Record):
    """One canonical term and the rendering proposed for it."""

    group: str
    source: str
    rendering: str


def term_signals(drafts: list[TermDraft], language: str, source_language: str = "en") -> list[list[TermSignal]]:
    """The signals of each draft, in order. Drafts kept as they are (codes) only get the class-wide ones."""
    translated = [d for d in drafts if as_read(d.rendering) != as_read(d.source) or not term_codes(d.source)]
    read = {d.source: _as_common_noun(d.source) for d in translated}
    by_read = transfer_words(list(read.values()), source_language, language)
    transfers = {source: by_read[text] for source, text in read.items() if text in by_read}
    lexicon = target_lexicon(language, source_language)
    readings = lexicon.readings(d.rendering for d in translated) if lexicon.available else {}
    backs = _back_translations([d.rendering for d in translated], language, source_language)
    back_transfers = transfer_words(list(backs.values()), source_language, language) if backs else {}
    readings_back = transfer_words([d.rendering for d in translated], language, source_language)
    shared = _shared_renderings(drafts)
    follows = modifier_follows_noun(source_language, language)
    out: list[list[TermSignal]] = []
    for draft in drafts:
        signals: list[TermSignal] = []
        words = transfers.get(draft.source, [])
        quantity = _QUANTITY.match(draft.source.strip())
        unit_word = (
            quantity.group(3).strip() if quantity and quantity.group(3).strip().casefold() in _english_units() else ""
        )
        signals += _lexicon_signals(draft, readings.get(draft.rendering), lexicon.available, words, unit_word)
        unit_signals = _unit_signal(draft, language)
        settled_unit = unit_word.casefold() if unit_word and not unit_signals else ""  # CLDR agrees with it
        signals += _transfer_signals(draft, words, settled_unit)
        if follows:
            signals += _word_order(draft)
        signals += _hyphen_calque(draft)
        back = backs.get(draft.rendering)
        if back is not None and words:
            signals += _round_trip(draft, words, back, back_transfers.get(back, []))
        if words and draft.rendering in readings_back:
            signals += _no_reading_back(draft, words, readings_back[draft.rendering])
        signals += unit_signals
        if shared.get((draft.group, as_read(draft.rendering)), [draft.source]) != [draft.source]:
            others = [s for s in shared[(draft.group, as_read(draft.rendering))] if s != draft.source]
            signals.append(TermSignal(kind=SignalKind.SHARED_RENDERING, evidence=f"also the rendering of {others!r}"))
        out.append(signals)
    return out


def _as_common_noun(term: str) -> str:
    """'Tea Kettle' as the analyser should read it: title case in a catalogue is no proper name (capitalised,
    'Tea' reads as a woman's name and is 'translated' as itself). Codes ('LED', 'USB-C') stay as they are."""
    codes = set(term_codes(term))
    words = term.split()
    if not words or not all(w[:1].isupper() or w in codes or not w[:1].isalpha() for w in words):
        return term
    return " ".join(w if w in codes else w[:1].lower() + w[1:] for w in words)


def _shared_renderings(drafts: list[TermDraft]) -> dict[tuple[str, str], list[str]]:
    by_rendering: dict[tuple[str, str], dict[str, str]] = defaultdict(dict)
    for draft in drafts:
        by_rendering[(draft.group, as_read(draft.rendering))].setdefault(as_read(draft.source), draft.source)
    return {key: sorted(sources.values()) for key, sources in by_rendering.items() if len(sources) > 1}


def _lexicon_signals(
    draft: TermDraft,
    words: list[tuple[str, tuple]] | None,
    available: bool,
    transfers: list[WordTransfer],
    unit_word: str,
) -> list[TermSignal]:
    if not available or words is None:
        return []
    codes = set(term_codes(draft.source)) | set(term_codes(draft.rendering))
    source_words = {w.casefold() for w in _WORDS.findall(draft.source)}
    unknown = [
        s
        for s, analyses in words
        if not analyses
        and _WORDS.fullmatch(s)
        and s not in codes
        and len(s) > 1
        and s.casefold() != unit_word.casefold()
    ]
    # a source word the dictionary translates but the rendering keeps ('Tea Pava': 'tea' is 'té'), even
    # where the target happens to know the spelling as a word of its own
    translatable = {
        w.surface.casefold()
        for w in transfers
        if w.read_as is not None
        and w.translations
        and all(t.lemma.casefold() != w.surface.casefold() for t in w.translations)
    }
    kept = [s for s, _ in words if s.casefold() in translatable and s not in unknown]
    left = [w for w in unknown if w.casefold() in source_words] + kept
    # beside translated words, only an English word is "left in": a name the English analyser does not know
    # either ('Altaveu de Bluetooth') is kept on purpose
    english = {w.surface.casefold() for w in transfers if w.read_as is not None}
    other = [w for w in unknown if w.casefold() not in source_words]
    signals = []
    # a word the pair's own dictionary renders as itself is a loanword the target uses ('smartphone', 'beige')
    as_itself = {
        w.surface.casefold()
        for w in transfers
        if any(t.lemma.casefold() == w.surface.casefold() for t in w.translations)
    }
    left = [w for w in left if w.casefold() not in as_itself]
    if left and as_read(draft.rendering) == as_read(draft.source):
        signals.append(TermSignal(kind=SignalKind.UNTRANSLATED, evidence=f"unknown to the analyser: {', '.join(left)}"))
    elif left := [w for w in left if w.casefold() in english or w in kept or not transfers]:
        signals.append(TermSignal(kind=SignalKind.HALF_TRANSLATED, evidence=f"English left in: {', '.join(left)}"))
    if other:
        signals.append(
            TermSignal(kind=SignalKind.UNKNOWN_WORD, evidence=f"unknown to the analyser: {', '.join(other)}")
        )
    verbs = []
    for index, (surface, analyses) in enumerate(words):
        if not analyses or not all(r.is_verb_form for r in analyses):
            continue
        before = words[index - 1][1] if index else ()
        if all("inf" in r.tags for r in analyses) and any(r.tags[:1] == ("pr",) for r in before):
            continue  # 'zapatillas de correr': an infinitive after a preposition names a use
        verbs.append(f"{surface} ({analyses[0].shown()})")
    if verbs:
        signals.append(TermSignal(kind=SignalKind.VERB_IN_RENDERING, evidence=f"read as a verb: {', '.join(verbs)}"))
    return signals


def _hyphenated(text: str) -> list[str]:
    """Words joined by hyphens ('in-ear', 'built-in'), found by splitting: a regex for them backtracks
    quadratically over a long run of letters."""
    out = []
    for token in text.split():
        token = token.strip(".,;:!?()[]'\"")
        parts = token.split("-")
        if len(parts) > 1 and all(part.isalpha() for part in parts):
            out.append(token)
    return out


def _hyphen_calque(draft: TermDraft) -> list[TermSignal]:
    """'in-ear' -> 'en-oreja', 'built-in' -> 'construido-en': the compound kept its English hyphen while
    its parts were translated one by one. A compound kept whole ('Wi-Fi') is no calque."""
    source = {as_read(h) for h in _hyphenated(draft.source)}
    if not source:
        return []
    calques = [h for h in _hyphenated(draft.rendering) if as_read(h) not in source and not term_codes(h)]
    if not calques:
        return []
    return [TermSignal(kind=SignalKind.HYPHEN_CALQUE, evidence=f"{', '.join(calques)} (from {draft.source!r})")]


def _word_order(draft: TermDraft) -> list[TermSignal]:
    """'HEPA Filtro': the source's modifier (a code, or an English word kept) first, a translated head after."""
    source_words, words = draft.source.split(), draft.rendering.split()
    if len(source_words) < 2 or len(words) < 2 or as_read(draft.rendering) == as_read(draft.source):
        return []
    first = words[0]
    if not _WORDS.search(first) or not _WORDS.search(words[1]):  # '28 pulgadas': numbers come first here too
        return []
    kept_first = as_read(first) == as_read(source_words[0]) and any(
        as_read(w) not in {as_read(s) for s in source_words} for w in words[1:]
    )
    if not kept_first:
        return []
    return [
        TermSignal(
            kind=SignalKind.ENGLISH_WORD_ORDER,
            evidence=f"{first!r} stays before {' '.join(words[1:])!r}; the language puts a modifier after its noun",
        )
    ]


def _transfer_signals(draft: TermDraft, words: list[WordTransfer], settled_unit: str = "") -> list[TermSignal]:
    signals = []
    verbs = [w for w in words if w.read_as is not None and w.read_as.is_verb_form]
    if verbs:
        shown = ", ".join(w.read_as.shown() for w in verbs if w.read_as is not None)
        signals.append(TermSignal(kind=SignalKind.SOURCE_READ_AS_VERB, evidence=f"read as {shown}"))
    several = [
        w
        for w in words
        if len({t.lemma.casefold() for t in w.translations}) > 1
        and not (settled_unit and _same_stem(w.surface.casefold(), settled_unit))  # 'degrees': CLDR settled it
    ]
    if several:
        shown = "; ".join(
            f"{w.surface}: {' / '.join(dict.fromkeys(t.lemma.casefold() for t in w.translations))}" for w in several
        )
        signals.append(TermSignal(kind=SignalKind.SEVERAL_SENSES, evidence=shown))
    return signals


def _content_lemmas(words: Iterable[WordTransfer]) -> set[str]:
    return {
        w.read_as.lemma.casefold()
        for w in words
        if w.read_as is not None and w.read_as.tags[:1] and w.read_as.tags[0] in _CONTENT_TAGS
    } | {w.surface.casefold() for w in words if w.read_as is None and _WORDS.fullmatch(w.surface)}


def _round_trip(
    draft: TermDraft, words: list[WordTransfer], back: str, back_words: list[WordTransfer]
) -> list[TermSignal]:
    lost = _content_lemmas(words) - _content_lemmas(back_words) - {c.casefold() for c in term_codes(draft.source)}
    lost = _not_given_back(lost, _WORDS.findall(as_read(back)) + [w.surface.casefold() for w in back_words])
    lost = {w for w in lost if not _bounded(w, as_read(back))}  # 't-shirt' in 'T-shirt'
    source_words = {x.casefold() for x in _WORDS.findall(draft.source)}
    unread = [w for w in _WORDS.findall(as_read(back)) if w in _WORDS.findall(as_read(draft.rendering))]
    if not lost or any(w not in source_words for w in unread):
        return []  # the reverse pair left a word of the rendering as it was: it could not read it, no evidence
    return [
        TermSignal(kind=SignalKind.ROUND_TRIP_DIFFERS, evidence=f"back: {back!r} (lost: {', '.join(sorted(lost))})")
    ]


def _same_stem(a: str, b: str) -> bool:
    """'electric' / 'electrical', 'graphic' / 'graphics': one word, another ending."""
    if a == b:
        return True
    shorter, longer = sorted((a, b), key=len)
    return len(shorter) >= 4 and (longer.startswith(shorter) or (len(shorter) >= 6 and a[:6] == b[:6]))


def _bounded(word: str, text: str) -> bool:
    return re.search(rf"(?<![^\W_]){re.escape(word)}(?![^\W_])", text) is not None


def _not_given_back(lost: set[str], given: list[str]) -> set[str]:
    return {w for w in lost if not any(_same_stem(w, g.casefold()) for g in given)}


def _no_reading_back(draft: TermDraft, words: list[WordTransfer], back: list[WordTransfer]) -> list[TermSignal]:
    """A word of the term that none of the rendering's dictionary readings gives back ('wood' from
    'bosque': forest; 'glass' from 'vaso' would come back, so the wrong sense is not caught here)."""
    if any(w.read_as is None and _WORDS.fullmatch(w.surface) for w in back):
        return []  # a word the reverse pair does not know: nothing can be said of what it reads back
    offered = {t.lemma.casefold() for w in back for t in w.translations} | {w.surface.casefold() for w in back}
    lost = _content_lemmas(words) - offered - {c.casefold() for c in term_codes(draft.source)}
    lost = _not_given_back(lost, [*offered, *_WORDS.findall(as_read(draft.rendering))])
    if not lost:
        return []
    shown = "; ".join(f"{w.surface}: {' / '.join(t.lemma for t in w.translations) or '?'}" for w in back if w.read_as)
    evidence = f"the rendering's words read back as {shown or 'nothing known'} (never: {', '.join(sorted(lost))})"
    return [TermSignal(kind=SignalKind.NO_READING_GIVES_BACK, evidence=evidence)]


def _back_translations(renderings: list[str], language: str, source_language: str) -> dict[str, str]:
    binary = apertium_binary()
    asked = list(dict.fromkeys(r for r in renderings if r.strip()))
    if binary is None or not asked:
        return {}
    try:
        mode = mode_for(language, source_language, installed_modes(binary))
    except (LookupError, ValueError):
        return {}
    if mode is None:
        return {}
    done = run_apertium(binary, mode, blocks_document(asked), 300.0)
    if done.returncode != 0:
        return {}
    blocks = read_blocks(done.stdout)
    return {text: blocks[k].strip() for k, text in enumerate(asked) if k in blocks}


@lru_cache(maxsize=1)
def _english_units() -> dict[str, frozenset[str]]:
    """English unit word ('inches', 'in', 'lbs') -> CLDR unit ids."""
    english = Locale("en")
    words: dict[str, set[str]] = defaultdict(set)
    for unit in english._data["unit_patterns"]:
        for length in ("long", "short"):
            for count in (1, 2):
                try:
                    shown = format_unit(count, unit, length=length, locale=english)
                except (KeyError, ValueError):
                    continue
                word = shown.replace(str(count), "", 1).strip().casefold()
                if len(word) >= 2 and _WORDS.fullmatch(word.replace(" ", "")):
                    words[word].add(unit)
                    if length == "short" and count == 2 and not word.endswith("s"):
                        words[word + "s"].add(unit)  # 'lbs', 'hrs': English short plurals CLDR does not write
    return {word: frozenset(units) for word, units in words.items()}


@lru_cache(maxsize=1)
def _english_symbols() -> frozenset[str]:
    """English unit abbreviations ('ft', 'lb', 'lbs', 'in'): CLDR's short forms, plural s included."""
    english = Locale("en")
    out = set()
    for unit in english._data["unit_patterns"]:
        for count in (1, 2):
            try:
                short = format_unit(count, unit, length="short", locale=english).replace(str(count), "", 1).strip()
                long = format_unit(count, unit, length="long", locale=english).replace(str(count), "", 1).strip()
            except (KeyError, ValueError):
                continue
            if short != long and _WORDS.fullmatch(short):
                out |= {short.casefold(), short.casefold() + "s"}
    return frozenset(out)


def _unit_signal(draft: TermDraft, language: str) -> list[TermSignal]:
    quantity = _QUANTITY.match(draft.source.strip())
    if quantity is None:
        return []
    units = _english_units().get(quantity.group(3).strip().casefold())
    if not units:
        return []
    if as_read(draft.rendering) == as_read(draft.source) and quantity.group(3).strip().casefold() in _english_symbols():
        return []  # a unit symbol kept as it is ('5 ft', '30-50 lbs'): read the same in the target
    try:
        locale = Locale.parse(language, sep="-")
    except (UnknownLocaleError, ValueError):
        return []
    count_text = quantity.group(2) or quantity.group(1)
    count = float(count_text.replace(",", ".")) if any(c in count_text for c in ".,") else int(count_text)
    forms, proposal = set(), ""
    for unit in sorted(units):
        for length in ("long", "short", "narrow"):
            try:
                shown = format_unit(count, unit, length=length, locale=locale)
            except (KeyError, ValueError):
                continue
            number = re.search(r"\d+(?:[.,\s\u00a0\u202f]\d+)*", shown)
            word = (shown[: number.start()] + shown[number.end() :]).strip() if number else shown.strip()
            forms.add(as_read(word))
            if length == "long" and not proposal:
                numbers = draft.source.strip()[: quantity.start(3)].strip()
                proposal = shown.replace(number.group(), numbers) if number else ""
    if not forms:
        return []
    body = as_read(re.sub(r"\d+(?:[.,]\d+)?(?:\s*[-–]\s*\d+(?:[.,]\d+)?)?", " ", draft.rendering)).strip()
    if body in forms:
        return []
    shown_forms = " / ".join(sorted(f for f in forms if f))
    return [
        TermSignal(kind=SignalKind.UNIT_CHANGED, evidence=f"CLDR's unit word here: {shown_forms}", proposal=proposal)
    ]
