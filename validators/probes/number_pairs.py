"""Numbers compared between a source text and its translation, by value in each side's CLDR forms: what
`number_changed` (pair_checks.py) reports, and whether a changed number is one a tool, evaluator or user
reads."""

from __future__ import annotations

import re
from collections import Counter

from babelflow.language_data import (
    counted_ones,
    hour_named,
    language_data,
    month_numbers,
    number_equivalents,
    numbers_in,
    spelled_numbers,
    written_as_word,
)

_DIGITS = re.compile(r"\d+(?:[.,]\d+)*")


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
        # not inside a longer number ('1.6', '16'); after an abbreviation's dot it is one ('No.6' = 'Núm. 6')
        pattern = re.compile(rf"(?<!\d)(?<!\d[.,]){re.escape(number)}(?![\d]|[.,]\d)")
        source = pattern.sub(" ", source, count=count)
        target = pattern.sub(" ", target, count=count)
    return source, target


def _groups_listed(extra: Counter, missing: Counter, source: str) -> None:
    """'101,102,110' (rooms 101, 102 and 110) reads as one grouped number; a target listing its groups
    ('Room B1-101, 102, 110') says the same."""
    for grouped in re.findall(r"(?<![\d.])\d{1,3}(?:,\d{3})+(?!\d)", source):
        parts = grouped.split(",")
        joined = "".join(parts)
        if missing.get(joined) and all(extra.get(p) for p in parts):
            missing[joined] -= 1
            for part in parts:
                extra[part] -= 1


def numbers_changed(source: str, target: str, language: str, source_language: str = "en") -> tuple[str, str] | None:
    """Numbers compared by value in each side's CLDR forms ('$8,276.23' = '8.276,23 đô la');
    a month the source names may appear as its number ('April 2023' -> 'tháng 4 năm 2023'), and one it
    writes as a number as its name ('2025年10月24日' -> 'October 24, 2025'); an hour may change clocks
    ('21点' -> '9 PM'), a measure its unit ('2斤' -> '1kg')."""
    source_data, target_data = language_data(source_language), language_data(language)
    # a whole hour's minutes say nothing ('十一点' -> '11:00 AM', '2 PM' -> '14:00')
    whole_source, whole_target = _WHOLE_HOUR.sub("", source), _WHOLE_HOUR.sub("", target)
    source, target = _without_kept_numbers(whole_source, whole_target)
    if re.search(r"\d:\d\d", source):  # CLDR times: "2:30 AM" may become "pukul 02.30" (id)
        target = re.sub(r"\b(\d{1,2})\.(\d{2})\b", r"\1:\2", target)
    expected = Counter(numbers_in(source, source_data))
    found = Counter(numbers_in(target, target_data))
    if expected == found:
        return None
    extra = found - expected
    missing = expected - found
    for written, forms in number_equivalents(whole_source, source_data):  # '3分糖' -> '30% Sugar'
        form = next((f for f in forms if extra.get(f)), None)
        if form is not None:
            extra[form] -= 1
            number = numbers_in(written, source_data)[0] if written is not None else None
            if number is not None and missing.get(number):
                missing[number] -= 1
    for month in month_numbers(source, source_data) + spelled_numbers(source, source_data):
        for form in (str(month), f"{month:02d}"):
            if extra.get(form):
                extra[form] -= 1
                break
    named_months = month_numbers(target, target_data)
    ones = counted_ones(whole_source, source_data)
    for number in list((+missing).elements()):  # a count the target writes as a word ('three' -> 'ba')
        if number.isdigit() and int(number) <= 100 and written_as_word(int(number), target, target_data):
            missing[number] -= 1
        elif number.isdigit() and int(number) in named_months:  # '10月' -> 'October'
            named_months.remove(int(number))
            missing[number] -= 1
        elif number.isdigit() and hour_named(int(number), target, target_data):  # '凌晨12点' -> 'midnight'
            missing[number] -= 1
        elif number == "1" and ones > 0:  # '送煎蛋1个' -> 'with Fried Egg'
            ones -= 1
            missing[number] -= 1
    _other_clock(extra, missing, whole_source, whole_target)
    _groups_listed(extra, missing, whole_source)
    if +extra or +missing:
        return " ".join(sorted(expected.elements())), " ".join(sorted(found.elements()))
    return None


_WHOLE_HOUR = re.compile(r"(?<=\d):00(?!\d|:\d)")
_AFTERNOON = r"(?::\d\d)?\s*p\.?\s?m\b"  # '9 PM', '9:30 p.m.', '9pm'


def _other_clock(extra: Counter, missing: Counter, source: str, target: str) -> None:
    """An hour written on the other clock is the same hour: '21点' -> '9 PM', '9 p.m.' -> '21:00'.
    Cancels such pairs from `extra` and `missing` (in place)."""
    for number in list((+missing).elements()):
        if not number.isdigit():
            continue
        hour = int(number)
        # (the hour as the other side writes it, the hour that side says in the afternoon, the side)
        for other, afternoon, side in ((hour - 12, hour - 12, target), (hour + 12, hour, source)):
            said = 1 <= afternoon <= 11 and re.search(rf"(?<!\d){afternoon}{_AFTERNOON}", side, re.IGNORECASE)
            if said and extra.get(str(other)):
                extra[str(other)] -= 1
                missing[number] -= 1
                break


_READ_NUMBER = re.compile(r"^(?:[$#€£]|\d[\d,]*[.:]\d|\d{4,}|\d+\s*(?:[ap]\.?m\b|[A-Za-z]))")


def read_number(source: str, numbers: list[str], tokens: list[str]) -> bool:
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
