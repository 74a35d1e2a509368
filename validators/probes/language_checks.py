"""Fidelity checks that need the whole variant and the target language, not one field pair.

- source words left: English words inside target text. In a script other than Latin any
  lowercase English word of the source is a leak; in a Latin-script target only the benchmark's
  own literals (status and option values, DB field words such as "available") are, minus the
  language's loanwords, plus whole English clauses a language identifier (lingua) confirms.
  Protected tokens, names, kept values written as values ({'color': 'blue'}), units after a
  number and glossary keeps are never leaks.
- status rendering in ordinary prose: the variant's rendering of a status value (learned from
  where the source quotes it, e.g. policy 'delivered') forced into a sentence where the source
  uses the word as an ordinary verb ("to be delivered to Suite 641").
- spacing around inserted terms, in scripts written without spaces between words.

Findings carry a `pattern` (the word, the status, the term), so a reviewer sees one group per
defect with all its occurrences.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from babelflow.apertium import passes_unknown_words
from babelflow.ir import PreserveReason, TranslationType
from babelflow.language_data import LanguageData, language_data
from babelflow.language_id import identify, supported
from babelflow.spelling_dictionary import spelling_dictionary
from babelflow.target_lexicon import target_lexicon
from validators.calibration import adopted_literals, calibrated_language_data
from validators.checks import Scope, check
from validators.context import ValidationContext
from validators.finding_kinds import PAIRED, Layer, Severity, declare_kind, declare_kinds
from validators.findings import Hit
from validators.probes.readers import READ_BY_NO_MODEL, read_by_no_model
from validators.probes.register import Register, register_of
from validators.probes.spacing import inserted_terms
from validators.probes.status_words import field_hit, spacing_around, status_doubled, status_in_prose, status_renderings

_LATIN = "A-Za-z\u00c0-\u024f\u1e00-\u1eff"
_WORD = re.compile(rf"(?<![{_LATIN}0-9_@#./\\-])[A-Za-z]+(?:['-][A-Za-z]+)*(?![{_LATIN}0-9_@/\\])")
# Masked before looking for words: a {slot} or [link text] (across spaces), and the rest of a
# whitespace-separated run from where it holds an email (x@y), a URL or one of _ # /. One pattern
# (r"\{[^{}]*\}|\[[^\[\]]*\]|\S+@\S+|https?://\S+|\S*[_#/]\S*") did this, but it rescanned the
# run from every position (20,000 letters: 8 s); _masked() reads each run once, with the same spans.
_BRACED = re.compile(r"\{[^{}]*\}|\[[^\[\]]*\]")
_BRACE = re.compile(r"[{\[]")
_SPACE = re.compile(r"\s")
_NON_SPACE = re.compile(r"\S")
# In a Latin-script target, kept catalogue values (colours, materials) are indistinguishable from
# loanwords (Taglish "waterproof", Vietnamese "cotton"): only code literals count there.
_VALUE_REASONS = {PreserveReason.ENUM_CODE}


def _is_pseudo(ctx: ValidationContext) -> bool:
    return ctx.language in ("en-XA", "ar-XB") or (ctx.pack is not None and ctx.pack.offline_rendering is not None)


STATUS_RENDERING_IN_PROSE, STATUS_RENDERING_DOUBLED, SPACING_ARTIFACT = declare_kinds(
    Layer.FIDELITY,
    PAIRED,
    ("status_rendering_in_prose", Severity.MAJOR, "a status value's rendering used as an ordinary word"),
    ("status_rendering_doubled", Severity.MINOR, "a status value rendered twice side by side"),
    ("spacing_artifact", Severity.MINOR, "spaces inside a script that writes none"),
)
SOURCE_WORDS_LEFT = declare_kind(
    "source_words_left", Layer.FIDELITY, Severity.MAJOR, PAIRED, "source-language words left in the translation"
)


@check(SOURCE_WORDS_LEFT, also=(STATUS_RENDERING_IN_PROSE, STATUS_RENDERING_DOUBLED, SPACING_ARTIFACT))
def source_words_left(ctx: ValidationContext, scope: Scope) -> Iterator[Hit]:
    """English left in a real language's text, and the status and spacing defects found on the way."""
    if _is_pseudo(ctx) or ctx.language.split("-")[0] == "en":
        return  # pseudo-locales are judged by their rendering; English targets cannot leak English
    vocabulary = _literal_vocabulary(ctx)
    # literals other languages' variants translate and this one keeps: its own words, and evidence of its register
    adopted = adopted_literals(ctx, vocabulary, _WORD) if language_data(ctx.language).script == "Latn" else frozenset()
    # loanwords from the calibration (held out: not its own list; literals other languages translate)
    data = calibrated_language_data(ctx, adopted)
    elements = [
        e
        for e in ctx.translatable()
        if not scope.skips(e)
        and e.locator.kind in ("data_value", "markdown_block")
        and not read_by_no_model(ctx, e)  # maintainer metadata: no fidelity target
    ]
    targets = {e.id: ctx.target_text(e) for e in elements}
    keeps_names = _names(elements)
    # a reviewer's words in the pack: a loanword the language writes ('mahjong' = 'mahjong', 'choy sum')
    pack_keeps = {
        word.lower()
        for t in (ctx.pack.glossary_for(ctx.ir.benchmark) if ctx.pack is not None else [])
        if t.source == t.target
        for word in t.source.split()
    }
    keeps = pack_keeps | keeps_names
    # a literal that is also a word of the target language ("total", "blog" in Spanish) is no leak
    candidates = {w.lower() for text in targets.values() if text for w in _WORD.findall(text)} & vocabulary
    keeps |= target_lexicon(ctx.language).known(candidates)
    # and, where the target's analyser can say so, a source word the target language does not know at all.
    # Capitals elsewhere make no name of it: VitaBench writes its shops and dishes in title case mid-sentence
    # ('the Beauty Salon'), and a brand every language writes lowercase is in `names_everywhere`
    lacking = _source_words_the_target_lacks(ctx, targets)
    vocabulary |= lacking
    keeps -= (lacking & keeps_names) - pack_keeps
    # the variant's own DB keeps these values in English ('tactile'): prose that says them as the DB does is right
    keeps |= _db_kept_words(ctx)
    register = register_of(
        ctx,
        [(e, t) for e in elements if (t := targets[e.id]) and t != e.source_text],
        _without_tokens,
        set(language_data("en").loanwords),  # brands every language writes; not another language's loanwords
        target_lexicon(ctx.language).known,
        adopted,
    )
    statuses = status_renderings(ctx, elements, targets)
    # terms a tool inserts into sentences (statuses, glossary and canonical renderings); catalogue
    # names are left out: Thai separates list items with spaces ("สเก็ตบอร์ด สายยางทำสวน กระเป๋าเป้")
    glossary_terms = set(statuses.values()) | {t.target for t in (ctx.pack.glossary if ctx.pack is not None else [])}
    # a localized person or place is a name: Thai sets names off with spaces ("คุณคือ พรรณปพร ธาราธร และ")
    glossary_terms |= {
        e.target
        for e in (ctx.canonical_map.entries if ctx.canonical_map is not None else [])
        if e.origin != "localized"
    }
    glossary_terms |= inserted_terms(elements, targets, vocabulary, data)  # set off by spaces where a literal is
    seen: dict[tuple, list[tuple[str, str]]] = {}
    for element in elements:
        target = targets[element.id]
        if not target or target == element.source_text:
            continue  # missing, or copied whole (the `untranslated` check reports that)
        key = (element.source_text, target, tuple(element.inline_tokens))
        if key not in seen:
            seen[key] = _leaks(
                element.source_text, target, element.inline_tokens, data, vocabulary, keeps, ctx.language
            )
        # by what breaks: a word or two left ('user', 'available') only costs the reading; a run of them is an
        # untranslated sentence a model reads as English
        sentence = _reads_as_english(seen[key], target) and not any(part in element.role for part in READ_BY_NO_MODEL)
        severity = Severity.MAJOR if sentence else Severity.MINOR
        for word, kind_of in seen[key]:
            if kind_of == "word" and register.mixes_english:
                yield _mixed_register(element, target, word, register)
                continue
            yield field_hit(
                "source_words_left",
                severity,
                element,
                target,
                f"English {kind_of} {word!r} left in the translation"
                + (_NO_ENTRY if kind_of == "word" and word.lower() in lacking else ""),
                f"English {word!r}",
                cause="English words left in the translation",
                word=word,
            )
        yield from status_in_prose(element, target, statuses, data)
        yield from status_doubled(element, target, statuses, data)
        if data.unspaced:
            yield from spacing_around(element, target, glossary_terms, data)


