"""Which language a text is written in, two ways, each restricted to the languages in play.

- `identify` (lingua): an agent's reply, target + source language. Restricting the detector (e.g. to
  es, en) is what makes it both fast (a two-language detector loads in well under a second, the full
  75-language one takes ~29 s and 1.3 GB) and reliable on short agent turns. Whole strings only:
  lingua's multi-span mode mislabels identifiers.
- `judge_language` (py3langid, langid.py's maintained fork, its model in the wheel): is a
  translation target left in the source language (English)? Only prose is judged: kept values,
  placeholders, ids, codes, URLs and markdown are stripped first, and a text with too little prose
  left is not judged (None). The identifier chooses among the expected language, the source and
  the expected language's close relatives (es/ca/gl/pt, id/ms, zh/yue/ja): a close relative is
  never "wrong" (rule-based drafts mix them), only the source language held with high probability
  is. A false refusal blocks a correct correction, so the thresholds favour precision; they are
  calibrated on vi, id, es and measured held out on th, tl, ca, gl, zh by bench/language_id.py.

Pseudo-locales are not languages either identifier knows; callers check those by their rendering
(babelflow.target_language.in_pack_language), and `judge_language` returns None for them.
"""

from __future__ import annotations

import copy
import re
import threading
from collections.abc import Iterable
from functools import lru_cache

import langcodes
from babel import Locale
from lingua import IsoCode639_1, Language, LanguageDetectorBuilder
from py3langid.langid import MODEL_FILE, LanguageIdentifier
from pydantic import BaseModel, ConfigDict

from babelflow.errors import BabelflowError
from babelflow.language_tag import tag_too_long
from babelflow.text import SCRIPT_NAME_PREFIXES, WORD, in_script

_LETTERS = re.compile(r"[^\W\d_]")
_lock = threading.Lock()


def _lingua_language(tag: str):
    base = tag.split("-")[0].upper()
    code = getattr(IsoCode639_1, base, None)
    if code is None:
        return None
    return Language.from_iso_code_639_1(code)


def supported(tag: str) -> bool:
    return _lingua_language(tag) is not None


@lru_cache(maxsize=8)
def _detector(tags: tuple[str, ...]):
    languages = [_lingua_language(tag) for tag in tags]
    if any(language is None for language in languages) or len(set(languages)) < 2:
        raise BabelflowError(
            f"No language identifier for {', '.join(tags)}",
            field="--lang",
            fix="lingua knows 75 languages by ISO 639-1 code; pseudo-locales are checked by their rendering",
        )
    return LanguageDetectorBuilder.from_languages(*languages).build()


def identify(text: str, tags: tuple[str, ...], min_letters: int = 12) -> str | None:
    """The tag (one of `tags`) `text` is written in, or None when it has too few letters to say."""
    if len(_LETTERS.findall(text)) < min_letters:
        return None
    with _lock:  # the detector is shared; lingua's Python binding is not documented as thread-safe
        language = _detector(tuple(tags)).detect_language_of(text)
    if language is None:
        return None
    return next((tag for tag in tags if _lingua_language(tag) == language), None)


# ---- judge_language: is a translation target left in the source language? ------------------------

