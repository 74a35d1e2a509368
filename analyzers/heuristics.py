"""Shape-based classification of a string, used after runtime evidence and before the profile."""

from __future__ import annotations

import heapq
import re

from babelflow.ir import PreserveReason
from babelflow.text import UNSPACED_LETTER

CONTROL_TOKEN = re.compile(r"^#{3}[A-Z][A-Z_-]*#{3}$")
EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[A-Za-z]{2,}$")
URL = re.compile(r"^(https?|ftp)://\S+$")
DATE_TIME = re.compile(
    r"^(\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?(Z|[+-]\d{2}:\d{2})?"  # ISO date, optional time and zone
    r"|\d{1,2}:\d{2}(:\d{2})?(\s?[AaPp][Mm])?(\+\d)?"  # clock time
    r"|\d{1,2}/\d{4}|\d{1,2}/\d{1,2}/\d{2,4})$"  # month/year, day/month/year
)
NUMBER = re.compile(r"^[+-]?[$€£]?\d[\d,]*(\.\d+)?%?$")
IDENTIFIER = re.compile(r"^(?=\S*[\d_#])[#\w.+-]+$|^[A-Z][A-Z0-9]{1,5}$")
# punctuation a markup-only string may hold outside its <tags> and {slots}
MARKUP_CHARS = frozenset("[](){}:;,.-*#|=_/")
WORD = re.compile(r"[^\W\d_]+")
_BRACE = re.compile(r"[{}]")


def specific_reason(text: str) -> PreserveReason | None:
    """A Preserve reason implied by the string's shape alone, or None for words and prose."""
    stripped = text.strip()
    if not stripped:
        return PreserveReason.EMPTY
    if CONTROL_TOKEN.match(stripped):
        return PreserveReason.CONTROL_TOKEN
    if EMAIL.match(stripped) or URL.match(stripped):
        return PreserveReason.EMAIL_URL
    if DATE_TIME.match(stripped):
        return PreserveReason.DATE_TIME
    if NUMBER.match(stripped):
        return PreserveReason.NUMBER
    if IDENTIFIER.match(stripped) and not UNSPACED_LETTER.search(stripped):
        return PreserveReason.IDENTIFIER
    if is_markup_only(stripped):
        return PreserveReason.MARKUP
    return None


def is_markup_only(text: str) -> bool:
    r"""True when `text` splits into whitespace, <tags>, {slots} with no brace inside and MARKUP_CHARS.

    The pattern r"^(\s|<[^>]+>|\{[^{}]*\}|[\[\](){}:;,.\-*#|=_/])*$" said the same, but it tried both
    readings of every '{…}' ('{:}' is a slot or three marks): 2^n steps on n of them and a letter.
    Here each position is visited once: from it a mark or space leads one on, a tag to past its first
    '>', a '{' also to past its '}' when no '{' comes first."""
    reachable = [0]
    seen = {0}
    next_gt = next_brace = -1  # the first '>' / '{' or '}' after the current position (found once)
    while reachable:
        at = heapq.heappop(reachable)
        if at == len(text):
            return True
        char, ends = text[at], []
        if char.isspace() or char in MARKUP_CHARS:
            ends.append(at + 1)
        if char == "<":
            if next_gt <= at:
                next_gt = text.find(">", at + 1) % (len(text) + 1)  # -1 (none): len(text), past any position
            if at + 1 < next_gt < len(text):
                ends.append(next_gt + 1)
        elif char == "{":
            if next_brace <= at:
                brace = _BRACE.search(text, at + 1)
                next_brace = brace.start() if brace is not None else len(text)
            if next_brace < len(text) and text[next_brace] == "}":
                ends.append(next_brace + 1)
        for end in ends:
            if end not in seen:
                seen.add(end)
                heapq.heappush(reachable, end)
    return False


def is_prose(text: str) -> bool:
    """Natural language a model reads: at least three words, or a sentence."""
    words = WORD.findall(text)
    return len(words) >= 3 or (len(words) >= 2 and text.rstrip().endswith((".", "?", "!", ":")))


# Kept verbatim in a trial translation: a {slot}, an email, and the rest of a whitespace-separated run
# from a URL, a www. address or a digit, _, / or \ on. One pattern said it
# (r"\{[^{}\s]*\}|[\w.+-]+@[\w-]+(?:\.[\w-]+)+|https?://\S+|www\.\S+|\S*[\d_/\\]\S*") but rescanned a
# run from each of its positions ('+-' * 10,000: 11 s); kept_spans() finds the same spans reading it once.
_KEPT_SLOT = re.compile(r"\{[^{}\s]*\}")
_EMAIL_CHAR = re.compile(r"[\w.+-]")
_EMAIL_LOCAL = re.compile(r"[\w.+-]*")
_EMAIL_DOMAIN = re.compile(r"@[\w-]+(?:\.[\w-]+)+")
_KEPT_MARK = re.compile(r"[\d_/\\]")
_SPACE = re.compile(r"\s")
_NON_SPACE = re.compile(r"\S")


def kept_spans(text: str) -> list[tuple[int, int]]:
    r"""(start, end) of each kept span, leftmost first. From a position: a {slot}; else, in a run of
    [\w.+-], an email when the run is followed by @domain (the same for every position of the run);
    else the rest of the run when a digit, _, / or \ lies ahead in it (fades along the run) or it
    starts with www. and more. A position where nothing starts is left for the next that can differ."""
    spans: list[tuple[int, int]] = []
    pos, run_end, mark = 0, -1, -1
    local_end, email_end = -1, -1
    while (found := _NON_SPACE.search(text, pos)) is not None:
        at = found.start()
        space = _SPACE.search(text, at)
        run_end, mark = (space.start() if space is not None else len(text)), -1
        while at < run_end:
            end = -1
            if text[at] == "{" and (slot := _KEPT_SLOT.match(text, at)) is not None:
                end = slot.end()
            elif _EMAIL_CHAR.match(text, at):
                if at >= local_end:  # a new [\w.+-] run: where it ends, and the email it makes, if any
                    local_end = _EMAIL_LOCAL.match(text, at).end()  # type: ignore[union-attr]  # * always matches
                    domain = _EMAIL_DOMAIN.match(text, local_end)
                    email_end = domain.end() if domain is not None else -1
                end = email_end
            if end < 0:
                if mark < at:  # the next digit, _, / or \ at or after this position (run_end: none)
                    marked = _KEPT_MARK.search(text, at, run_end)
                    mark = marked.start() if marked is not None else run_end
                if mark < run_end or (text.startswith("www.", at) and at + 4 < run_end):
                    end = run_end
            if end >= 0:
                spans.append((at, end))
                at = end
            elif at < local_end:  # the rest of a failed [\w.+-] run fails the same way, but for a www.
                www = text.find("www.", at + 1, local_end)
                at = www if www >= 0 else local_end
            else:
                at += 1
        pos = run_end
    return spans


def without_kept(text: str) -> str:
    out, last = [], 0
    for start, end in kept_spans(text):
        out.append(text[last:start] + " ")
        last = end
    return "".join(out) + text[last:]
