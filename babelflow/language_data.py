"""Per-language facts the validators need, from data files and CLDR, for any BCP 47 tag.

`data/language_data.toml` holds what was measured on real translations (length ratios) and what
a reviewer knows (loanwords); a tag without an entry falls back to its script's entry, the script
coming from CLDR likely-subtags (langcodes). Number symbols and month names come from CLDR
(babel). Pseudo-locales (en-XA, ar-XB) are not CLDR locales: they get English CLDR data.
"""

from __future__ import annotations

import re
import tomllib
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import langcodes
from babel import Locale, UnknownLocaleError
from babel.numbers import get_decimal_symbol, get_group_symbol

from babelflow.language_tag import tag_too_long
from babelflow.text import SCRIPT_NAME_PREFIXES

_DATA = Path(__file__).with_name("data") / "language_data.toml"
_FALLBACK_BAND = (0.3, 3.5)  # unknown script: only gross cuts and duplications are flagged
DEFAULT_TOKEN_RATIO = 1.3  # a language no real translation measured: about Vietnamese's and Indonesian's
_BAND_MARGIN = (0.6, 1.5)  # observed [p1, p99] widened: free translation varies, cuts do not


@dataclass(frozen=True)
class LanguageData:
    tag: str
    script: str
    length_observed: tuple[float, float, float]  # [p1, median, p99] of target/source characters
    length_source: str  # "language", "script" or "fallback": where the band came from
    loanwords: frozenset[str] = field(default_factory=frozenset)
    unspaced: bool = False
    decimal: str = "."
    group: str = ","
    months: dict[str, int] = field(default_factory=dict)  # lowercase month name/abbreviation -> 1..12
    number_words: tuple[str, ...] = ()  # number words 0.. of the language, index = value
    han_numerals: bool = False  # numbers written in Han numerals (zh: 二十一, 两)
    counters: str = ""  # measure words a count takes ('1个', '1人份'): a count of one may lose its number
    hour_words: dict[str, tuple[int, ...]] = field(default_factory=dict)  # 'midnight' -> hours it names
    # articles and prepositions: two sentences whose other words agree say one thing in two wordings
    function_words: frozenset[str] = field(default_factory=frozenset)
    token_ratio: float = DEFAULT_TOKEN_RATIO  # tokens for a text / its English's (measured: language_data.toml)
    token_ratio_measured: bool = False

    @property
    def length_band(self) -> tuple[float, float]:
        low, _, high = self.length_observed
        return (round(low * _BAND_MARGIN[0], 2), round(high * _BAND_MARGIN[1], 2))


@lru_cache(maxsize=1)
def _table() -> dict:
    return tomllib.loads(_DATA.read_text(encoding="utf-8"))


def script_of_tag(tag: str) -> str:
    """ISO 15924 script of a tag (CLDR likely subtags); pseudo-locales by what they render."""
    if tag == "ar-XB":
        return "Arab"
    if tag_too_long(tag):  # never handed to the parsers (checked at the CLI; this is the last guard)
        return "Latn"
    try:
        return langcodes.Language.get(tag).maximize().script or "Latn"
    except (ValueError, LookupError):
        return "Latn"


@lru_cache(maxsize=64)
def language_data(tag: str) -> LanguageData:
    table = _table()
    languages = table.get("languages", {})
    script = script_of_tag(tag)
    entry = languages.get(tag) or languages.get(tag.split("-")[0]) or {}
    if "length" in entry:
        observed, origin = tuple(entry["length"]), "language"
    elif script in table.get("scripts", {}):
        observed, origin = tuple(table["scripts"][script]), "script"
    else:
        observed, origin = (_FALLBACK_BAND[0] / _BAND_MARGIN[0], 1.0, _FALLBACK_BAND[1] / _BAND_MARGIN[1]), "fallback"
    decimal, group, months = _cldr_numbers_and_months(tag)
    return LanguageData(
        tag=tag,
        script=script,
        length_observed=observed,
        length_source=origin,
        loanwords=frozenset(w.lower() for w in entry.get("loanwords", []) + table.get("names_everywhere", [])),
        unspaced=script in table.get("unspaced_scripts", []),
        decimal=decimal,
        group=group,
        months=months,
        number_words=tuple(entry.get("number_words", ())),
        han_numerals=bool(entry.get("han_numerals", False)),
        counters=str(entry.get("counters", "")),
        hour_words={word: tuple(hours) for word, hours in entry.get("hour_words", {}).items()},
        function_words=frozenset(w.lower() for w in entry.get("function_words", [])),
        token_ratio=float(entry.get("token_ratio", DEFAULT_TOKEN_RATIO)),
        token_ratio_measured="token_ratio" in entry,
    )


