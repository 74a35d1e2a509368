"""Pseudo-locale fidelity: a source word the pseudo-localizer would have changed, left as it is.

en-XA accents every letter of a translated text and ar-XB wraps every letter run in a right-to-left
override, so inside a translated field of a pseudo-locale variant a plain lowercase source word is
a leak: a word the translation left in English (one word of an evaluation assertion), or a status
literal forced into a sentence where the source uses the word in its ordinary sense ("to be
delivered to Suite 641" -> "ţö ƀé 'delivered' ţö Šûîţé 641": the sentence now names an order status).
Kept values are no leak: the field's inline tokens, the canonical map's kept values, glossary
keeps, slots, code spans, ids, emails, URLs and paths, and en-XA's padding words.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from babelflow.ir import PreserveReason
from babelflow.text import ACCENT_TABLE, MIRRORED_RUN, PDF, PSEUDO_PADDING, RLO
from validators.checks import Scope, check
from validators.context import ValidationContext
from validators.findings import Hit
from validators.probes.language_checks import SOURCE_WORDS_LEFT, STATUS_RENDERING_DOUBLED, STATUS_RENDERING_IN_PROSE
from validators.probes.pair_checks import MALFUNCTION
from validators.probes.readers import read_by_no_model

# en-XA pads each bracketed line with these words, unaccented (translators/pseudo_locale.py)
# spans a translator keeps as they are: code, slots, tags, link targets, URLs, control tokens. Each
# body is bounded (an unclosed backtick or brace must not rescan the rest of the text from every start)
_KEPT_SPAN = re.compile(
    r"`[^`\n]{0,80}`|\{[^{}\n]{0,80}\}|</?[A-Za-z][^<>\n]{0,80}>|\]\([^()\s]{0,200}\)"
    r"|(?:https?://|www\.)\S++|###[A-Z_-]{1,30}###"
)
# a fenced code block (a JSON example, pseudo-code in a τ³ document) is code, whatever its length;
# possessive and backtick-delimited: an unclosed fence is read once, not rescanned
_FENCED = re.compile(r"```[^`]*+(?:`{1,2}+[^`]++)*+```")
# a whitespace-separated run that holds an id, a path, an email or a number is a value, not prose
_VALUE_MARK = re.compile(r"[_/#@\\0-9]")
_RUNS = re.compile(r"(\s+)")
# a whole word: not after a letter, nor after a letter and an apostrophe or hyphen (the "s" of "user's")
_PLAIN_WORD = re.compile(r"(?<![^\W\d_])(?<![^\W\d_]['’-])[A-Za-z][a-z]*(?:['’-][a-z]+)*(?![^\W\d_])")
_SENTENCE_START = re.compile(r"(?:^|[.!?:\n\[])[ \t]{0,3}([A-Z][a-z]++)(?![\w'’-])")
_SOURCE_WORD = re.compile(r"[A-Za-z]+(?:['’-][A-Za-z]+)*")


def pseudo_style(ctx: ValidationContext) -> str | None:
    """'accented' (en-XA and packs rendered like it), 'mirrored' (ar-XB and its like) or None."""
    if ctx.pack is not None and ctx.pack.offline_rendering in ("accented", "mirrored"):
        return ctx.pack.offline_rendering
    return {"en-XA": "accented", "ar-XB": "mirrored"}.get(ctx.language)


def status_literals(ctx: ValidationContext) -> frozenset[str]:
    """Lowercase enum codes of the benchmark (order statuses, reasons, modes: 'pending', 'gift_card',
    'no longer needed'): the literals a translator that protects codes without context forces into prose."""
    return frozenset(
        e.source_text
        for e in ctx.ir.elements
        if e.preserve_reason is PreserveReason.ENUM_CODE and re.fullmatch(r"[a-z][a-z_ ]{2,39}", e.source_text)
    )


def forced_literals(
    source: str, target: str, tokens: list[str], statuses: frozenset[str], style: str | None = None
) -> list[str]:
    """Enum literals the target writes where the source says their words in the ordinary sense
    ("pay with a gift card" -> "ƥåý ŵîţĥ å gift_card"; "is no longer needed" -> "îš no longer needed"):
    the source names no such value there (it is no inline token of the field). In ar-XB only what
    stands outside the mirrored runs counts: a palindrome ('level') reads the same inside one."""
    if style == "mirrored":
        target = MIRRORED_RUN.sub(" ", target)
    for token in sorted(tokens, key=len, reverse=True):
        if token:
            target = target.replace(token, " ")
    target = _KEPT_SPAN.sub(" ", _FENCED.sub(" ", target))  # a slot's name ('{line.line_id}') is code, not prose
    source = _KEPT_SPAN.sub(" ", _FENCED.sub(" ", source))
    out = []
    for value in sorted(statuses):
        if value in tokens:
            continue  # the source quotes the value itself: the target keeps it
        ordinary = value.replace("_", " ")
        if not re.search(rf"(?<![\w'-]){re.escape(ordinary)}(?![\w'-])", source, re.I):
            continue
        whole = rf"(?<![\w-]){re.escape(value)}(?![\w-])"  # whole: not inside an id
        # a code-shaped literal ('user_id') the source itself writes as often is the source's, not forced
        written = len(re.findall(whole, source)) if value != ordinary else 0
        if len(re.findall(whole, target)) > written:
            out.append(value)
    return out


def kept_words(ctx: ValidationContext) -> frozenset[str]:
    """Lowercase words the variant keeps on purpose: values the canonical map keeps, glossary keeps."""
    kept: set[str] = set()
    for entry in ctx.canonical_map.entries if ctx.canonical_map is not None else []:
        if entry.target == entry.source:
            kept.update(w.lower() for w in _SOURCE_WORD.findall(entry.source))
    for term in ctx.pack.glossary if ctx.pack is not None else []:
        if term.source == term.target:
            kept.update(w.lower() for w in _SOURCE_WORD.findall(term.source))
    return frozenset(kept)


def _without_values(text: str) -> str:
    """`text` with each whitespace-separated run that holds a value mark blanked (read once per run)."""
    return "".join(" " if _VALUE_MARK.search(run) and not run.isspace() else run for run in _RUNS.split(text))


def plain_source_words(source: str, target: str, tokens: list[str], style: str, kept: frozenset[str]) -> list[str]:
    """Source words (2+ letters; lowercase, or capitalized only where a sentence starts) standing in
    `target` as the source writes them, where the pseudo-localizer would have changed them; in order,
    each once."""
    masked = target
    for token in sorted(tokens, key=len, reverse=True):
        if token:  # a value mark, not a space: the run it sits in ('12-month' with 12 a token) is a value
            masked = masked.replace(token, "#")
    masked = MIRRORED_RUN.sub(" ", masked) if style == "mirrored" else PSEUDO_PADDING.sub(" ", masked)
    masked = _without_values(_KEPT_SPAN.sub(" ", _FENCED.sub(" ", masked)))
    prose = _KEPT_SPAN.sub(" ", _FENCED.sub(" ", source))
    source_words = {w for w in _SOURCE_WORD.findall(prose) if w.islower()}
    # a capitalized word the source writes only where a sentence starts ('Refund the order.'): a
    # word capitalized anywhere else is a name, which stays
    names = {m.group(1) for m in re.finditer(r"(?<=[a-z,;] )([A-Z][a-z]+)", prose)}
    source_words |= {m.group(1) for m in _SENTENCE_START.finditer(prose)} - names
    out: list[str] = []
    for match in _PLAIN_WORD.finditer(masked):
        word = match.group(0)
        if len(word) < 2 or word not in source_words or word.lower() in kept or word in out:
            continue
        if style == "accented" and word.translate(ACCENT_TABLE) == word:
            continue  # nothing to accent: the word reads the same either way
        out.append(word)
    return out


@check(SOURCE_WORDS_LEFT, also=(STATUS_RENDERING_IN_PROSE, STATUS_RENDERING_DOUBLED))
def pseudo_words_left(ctx: ValidationContext, scope: Scope) -> Iterator[Hit]:
    """A pseudo-locale's fields, except those the pair catalogue already found a broken translator in
    (an answer or commentary in place of the translation is reported as such, not word by word)."""
    style = pseudo_style(ctx)
    if style is None:
        return
    malfunctioned = {f.element_id for f in scope.found if f.kind in MALFUNCTION}
    statuses, kept = status_literals(ctx), kept_words(ctx)
    memo: dict[tuple, list[str]] = {}
    for element in ctx.translatable():
        if scope.skips(element):
            continue
        if element.locator.kind == "python_literal":
            if not ctx.in_overlay(element) or element.locator.part is not None:
                # the source's text runs (`untranslated` says so), or one part of a docstring the overlay holds whole
                continue
            target = ctx.code_target(element)
        elif element.locator.kind in ("data_value", "markdown_block"):
            target = ctx.target_text(element)
        else:
            continue
        if not target or target == element.source_text:
            continue  # missing, or copied whole (the `untranslated` check reports that)
        tokens = [*element.inline_tokens, *(slot.text for slot in element.code_slots)]  # slots are code: kept
        key = (element.source_text, target, tuple(tokens))
        if key not in memo:
            memo[key] = plain_source_words(element.source_text, target, tokens, style, kept)
        if read_by_no_model(ctx, element) or element.id in malfunctioned:
            continue  # maintainer metadata: no fidelity target
        forced = forced_literals(element.source_text, target, tokens, statuses, style)
        in_forced = {w for value in forced for w in re.split(r"[_ ]", value)}
        for value in forced:
            yield _leak(element, target, value, True)
        for word in memo[key]:
            if word not in in_forced:
                yield _leak(element, target, word, False)
        for value in doubled_statuses(element.source_text, target, statuses, style):
            yield _doubled(element, target, value)


_QUOTES = "'\"‘’“”"


def doubled_statuses(source: str, target: str, statuses: frozenset[str], style: str) -> list[str]:
    """Statuses the target writes twice side by side, as the literal or its pseudo rendering ("ðéļîṽéŕéð
    'delivered'": the word translated and its literal kept), where the source does not."""
    out = []
    for value in sorted(statuses):
        if value not in target:
            continue
        rendered = value.translate(ACCENT_TABLE) if style == "accented" else f"{RLO}{value[::-1]}{PDF}"
        forms = "|".join(re.escape(form) for form in sorted({value, rendered}, key=len, reverse=True))
        side_by_side = rf"(?<![^\W\d_])[{_QUOTES}]?(?:{forms})[{_QUOTES}]?[ ]+[{_QUOTES}]?(?:{forms})(?![^\W\d_])"
        if re.search(side_by_side, target) and not re.search(rf"\b{value}\W+{value}\b", source):
            out.append(value)
    return out


def _doubled(element, target: str, value: str) -> Hit:
    return Hit.on(
        element,
        target,
        f"the status {value!r} is written twice side by side (its rendering and its literal)",
        kind="status_rendering_doubled",
        detail={"status": value},
        pattern=f"status {value!r} doubled",
    )


def _leak(element, target: str, word: str, status: bool) -> Hit:
    if status:  # a status code's literal where the source says the word in its ordinary sense
        kind, pattern = "status_rendering_in_prose", f"status {word!r} as {word!r}"
        message = (
            f"the status literal {word!r} stands where the source uses {word!r} as an ordinary word: "
            "the sentence now names a status"
        )
    else:
        kind, pattern = "source_words_left", f"English {word!r}"
        message = f"English word {word!r} left inside the pseudo-localized text"
    return Hit.on(element, target, message, kind=kind, detail={"word": word}, pattern=pattern)
