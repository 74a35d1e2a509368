"""A clock time's half of the day, compared between a source text and its translation.

Numbers alone miss it: Apertium wrote '10:00 AM' as '10:00 SOY' ('AM' read as 'I am'), and the same digits
were there. A time keeps its half of the day when the translation writes it on the 24-hour clock
('3:00 PM' -> '15:00'), or beside one of the target's CLDR day periods ('3:00 de la tarde', '3:00 chiều',
'下午3:00') or the source's own 'PM'. It changes when
- the word where the marker stood is no day period and nothing of the source ('10:00 SOY'): garbled;
- the marker says the other half ('10:00 AM' -> '10:00 PM'), or an afternoon hour lost its marker and
  reads as the morning's ('3:00 PM' -> 'a las 3:00'): the time moved by twelve hours.
A bare hour ('10 AM') is judged by its marker only: a '3' without minutes is any number.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from babelflow.day_periods import DayPeriods, day_periods, fold
from babelflow.text import UNSPACED_LETTER

NEAR = 24  # characters either side of a time where its day period stands ('a las 3:00 de la tarde')
_MARKER_WORD = re.compile(r"[\s\u00a0\u202f]?([A-ZÀ-Þ]{2,4})(?!\w|\.\w)")  # where 'AM' stood: 'SOY'


@dataclass(frozen=True)
class DayPeriodChange:
    time: str  # as the source writes it: '10:00 AM'
    written: str  # what the translation writes where it stood: '10:00 SOY'
    how: Literal["garbled", "other_half"]


@dataclass(frozen=True)
class _SourceTime:
    hour: int  # 1..12 as written
    minutes: str  # '' for a bare hour ('10 AM')
    afternoon: bool
    text: str


def _source_times(text: str, periods: DayPeriods) -> list[_SourceTime]:
    """Clock times with a marker of their half of the day, after or before ('10:00 AM', '10 AM', '下午3:00')."""
    halves = sorted(
        [(form, False) for form in periods.morning] + [(form, True) for form in periods.afternoon],
        key=lambda half: -len(half[0]),
    )
    found = []
    for match in re.finditer(r"(?<![\d:.,])(\d{1,2})(?:[:：.](\d{2}))?(?![\d:]|[.,]\d)", text):
        hour = int(match[1])
        if not 1 <= hour <= 12:
            continue
        after, before = text[match.end() : match.end() + 16], text[: match.start()][-6:]
        for form, afternoon in halves:
            if written := _written_after(after, form):
                found.append(_SourceTime(hour, match[2] or "", afternoon, f"{match[0]}{written}"))
                break
            if UNSPACED_LETTER.search(form) and fold(before).strip().endswith(form):
                found.append(_SourceTime(hour, match[2] or "", afternoon, f"{before.strip()[-len(form) :]}{match[0]}"))
                break
    return found


def _written_after(after: str, form: str) -> str:
    """The marker as the text writes it right after a time ('\u202fp.m.'), or '' when `form` is not there."""
    for end in range(1, len(after) + 1):
        folded = fold(after[:end]).strip()
        if folded == form and (end == len(after) or not after[end].isalnum() or UNSPACED_LETTER.match(after[end])):
            closing = "." in after[:end] and after[end : end + 1] == "."  # 'p.m.', not 'AM.' ending a sentence
            return after[: end + closing].rstrip()
        if not form.startswith(folded):
            break
    return ""


def _said(window: str, forms: frozenset[str]) -> bool:
    folded = fold(window)
    for form in forms:
        if UNSPACED_LETTER.search(form):  # Han, Thai: no spaces to bound a word
            if form in folded:
                return True
        elif re.search(rf"(?<![^\W\d_]){re.escape(form)}(?![^\W\d_])", folded):  # a word, or on a digit: '6:30PM'
            return True
    return False


def _clock(hour: int, minutes: str) -> str:
    """A pattern of the time in the target: '0?3[:.]00' with minutes; a bare hour may gain them ('3 PM' -> '3:00')."""
    tail = rf"[:.]{minutes}" if minutes else r"(?:[:.]00)?"
    return rf"(?<![\d:.,])0?{hour}{tail}(?![\d]|[:.,]\d)"


def day_period_changes(source: str, target: str, language: str, source_language: str = "en") -> list[DayPeriodChange]:
    """The source's clock times whose half of the day the translation garbles or turns over. Where the target
    writes the time several times (or the hour's number means something else too), one saying it rightly is
    enough."""
    theirs, ours = day_periods(source_language), day_periods(language)
    halves = (ours.morning | theirs.morning, ours.afternoon | theirs.afternoon)
    markers = (ours.markers[0] | theirs.markers[0], ours.markers[1] | theirs.markers[1])
    source_words = {fold(w) for w in re.findall(r"\w+", source)}

    def _unknown(word: str) -> bool:  # no day period, and not the source's ('EST' in '3 PM EST')
        return fold(word) not in ours.every and fold(word) not in source_words

    changes = []
    for time in _source_times(source, theirs):
        day_hour = time.hour % 12 + (12 if time.afternoon else 0)
        if day_hour >= 12 > time.hour and re.search(_clock(day_hour, time.minutes), target):
            continue  # on the 24-hour clock: '3:00 PM' -> '15:00'
        spots = list(re.finditer(_clock(time.hour, time.minutes), target))
        # the word where the marker stood, first: a day period near it may be another word ('mañana', tomorrow)
        garbled = next((w for m in spots if (w := _MARKER_WORD.match(target, m.end())) and _unknown(w[1])), None)
        if garbled:
            start = next(m.start() for m in spots if m.end() == garbled.start())
            changes.append(DayPeriodChange(time.text, target[start : garbled.end()], "garbled"))
            continue
        near = [target[max(0, m.start() - NEAR) : m.end() + NEAR] for m in spots]
        if not spots or any(_said(window, halves[time.afternoon]) for window in near):
            continue
        beside = [target[max(0, m.start() - 8) : m.end() + 8] for m in spots]  # a marker: 'mañana' is 'tomorrow'
        flipped = next((m for m, w in zip(spots, beside, strict=True) if _said(w, markers[not time.afternoon])), None)
        # an afternoon hour with minutes and no day period anywhere near reads as the morning's ('3:00 PM' ->
        # '3:00'); a bare '3' may be any number, so only its marker is judged
        lost = time.afternoon and time.minutes and time.hour < 12 and not any(_said(w, ours.every) for w in near)
        if flipped or lost:
            spot = flipped or spots[0]
            changes.append(DayPeriodChange(time.text, target[spot.start() : spot.end() + 8].strip(), "other_half"))
    return changes