def _cldr_numbers_and_months(tag: str) -> tuple[str, str, dict[str, int]]:
    try:
        locale = Locale.parse("en" if tag_too_long(tag) else tag, sep="-")
    except (UnknownLocaleError, ValueError):
        locale = Locale.parse("en")
    months: dict[str, int] = {}
    for width in ("wide", "abbreviated"):
        for context in ("format", "stand-alone"):
            for number, name in locale.months[context][width].items():
                months[name.lower().rstrip(".")] = number
    return get_decimal_symbol(locale), get_group_symbol(locale), months


# ---- numbers ---------------------------------------------------------------------------------

_NUMBER = re.compile(r"\d+(?:[.,\u00a0\u202f]\d+)*")


def numbers_in(text: str, data: LanguageData) -> list[str]:
    """Numeric values written in `text`, read with the language's CLDR symbols or the English
    ones (a translation may keep either): vi '8.276,23' and '8,276.23' both give '8276.23'."""
    return [_normalize(m.group(0), data) for m in _NUMBER.finditer(text)]


def _normalize(raw: str, data: LanguageData) -> str:
    compact = raw.replace("\u00a0", " ").replace("\u202f", " ")
    # the language's own symbols first: vi '1.628' is one thousand six hundred and twenty-eight
    for decimal, group in ((data.decimal, data.group.replace("\u00a0", " ").replace("\u202f", " ")), (".", ",")):
        candidate = compact
        if group and group != decimal and group in candidate:
            head, _, tail = candidate.partition(decimal) if decimal in candidate else (candidate, "", "")
            parts = head.split(group)
            if all(len(p) == 3 for p in parts[1:]) and 1 <= len(parts[0]) <= 3:
                candidate = "".join(parts) + (decimal + tail if tail else "")
        if re.fullmatch(r"\d+", candidate):
            return str(int(candidate))  # "02" and "2" are one value (times, days)
        if candidate.count(decimal) == 1 and re.fullmatch(r"\d+" + re.escape(decimal) + r"\d+", candidate):
            return candidate.replace(decimal, ".")
    return compact


def month_numbers(text: str, data: LanguageData) -> list[int]:
    """Months named in `text` (CLDR names of the language): 'April 2023' allows a '4' in
    'tháng 4 năm 2023'."""
    words = [w.rstrip(".") for w in re.findall(r"[^\W\d_]+\.?", text.lower())]
    return [data.months[w] for w in words if len(w) >= 3 and w in data.months]


def spelled_numbers(text: str, data: LanguageData) -> list[int]:
    """Numbers written as words in `text` ("two problems"), from the language's number words, or in Han
    numerals where the language writes them ("二十一点" = 21, "三四点" = 3 and 4)."""
    index = {word: value for value, word in enumerate(data.number_words)}
    found = [index[w] for w in re.findall(r"[^\W\d_]+", text.lower()) if w in index]
    if data.han_numerals:
        for match in _HAN_NUMBER.finditer(text):
            found += han_numbers(match.group(0))
    return found


def number_equivalents(text: str, data: LanguageData) -> list[tuple[str | None, tuple[str, ...]]]:
    """Quantities a translation may write as other numbers, where the language measures so: (the number as
    `text` writes it in digits, or None for words; the values it may become). zh: tenths ('3分糖', '7成干'
    are 30% sugar, 70% dry), half and quarter hours ('六点半' 6:30, '六点三刻' 6:45, '半小时' 30 minutes), and
    the market weights (jin 斤 = 500 g, liang 两 = 50 g: '2斤' is 1 kg, '半斤' 250 g)."""
    if not data.han_numerals:
        return []
    out: list[tuple[str | None, tuple[str, ...]]] = []
    for number, unit in _HAN_MEASURE.findall(text):
        value = 0.5 if number == "半" else float(number) if number[0].isdigit() else float(han_numbers(number)[-1])
        written = number if number[0].isdigit() else None
        out.append((written, tuple(_plain(value * factor) for factor in _HAN_MEASURE_FACTORS[unit])))
    out += [(None, ("30",))] * (text.count("点半") + text.count("半小时") + text.count("半个小时"))
    return out