# why the engine left it, and the two ways to fix it
_NO_ENTRY = (
    ": the translator has no entry for it (correct the unit with `babelflow correct`, or give the word a"
    " glossary entry in the language pack so every run renders it)"
)
SENTENCE_LEFT = 4  # English words left in one field that make an untranslated sentence, not a stray word
ENGLISH_SHARE = 0.25  # ... when they are this share of its words: four strays in a long document are no sentence


def _reads_as_english(leaks: list[tuple[str, str]], target: str) -> bool:
    """An English phrase is left, or enough English words to read as one: at least SENTENCE_LEFT, and
    ENGLISH_SHARE of the field's words (a policy page with four words Apertium had no entry for reads as
    Spanish)."""
    if any(kind_of == "phrase" for _, kind_of in leaks):
        return True
    return len(leaks) >= SENTENCE_LEFT and len(leaks) >= ENGLISH_SHARE * len(_WORD.findall(target))


def _mixed_register(element, target: str, word: str, register: Register) -> Hit:
    """A literal kept in a variant that writes English words of its own accord: a native reviewer's call."""
    return field_hit(
        "source_words_left",
        Severity.NOTE,
        element,
        target,
        f"English word {word!r} kept; this variant writes English words where its source has none "
        f"({register.evidence()}): in a register that mixes in English a kept word may read as native",
        "English words kept in a register that mixes in English",
        cause="English words kept in a register that mixes in English",
        word=word,
    )