# Languages the identifier cannot tell reliably from the expected one on a short text (and that
# rule-based drafts mix): chosen among as candidates, so they absorb the probability, never "wrong".
_CLOSE: dict[str, tuple[str, ...]] = {
    "es": ("ca", "gl", "pt", "oc", "an", "ast", "ext", "it"),
    "ca": ("es", "gl", "pt", "oc", "an", "fr", "it"),
    "gl": ("es", "pt", "ca", "ast", "ext"),
    "pt": ("gl", "es", "ca"),
    "oc": ("ca", "es", "fr", "it"),
    "fr": ("oc", "ca", "wa", "it"),
    "it": ("es", "ca", "vec", "lij", "co", "fr"),
    "id": ("ms", "jv", "su", "ace"),
    "ms": ("id", "jv"),
    "jv": ("id", "ms", "su"),
    "tl": ("bcl", "ceb", "war"),
    "zh": ("yue", "wuu", "ja"),
    "yue": ("zh", "wuu"),
    "ja": ("zh",),
    "ru": ("uk", "be", "bg"),
    "uk": ("ru", "be"),
    "sr": ("hr", "bs"),
    "hr": ("sr", "bs"),
    "bs": ("hr", "sr"),
    "no": ("da", "sv", "nn"),
    "nn": ("no", "da", "sv"),
    "da": ("no", "sv"),
    "sv": ("no", "da"),
    "nl": ("af", "fy"),
    "af": ("nl",),
    "de": ("lb", "nl"),
    "cs": ("sk",),
    "sk": ("cs",),
    "hi": ("mr", "ne"),
    "ur": ("fa",),
    "fa": ("ur",),
    "ar": ("ary", "arz"),
}
# The identifier's codes for tags langcodes standardizes differently (tl -> fil, zh-yue...).
_ALIASES = {"fil": "tl", "nb": "no", "cmn": "zh", "zsm": "ms", "ekk": "et", "lvs": "lv", "arb": "ar", "gsw": "de"}
# ISO 3166-1 user-assigned regions (en-XA, ar-XB are pseudo-locales) and qaa-qtz / qps-* languages.
_PRIVATE_REGION = re.compile(r"^(?:AA|Q[M-Z]|X[A-Z]|ZZ)$", re.I)
_PRIVATE_LANGUAGE = re.compile(r"^(?:q[a-t][a-z])$", re.I)
_NAMES = Locale("en").languages
_SCRIPTS = {**Locale("en").scripts, "Hans": "Han", "Hant": "Han", "Jpan": "Japanese", "Kore": "Hangul"}

# What is not prose, stripped before identifying (replaced by a space).
_MARKUP = re.compile(
    r"```.{0,4000}?```"  # fenced code
    r"|`[^`\n]{0,400}`"  # inline code
    r"|!\[[^\]\n]{0,200}\]\([^)\n]{0,400}\)"  # an image
    r"|\]\([^)\s]{0,400}\)"  # a link's target (its text stays)
    r"|<[^<>\n]{1,200}>"  # an HTML tag, an autolink, <x id="3"/>
    r"|⟦[^⟧\n]{0,40}⟧"  # our placeholders
    r"|\$?\{\{?[^{}\n]{0,200}\}?\}"  # {slot}, {{slot}}, ${slot}
    r"|%(?:\([A-Za-z_]\w*\))?[-#0+]?\d*(?:\.\d+)?[sdifxXeEgGcr](?![A-Za-z])"  # printf: %s, %(name)s, %.2f
    r"|(?:https?|ftp|file)://\S+|www\.\S+",  # URLs
    re.S,
)
# A run of ASCII word and code characters not glued to a Latin letter (Đặt: the "t" is not a run);
# CJK and Thai text writes codes with no space around them, so those letters do not stop a run.
_LATIN_LETTER = "A-Za-z\u00aa\u00b5\u00ba\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f\u1e00-\u1eff"
_RUN = re.compile(rf"(?<![{_LATIN_LETTER}0-9])[A-Za-z0-9_#@./:%+~\\'’-]+(?![{_LATIN_LETTER}0-9])")
_CODE_CHARS = re.compile(r"[0-9_#@%+~\\:]")
_CAMEL = re.compile(r"[a-z][A-Z]")
_MARKDOWN = re.compile(r"[*_~`#>|=\[\]]+|^[ \t]{0,16}(?:[-+]|\d{1,9}[.)])\s", re.M)
_SPACES = re.compile(r"\s+")
_ASCII_LETTER, _ASCII_UPPER = re.compile("[A-Za-z]"), re.compile("[A-Z]")
# Scripts written without spaces between words: a word is ~2 letters there (Thai, Lao, Khmer, Myanmar, CJK).
_UNSPACED = re.compile("[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


class LanguageThresholds(BaseModel):
    """When `judge_language` judges and when it refuses (calibrated by bench/language_id.py)."""

    model_config = ConfigDict(frozen=True)

    min_letters: int = 15  # fewer letters of prose left: not judged
    min_words: int = 3  # fewer words of prose left: not judged (an unspaced script's word is ~2 letters)
    min_probability: float = 0.95  # the source language's probability among the candidates, to refuse


DEFAULT_THRESHOLDS = LanguageThresholds()


class LanguageVerdict(BaseModel):
    """Which language a translation target's prose is in, and whether that refuses it."""

    model_config = ConfigDict(frozen=True)

    language: str  # the expected language's tag, as given (es, zh-Hans, pt-BR)
    expected: str  # its identifier code (es, zh, pt)
    detected: str  # the most likely candidate's code
    probability: float  # the detected language's probability among the candidates
    expected_probability: float  # the expected language's (close relatives' shares not included)
    candidates: tuple[str, ...]  # what the identifier chose among, expected first
    judged: str  # the prose actually judged: the text without kept values, placeholders, ids and markup
    wrong: bool  # confidently in the source language (English): the target should be refused
    message: str  # for a person: what was found and, when wrong, the fix


@lru_cache(maxsize=1)
def _full_identifier() -> LanguageIdentifier:
    return LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)