def _plain(value: float) -> str:
    return str(int(value)) if value == int(value) else str(value)


_HAN_DIGITS = dict(zip("零〇一二两三四五六七八九", (0, 0, 1, 2, 2, 3, 4, 5, 6, 7, 8, 9), strict=True))
_HAN_UNITS = {"十": 10, "百": 100, "千": 1000}
_HAN_NUMBER = re.compile("[零〇一二两三四五六七八九十百千万]+")
# what one of each measure may become: tenths as a percentage, a quarter hour's minutes, grams (and a jin's kg)
_HAN_MEASURE_FACTORS = {"分": (10,), "成": (10,), "刻": (15,), "斤": (500, 0.5), "两": (50,)}
_HAN_MEASURE = re.compile(
    r"(?<![\d.零〇一二两三四五六七八九十百千万])(半|\d+(?:\.\d+)?|[零〇一二两三四五六七八九十百千万]+)(分|成|刻|斤|两)"
)


def han_numbers(numeral: str) -> list[int]:
    """The values a Han numeral run says: 二十一 = 21, 两百 = 200, 一万二千 = 12000; a run without units
    is a year read digit by digit (二〇二五 = 2025) or a range of digits (三四点: 3 and 4 o'clock)."""
    if not any(c in _HAN_UNITS or c == "万" for c in numeral):
        digits = [_HAN_DIGITS[c] for c in numeral]
        return [int("".join(map(str, digits)))] if len(digits) >= 3 else digits
    total = section = digit = 0
    for char in numeral:
        if char in _HAN_DIGITS:
            digit = _HAN_DIGITS[char]
        elif char in _HAN_UNITS:
            section += (digit or 1) * _HAN_UNITS[char]
            digit = 0
        else:  # 万
            total += (section + digit or 1) * 10000
            section = digit = 0
    return [total + section + digit]


@lru_cache(maxsize=4096)
def written_number(value: int, tag: str) -> str | None:
    """`value` as the language writes it in words ('ba' in vi, 'dua belas' in id), from num2words; None
    where num2words has no rules for the language."""
    from num2words import num2words  # noqa: PLC0415 - only when a number is missing from a translation

    try:
        return num2words(value, lang=tag.split("-")[0].lower()).casefold()
    except (NotImplementedError, OverflowError, ValueError, TypeError):
        return None


def written_as_word(value: int, text: str, data: LanguageData) -> bool:
    """Does `text` write `value` as a word of its language? Only where words are spaced: a Thai number word
    is also the start of longer words ('สาม' in 'สามารถ', 'can'), which no pattern tells apart."""
    word = written_number(value, data.tag) if not data.unspaced else None
    if not word:
        return False
    return _has_word(word, text.casefold())


def _has_word(word: str, folded: str) -> bool:
    """Does the casefolded text hold `word` whole (not inside a longer word)?"""
    return re.search(rf"(?<!\w){re.escape(word)}(?!\w)", folded) is not None


def counted_ones(text: str, data: LanguageData) -> int:
    """Counts of one written with a measure word ('送煎蛋1个', '1人份'): the target's singular says them
    ('with Fried Egg', 'Single Portion'), so their number may go."""
    if not data.counters:
        return 0
    return len(re.findall(rf"(?<![\d.])[1一][{re.escape(data.counters)}]", text))


def hour_named(hour: int, text: str, data: LanguageData) -> bool:
    """Does `text` name this hour by a word ('凌晨12点' -> 'midnight', '12点' -> 'noon')?"""
    folded = text.casefold()
    return any(hour in hours and _has_word(word, folded) for word, hours in data.hour_words.items())


# ---- scripts ---------------------------------------------------------------------------------


def in_script(char: str, script: str) -> bool:
    """Is `char` a letter of `script` (ISO 15924)?"""
    name = unicodedata.name(char, "")
    if script == "Latn":
        return name.startswith("LATIN")
    return name.startswith(SCRIPT_NAME_PREFIXES.get(script, ("\0",)))