def _without_tokens(text: str, tokens) -> str:
    for token in sorted(tokens, key=len, reverse=True):
        text = text.replace(token, " ")
    return _masked(text)


def _db_kept_words(ctx: ValidationContext) -> set[str]:
    """One-word lowercase catalogue values the variant's DB keeps in English (an option such as 'tactile')."""
    database = {s.path for s in ctx.specs if s.role.value == "database"}
    words: set[str] = set()
    for element in ctx.ir.elements:
        if (
            element.artifact in database
            and element.preserve_reason is PreserveReason.LINKED_ENTITY
            and element.locator.kind == "data_value"
            and re.fullmatch(r"[a-z]+", element.source_text)
            and ctx.target_text(element) == element.source_text
        ):
            words.add(element.source_text)
    return words


# ---- source words left -----------------------------------------------------------------------


def _source_words_the_target_lacks(ctx: ValidationContext, targets: dict[str, str | None]) -> frozenset[str]:
    """Lowercase words of the targets that the target language's own analyser does not know, in a variant
    made by an engine that copies the words it has no entry for ('upcoming', 'roommates'; Apertium).
    `_leaks` keeps those the field's source writes too. Elsewhere a lone word counts only if it is a code
    literal: the analyser lacks many loanwords a translator keeps on purpose ('sushi', 'influencers'), and a
    spelling dictionary knows only some of them."""
    target = target_lexicon(ctx.language)
    if not (target.available and passes_unknown_words(ctx.made_by)):
        return frozenset()
    words = {
        w
        for text in targets.values()
        if text
        for w in _WORD.findall(_CODE_LIKE.sub(" ", text))
        if w.islower() and len(w) >= 3
    }
    unknown = words - target.known(words)
    # the loanwords the language writes as they are ('golf', 'suite', 'retro' in Spanish) are its speller's headwords
    return frozenset(unknown - spelling_dictionary(ctx.language).headwords(unknown))


# what a translator keeps because a program reads it: `code spans`, dotted names (rhobank.com, INDEX.md)
# and calls with their arguments (get_status(user_id: str))
# (each alternative starts only where no word character precedes it: one scan per run, linear)
_CODE_LIKE = re.compile(r"`[^`\n]*`|(?<![\w-])[\w-]+(?:\.[A-Za-z][\w-]*)+|(?<!\w)\w+\([^()\n]*\)")


def _literal_vocabulary(ctx: ValidationContext) -> frozenset[str]:
    """Words the benchmark uses as code literals: enum values (statuses, reasons) and the DB's
    field names. A tool that protects literals without context leaves exactly these in prose."""
    return ctx.derived(_literal_words)


def _literal_words(ctx: ValidationContext) -> frozenset[str]:
    words: set[str] = set()
    for element in ctx.ir.elements:
        if (
            element.translation_type is TranslationType.PRESERVE
            and element.preserve_reason in _VALUE_REASONS
            and len(element.source_text) <= 40
        ):
            words.update(w for w in re.findall(r"[a-z]+", element.source_text) if element.source_text.islower())
    keys: set[str] = set()
    for spec in ctx.specs:
        if spec.role.value == "database":
            _keys(ctx.source_document(spec), keys, 0)
    # keys that carry data (option names like "battery life", "backlight") are catalogue values, not
    # field names: the IR holds a key as an element only where the keys of a map vary (`options.*{key}`,
    # typed linked_entity or schema_key alike); a record's fixed fields ('status', 'available') are none.
    # (Read from the IR: the walk below samples records, and 'backlight' fell outside τ² retail's sample, inside τ³'s.)
    data_keys = {
        w
        for e in ctx.ir.elements
        if e.locator.kind == "data_key"
        and e.preserve_reason in (PreserveReason.LINKED_ENTITY, PreserveReason.SCHEMA_KEY)
        for w in re.split(r"[_ ]", e.source_text.lower())
    }
    words |= keys - data_keys
    return frozenset(w for w in words if len(w) >= 2)


