"""The words a language marks a clock time's half of the day with, from CLDR (babel): 'AM'/'PM', 'a. m.'
(es), 'SA'/'CH' and 'sáng'/'chiều' (vi), '上午'/'下午' (zh), 'de la tarde' (es). A translation may keep the
source's English 'AM'/'PM' too. Compared folded: accents, case, dots and spacing aside ('a.\u202fm.' = 'am')."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from babel import Locale, UnknownLocaleError

from babelflow.language_tag import tag_too_long

NOON = 12 * 3600


def _half(key: str, rules) -> str:
    """'morning' or 'afternoon' when the period's CLDR range lies in that half of the day, else 'other'.
    'am'/'pm' are the halves themselves. A range only an hour beside noon is used loosely ('中午11:45', zh
    noon-time, is CLDR's 12:00-13:00 afternoon1), one that crosses noon ('siang', id, 10:00-15:00), wraps past
    midnight or is an instant (noon, midnight) says neither."""
    if key in ("am", "pm"):
        return "morning" if key == "am" else "afternoon"
    spans = rules.get(key) or []
    if len(spans) != 1 or "from" not in spans[0] or "before" not in spans[0]:
        return "other"
    start, end = spans[0]["from"], spans[0]["before"]
    if start < end <= NOON and start < NOON - 3600:
        return "morning"
    if NOON <= start < end and end > NOON + 3600:
        return "afternoon"
    return "other"


def fold(text: str) -> str:
    """Accents, case and dots dropped, spaces made one: 'a.\u202fm.' -> 'am', 'Sáng' -> 'sang'."""
    decomposed = unicodedata.normalize("NFKD", text)
    plain = "".join(c for c in decomposed if unicodedata.category(c) != "Mn").casefold().replace(".", "")
    return re.sub(r"\b([ap]) m\b", r"\1m", re.sub(r"\s+", " ", plain))


@dataclass(frozen=True)
class DayPeriods:
    morning: frozenset[str]  # folded forms that say before noon ('am', 'de la mañana')
    afternoon: frozenset[str]  # folded forms that say after noon ('pm', 'de la tarde')
    other: frozenset[str]  # noon, midnight, night: a day period, but neither half for certain
    markers: tuple[frozenset[str], frozenset[str]]  # the AM and PM markers alone: 'mañana' is 'tomorrow' too

    @property
    def every(self) -> frozenset[str]:
        return self.morning | self.afternoon | self.other


@lru_cache(maxsize=64)
def day_periods(tag: str) -> DayPeriods:
    """Every CLDR form (format and stand-alone; abbreviated and wide: narrow ones are single letters) of `tag`,
    with English's 'am'/'pm' (which a translation may keep). A pseudo-locale or an unknown tag gets English's."""
    try:
        locale = Locale.parse("en" if tag_too_long(tag) else tag, sep="-")
    except (UnknownLocaleError, ValueError):
        locale = Locale.parse("en")
    halves: dict[str, set[str]] = {"morning": {"am"}, "afternoon": {"pm"}, "other": set()}
    markers: dict[str, set[str]] = {"am": {"am"}, "pm": {"pm"}}
    rules = locale.day_period_rules.get(None, {})
    for widths in locale.day_periods.values():
        for width, forms in widths.items():
            if width == "narrow":  # 'a', 'p', 'mi' (en): letters any sentence holds
                continue
            for key, form in forms.items():
                half = _half(key, rules)
                if folded := fold(form).strip():
                    halves[half].add(folded)
                    if key in markers:
                        markers[key].add(folded)
    ambiguous = halves["morning"] & halves["afternoon"]  # a form CLDR lists on both sides says neither
    return DayPeriods(
        morning=frozenset(halves["morning"] - ambiguous),
        afternoon=frozenset(halves["afternoon"] - ambiguous),
        other=frozenset(halves["other"] | ambiguous),
        markers=(frozenset(markers["am"] - markers["pm"]), frozenset(markers["pm"] - markers["am"])),
    )


@lru_cache(maxsize=64)
def written_markers(tag: str) -> tuple[str, str]:
    """The AM and PM markers a text in `tag` writes after a time (CLDR's abbreviated format: 'a. m.',
    'p. m.' in es), with an ordinary space: a harness that prints non-ASCII spaces escaped showed AgentDojo's
    agent CLDR's U+202F as 'p.\\u202fm.' in travel's opening hours. ('', '') when CLDR has none."""
    try:
        periods = Locale.parse(tag.split("-")[0]).day_periods["format"]["abbreviated"]
    except (UnknownLocaleError, ValueError, KeyError):
        return ("", "")
    am, pm = (periods.get(key, "").replace("\u202f", " ").replace("\u00a0", " ") for key in ("am", "pm"))
    return (am, pm)