@lru_cache(maxsize=64)
def _identifier(candidates: tuple[str, ...]) -> LanguageIdentifier:
    """An identifier restricted to `candidates`: a shallow copy sharing the model's tokenizer."""
    with _lock:
        restricted = copy.copy(_full_identifier())
        restricted.set_languages(list(candidates))
    return restricted


@lru_cache(maxsize=256)
def identifier_code(tag: str) -> str | None:
    """The identifier's code for a language tag (zh-Hans -> zh, pt-BR -> pt, fil -> tl), or None for a
    pseudo-locale (en-XA, ar-XB, any private-use region or language) and a language it does not know."""
    if tag_too_long(tag):
        return None
    try:
        parsed = langcodes.Language.get(tag)
    except (ValueError, LookupError, RecursionError):
        return None
    if parsed.language is None or _PRIVATE_LANGUAGE.match(parsed.language) or parsed.language == "qps":
        return None
    if parsed.territory and _PRIVATE_REGION.match(parsed.territory):
        return None
    code = _ALIASES.get(parsed.language, parsed.language)
    return code if code in _full_identifier().labels else None


@lru_cache(maxsize=256)
def _script(tag: str) -> str | None:
    """The ISO 15924 script `tag` is written in when it is one babelflow.text can test (Thai, Hans,
    Cyrl...), else None (Latin, or unknown)."""
    try:
        script = langcodes.Language.get(tag).maximize().script
    except (ValueError, LookupError, RecursionError):
        return None
    return script if script in SCRIPT_NAME_PREFIXES else None


def _name(code: str) -> str:
    return _NAMES.get(code) or code


def _code_like(core: str, shouting: bool) -> bool:
    if _CODE_CHARS.search(core) or core.startswith(("/", ".")) or "." in core:
        return True  # ids, amounts, emails, #W2378156, paths, file names, domains
    if _CAMEL.search(core):
        return True  # camelCase, HomeKit, iPhone
    letters = [c for c in core if c.isalpha()]
    return not shouting and len(letters) >= 2 and all(c.isupper() for c in letters)  # RGB, USA, XL


@lru_cache(maxsize=1024)
def _kept_pattern(kept: tuple[str, ...]) -> re.Pattern[str] | None:
    """Any of the kept values (longest first, any case), as whole words where it starts or ends with a
    Latin letter or digit: a kept size "M" does not take the M of "Make"."""
    if not kept:
        return None
    edge = re.compile(f"[{_LATIN_LETTER}0-9]")
    parts = [
        (rf"(?<![{_LATIN_LETTER}0-9])" if edge.match(value[0]) else "")
        + re.escape(value)
        + (rf"(?![{_LATIN_LETTER}0-9])" if edge.match(value[-1]) else "")
        for value in kept
    ]
    return re.compile("|".join(parts), re.I)