def _names(elements) -> set[str]:
    """Words the source itself writes capitalized mid-sentence somewhere (PayPal, Visa): names,
    kept in any language even where the source also writes them in lower case."""
    names = set()
    for element in elements:
        for match in re.finditer(r"(?<=[a-z,] )([A-Z][A-Za-z]+)", element.source_text):
            names.add(match.group(1).lower())
    return names


def _keys(node, words: set[str], depth: int) -> None:
    if depth > 6:
        return
    if isinstance(node, dict):
        for key, value in list(node.items())[:50]:  # record ids repeat one schema: a sample suffices
            if isinstance(key, str) and re.fullmatch(r"[a-z][a-z_ ]*", key):
                words.update(re.split(r"[_ ]", key))
            _keys(value, words, depth + 1)
    elif isinstance(node, list):
        for value in node[:5]:
            _keys(value, words, depth + 1)


def _masked(text: str) -> str:
    """`text` with each masked span (see _BRACED) replaced by a space, as re.sub with the one pattern
    would: leftmost first, a brace span before the rest of a run. The rest of a run is masked from a
    position when a _ # / lies at or after it, or an @ with a character on each side; both only fade
    along a run, so once they fail at a position only a brace span can start later in that run."""
    out: list[str] = []
    pos, run_end, last_mark, last_at = 0, -1, -1, -1
    while (found := _NON_SPACE.search(text, pos)) is not None:
        start = found.start()
        out.append(text[pos:start])
        braced = _BRACED.match(text, start)
        if braced is not None:
            out.append(" ")
            pos = braced.end()
            continue
        if start >= run_end:  # a new run: where it ends, its last _ # / and its last @ before its last character
            space = _SPACE.search(text, start)
            run_end = space.start() if space is not None else len(text)
            last_mark = max(text.rfind(mark, start, run_end) for mark in "_#/")
            last_at = text.rfind("@", start, run_end - 1)
        if last_mark >= start or last_at > start:
            out.append(" ")
            pos = run_end
            continue
        pos = run_end
        for brace in _BRACE.finditer(text, start + 1, run_end):
            braced = _BRACED.match(text, brace.start())
            if braced is not None:
                pos = braced.end()
                out.append(text[start : brace.start()] + " ")
                break
        else:
            out.append(text[start:run_end])
    out.append(text[pos:])
    return "".join(out)


def _leaks(
    source: str,
    target: str,
    tokens: list[str],
    data: LanguageData,
    vocabulary: frozenset[str],
    keeps: set[str],
    language: str,
) -> list[tuple[str, str]]:
    masked = _without_tokens(target, tokens)
    source_words = set(_WORD.findall(_masked(source)))
    latin_target = data.script == "Latn"
    out: list[tuple[str, str]] = []
    for match in _WORD.finditer(masked):
        word = match.group(0)
        lower = word.lower()
        if word not in source_words or not word.islower() or len(word) < 2 or lower in data.loanwords or lower in keeps:
            continue  # not the source's, a name or acronym, or ordinary vocabulary of the language
        if re.search(rf"\d[\s-]*(?:[ap]\.?m\.?\s+)?{re.escape(word)}\b", target, re.I):
            continue  # a unit after a number ("17 inch"), a time zone after a time ("11am est")
        if re.search(rf"\(\s*{re.escape(word)}\s*\)", target):
            continue  # the English word given as a gloss after its translation: "cỡ vừa (medium)"
        if latin_target and lower not in vocabulary:
            continue
        if (word, "word") not in out:
            out.append((word, "word"))
    if latin_target:
        out += _english_clauses(masked, source_words, language)
    return out


# Tried only where a whole word starts (not after a letter, nor after a letter and ' or -): a start
# inside a word has the same continuation as the word's start, so it matched only where that start
# matched, but each one rescanned the rest of the word (',' + 20,000 letters: 22 s).
_CLAUSE = re.compile(r"(?<![A-Za-z])(?<![A-Za-z]['-])(?:[A-Za-z]+(?:['-][A-Za-z]+)*[ ,]+){4,}[A-Za-z]+")


def _english_clauses(masked: str, source_words: set[str], language: str) -> list[tuple[str, str]]:
    """Runs of five or more source words in a Latin-script target that lingua reads as English."""
    if not supported(language):
        return []
    found = []
    for match in _CLAUSE.finditer(masked):
        words = re.findall(r"[A-Za-z]+(?:['-][A-Za-z]+)*", match.group(0))
        if sum(w in source_words for w in words) / len(words) < 0.8:
            continue
        if sum(w[0].isupper() for w in words) * 2 >= len(words):
            continue  # mostly capitalized: a list of names kept as they are ('Mini quiches, Bruschetta, Queso platter')
        if identify(match.group(0), (language, "en"), min_letters=20) == "en":
            found.append((match.group(0).strip(" ,"), "phrase"))
    return found
