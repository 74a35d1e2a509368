"""Protect text before a translator sees it and restore it afterwards.

Everything a tau2 run matches byte-for-byte (ids, numbers, dates, control tokens, template slots,
markup, caller-supplied status codes) is swapped for an opaque ``⟦N⟧`` token. The translator may
move tokens around (languages reorder words) but must return each exactly once; ``restore``
refuses anything else instead of guessing, because a silently wrong id fails a task much later.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Literal

from babelflow.ir import Record
from babelflow.text import CONTROL_TOKEN, PLACEHOLDER, UNSPACED_LETTERS

PlaceholderKind = Literal[
    "marker",  # a literal ⟦N⟧ already in the source: protected so it cannot be confused with ours
    "slot",  # a code text's format slot or a reply key its code reads (babelflow/format_slots.py)
    "code",
    "template",
    "printf",
    "control",
    "tag",
    "link_target",
    "url",
    "email",
    "date",
    "number",
    "identifier",
    "preserve",
    "canonical",
]

# Generic patterns, in tie-break order (same start and same length: the earlier entry wins).
GENERIC_PATTERNS: tuple[tuple[PlaceholderKind, re.Pattern[str]], ...] = (
    ("marker", PLACEHOLDER),
    # a whole inline code span, any backtick-run length, never across a blank line. It opens at the
    # start of a backtick run (a start inside a long run rescanned the rest of it: quadratic), and
    # the body is taken in chunks (text, a newline that does not start a blank line, a whole
    # backtick run), so the closer is tried once per chunk, not once per character
    ("code", re.compile(r"(?<!`)(`+)(?!`)(?:[^`\n]++|\n(?![ \t]*\n)|`++)+?(?<!`)\1(?!`)")),
    ("template", re.compile(r"\{\{[^{}\n]*\}\}|\{(?:[A-Za-z_]\w*(?:\.\w+|\[\w+\])*|\d+)?(?:![rsa])?(?::[^{}\n]*)?\}")),
    # flags then a width that starts 1-9: "0" is a flag only, so the two never compete for a run of zeros
    ("printf", re.compile(r"%%|%(?:\([A-Za-z_]\w*\))?[-+#0]*(?:[1-9]\d*|\*)?(?:\.\d+)?[sdiouxXeEfFgGcr](?![A-Za-z])")),
    ("control", CONTROL_TOKEN),
    # the attributes are one run up to the first ">" (was `\s+[^<>]*?\s*`: three quantifiers sharing
    # whitespace, cubic on "<x" and spaces with no ">"); the same texts match
    ("tag", re.compile(r"</?[A-Za-z][\w.:-]*(?:\s[^<>]*)?/?>")),
    # only the target of a Markdown link/image: the link text stays translatable
    ("link_target", re.compile(r"\]\((?:[^()\s]|\([^()\s]*\))*(?:\s+(?:\"[^\"]*\"|'[^']*'))?\)")),
    ("url", re.compile(r"(?:(?:https?|ftp)://|www\.)[^\s<>\"'`]*[^\s<>\"'`.,;:!?)\]}]")),
    # starts only where a run of local-part characters starts ("%" too), so each run is scanned once
    ("email", re.compile(r"(?<![\w.%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+")),
    (
        "date",
        re.compile(r"(?<!\w)\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?(?!\w)"),
    ),
    ("date", re.compile(r"(?<![\w:])\d{1,2}:\d{2}(?::\d{2})?(?![\w:])")),  # times
    # amounts, decimals, thousands groups, ranges and phone-like groups stay one unit
    ("number", re.compile(r"(?<!\w)[$€£¥]?\d+(?:[.,]\d+)*(?:[-/]\d+(?:[.,]\d+)*)*%?(?!\w)")),
    ("identifier", re.compile(r"(?<![\w#])#?\w+(?:-\w+)*(?!\w)")),
)

_ORDINAL = re.compile(r"(?<!\d)\d+(?:st|nd|rd|th)", re.I)  # "2nd" is prose, let translators localize it
_TAG_PARTS = re.compile(r"<(/?)([A-Za-z][\w.:-]*)")


def _is_identifier(token: str) -> bool:
    """snake_case (an underscore between word chars) or a letter/digit mix (#W2378156, L1002)."""
    if re.search(r"\w_\w", token):
        return True
    if _ORDINAL.fullmatch(token) or UNSPACED_LETTERS.search(token):
        return False  # "2nd"; "5号门面Linlee林里" is words glued together by a script without spaces
    # isdecimal, not isdigit: superscript footnote marks (², ³) are not ids
    return any(ch.isalpha() for ch in token) and any(ch.isdecimal() for ch in token)


class Placeholder(Record):
    index: int
    original: str
    restore_as: str
    kind: PlaceholderKind


class ProtectedText(Record):
    text: str
    placeholders: list[Placeholder]


class PlaceholderError(ValueError):
    """A translation lost, duplicated, invented or illegally reordered placeholders."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__("placeholder check failed: " + "; ".join(problems))


def _literal_pattern(terms: Iterable[str], what: str) -> re.Pattern[str] | None:
    """Word-bounded, case-sensitive alternation, longest term first so it wins at the same start."""
    unique = set(terms)
    if "" in unique:
        raise ValueError(f"{what} must not contain an empty string")
    if not unique:
        return None
    ordered = sorted(unique, key=lambda term: (-len(term), term))
    return re.compile(r"(?<!\w)(?:" + "|".join(re.escape(term) for term in ordered) + r")(?!\w)")


def protect(
    text: str,
    *,
    preserve_tokens: Iterable[str] = (),
    canonical_terms: Mapping[str, str] | None = None,
    slots: Iterable[str] = (),
) -> ProtectedText:
    """Replace every protected span of ``text`` by ``⟦N⟧`` (N in order of appearance).

    Overlaps: the earliest match wins, then the longest, then caller terms (slots, canonical, preserve)
    over generic patterns; spans never nest.
    """
    canonical = dict(canonical_terms or {})
    # (start, end, priority, kind, restore_as); a lower priority number wins ties
    candidates: list[tuple[int, int, int, PlaceholderKind, str | None]] = []
    for slot in sorted(set(slots), key=lambda text: (-len(text), text)):  # code: no word boundary to respect
        start = text.find(slot)
        while start >= 0:
            candidates.append((start, start + len(slot), -1, "slot", None))
            start = text.find(slot, start + 1)
    canonical_re = _literal_pattern(canonical, "canonical_terms")
    if canonical_re is not None:
        for match in canonical_re.finditer(text):
            candidates.append((match.start(), match.end(), 0, "canonical", canonical[match.group()]))
    preserve_re = _literal_pattern(preserve_tokens, "preserve_tokens")
    if preserve_re is not None:
        for match in preserve_re.finditer(text):
            candidates.append((match.start(), match.end(), 1, "preserve", None))
    for priority, (kind, pattern) in enumerate(GENERIC_PATTERNS, start=2):
        for match in pattern.finditer(text):
            if kind == "identifier" and not _is_identifier(match.group()):
                continue
            candidates.append((match.start(), match.end(), priority, kind, None))
    candidates.sort(key=lambda c: (c[0], c[0] - c[1], c[2]))

    pieces: list[str] = []
    placeholders: list[Placeholder] = []
    cursor = 0
    for start, end, _priority, kind, restore_as in candidates:
        if start < cursor or start == end:
            continue  # overlaps a span already taken
        original = text[start:end]
        index = len(placeholders)
        placeholders.append(
            Placeholder(
                index=index, original=original, restore_as=original if restore_as is None else restore_as, kind=kind
            )
        )
        pieces.append(text[cursor:start])
        pieces.append(f"⟦{index}⟧")
        cursor = end
    pieces.append(text[cursor:])
    return ProtectedText(text="".join(pieces), placeholders=placeholders)


def _tag_pairs(placeholders: list[Placeholder]) -> list[tuple[Placeholder, Placeholder]]:
    """(opening, closing) tag placeholders, matched like nested markup in source order."""
    pairs: list[tuple[Placeholder, Placeholder]] = []
    open_tags: list[tuple[str, Placeholder]] = []
    for placeholder in placeholders:
        if placeholder.kind != "tag" or placeholder.original.endswith("/>"):
            continue
        parts = _TAG_PARTS.match(placeholder.original)
        if parts is None:
            continue
        closing, name = parts.group(1) == "/", parts.group(2)
        if not closing:
            open_tags.append((name, placeholder))
            continue
        for depth in range(len(open_tags) - 1, -1, -1):
            if open_tags[depth][0] == name:
                pairs.append((open_tags[depth][1], placeholder))
                del open_tags[depth:]
                break
    return pairs


def _stray_brackets(text: str) -> int:
    return sum(text.count(ch) for ch in "⟦⟧") - 2 * len(PLACEHOLDER.findall(text))


def placeholder_problems(translated: str, protected: ProtectedText) -> list[str]:
    """Everything wrong with the placeholders of ``translated`` (empty list = safe to restore)."""
    problems: list[str] = []
    issued = {placeholder.index: placeholder for placeholder in protected.placeholders}
    counts = Counter(int(match.group(1)) for match in PLACEHOLDER.finditer(translated))
    for index, placeholder in issued.items():
        if counts[index] == 0:
            problems.append(f"placeholder ⟦{index}⟧ ({placeholder.original!r}) is missing")
        elif counts[index] > 1:
            problems.append(f"placeholder ⟦{index}⟧ ({placeholder.original!r}) appears {counts[index]} times")
    for index in sorted(set(counts) - set(issued)):
        problems.append(f"placeholder ⟦{index}⟧ was never issued")
    if _stray_brackets(translated) != _stray_brackets(protected.text):
        problems.append("stray ⟦ or ⟧ characters: a placeholder was mangled")
    positions = {int(match.group(1)): match.start() for match in PLACEHOLDER.finditer(translated)}
    for opening, closing in _tag_pairs(protected.placeholders):
        if counts[opening.index] == 1 and counts[closing.index] == 1:
            if positions[opening.index] > positions[closing.index]:
                problems.append(
                    f"tag {opening.original!r} (⟦{opening.index}⟧) now comes after "
                    f"{closing.original!r} (⟦{closing.index}⟧)"
                )
    return problems


def restore(translated: str, protected: ProtectedText) -> str:
    """Put every placeholder's ``restore_as`` back; raise PlaceholderError rather than patch."""
    problems = placeholder_problems(translated, protected)
    if problems:
        raise PlaceholderError(problems)
    by_index = {placeholder.index: placeholder.restore_as for placeholder in protected.placeholders}
    return PLACEHOLDER.sub(lambda match: by_index[int(match.group(1))], translated)