def prose_of(text: str, kept: Iterable[str] = ()) -> str:
    """`text` without what is not prose: the `kept` strings (entity values kept by policy, protected
    tokens), markup, placeholders, URLs, and code-like runs (ids, codes, emails, paths, snake_case,
    camelCase, ALLCAPS codes); whitespace collapsed."""
    pattern = _kept_pattern(tuple(sorted({k.strip() for k in kept if k and k.strip()}, key=lambda k: (-len(k), k))))
    if pattern is not None:
        text = pattern.sub(" ", text)
    text = _MARKUP.sub(" ", text)
    latin, upper = len(_ASCII_LETTER.findall(text)), len(_ASCII_UPPER.findall(text))
    shouting = latin >= 8 and upper > 0.8 * latin  # a sentence in capitals is prose, not codes

    def run(match: re.Match[str]) -> str:
        core = match.group().strip(".,:;'’-/")
        if not core or _code_like(core, shouting):
            return " "
        return match.group().replace("/", " ")  # and/or, meals/buns: two words

    text = _RUN.sub(run, text)
    text = _MARKDOWN.sub(" ", text)
    return _SPACES.sub(" ", text).strip()


def _words(text: str) -> int:
    count = 0
    for word in WORD.findall(text):
        unspaced = len(_UNSPACED.findall(word))
        count += (1 if unspaced < len(word) else 0) + unspaced // 2
    return count


def judge_language(
    text: str,
    language: str,
    kept: Iterable[str] = (),
    *,
    source: str = "en",
    thresholds: LanguageThresholds = DEFAULT_THRESHOLDS,
) -> LanguageVerdict | None:
    """Is `text`, a translation target for `language`, left in the `source` language (English)?

    None when not judged: a pseudo-locale or a language the identifier does not know, a target
    whose expected language is the source's or its close relative, or too little prose once
    `kept` values, placeholders, ids, codes and markup are stripped. `wrong` only when the source
    language has at least `thresholds.min_probability` among the candidates; a close relative of
    the expected language (Catalan or Galician for Spanish, Malay for Indonesian) is never wrong.
    """
    expected = identifier_code(language)
    if expected is None:
        return None
    close = tuple(c for c in _CLOSE.get(expected, ()) if c in _full_identifier().labels)
    source_code = identifier_code(source)
    wrong_codes = tuple(dict.fromkeys(c for c in (source_code, "en") if c and c != expected and c not in close))
    if not wrong_codes:
        return None  # nothing this check can tell apart: an English target of an English source
    judged = prose_of(text, kept)
    letters = len(_LETTERS.findall(judged))
    if letters < thresholds.min_letters or _words(judged) < thresholds.min_words:
        return None
    candidates = (expected, *wrong_codes, *close)
    ranked = _identifier(tuple(sorted(candidates))).rank(judged)
    detected, probability = ranked[0]
    expected_probability = next(p for code, p in ranked if code == expected)
    # Prose without one letter of the expected script (Thai, Han, Cyrillic) is not in that language,
    # whatever share of a short Latin text the identifier's zh, wuu and yue classes take: most likely is enough.
    script = _script(language) if detected in wrong_codes else None
    unscripted = script is not None and not any(in_script(c, script) for c in judged if c.isalpha())
    wrong = detected in wrong_codes and (unscripted or probability >= thresholds.min_probability)
    note = f", not one {_SCRIPTS.get(script or '', script)} letter" if unscripted else ""
    found = f"reads as {_name(detected)} (p={probability:.2f}{note})"
    if wrong:
        message = (
            f"This {_name(expected)} target {found}: {_name(detected)} left in place. Translate it into "
            f"{_name(expected)}; if a name, product or code must stay as written, keep it as an entity value "
            "or protected token so this check strips it."
        )
    elif detected in close:
        message = f"Accepted: {found}, a close relative of {_name(expected)} (never refused)."
    elif detected in wrong_codes:
        message = f"Accepted: {found}, below the refusal threshold {thresholds.min_probability:.2f}."
    else:
        message = f"Accepted: {found}."
    return LanguageVerdict(
        language=language,
        expected=expected,
        detected=detected,
        probability=round(probability, 4),
        expected_probability=round(expected_probability, 4),
        candidates=candidates,
        judged=judged,
        wrong=wrong,
        message=message,
    )
