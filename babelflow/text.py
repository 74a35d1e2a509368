"""Text rules every stage shares: placeholder and word patterns, the pseudo-locale alphabets,
script tables, and the signs of a model that answered instead of translating.

One definition each, so the translator that writes ``⟦N⟧`` and the validator that looks for a
left-over one cannot drift apart.
"""

from __future__ import annotations

import re
import unicodedata

# ---- placeholders ------------------------------------------------------------------------------
PLACEHOLDER = re.compile(r"⟦([0-9]+)⟧")  # group 1: the index
PLACEHOLDER_OPEN, PLACEHOLDER_CLOSE = "⟦", "⟧"


def placeholder(index: int | str) -> str:
    return f"{PLACEHOLDER_OPEN}{index}{PLACEHOLDER_CLOSE}"


# ---- words, slots, tokens ----------------------------------------------------------------------
WORD = re.compile(r"[^\W\d_]+")  # a run of letters in any script
CONTROL_TOKEN = re.compile(r"#{3}[A-Z][A-Z_-]*#{3}")  # ###STOP###, ###TRANSFER###
FORMAT_SLOT = re.compile(r"\{[A-Za-z_][A-Za-z0-9_.]*\}")  # str.format slots: {user_id}, {order.id}
# a file path is a value, never prose; it starts where a run of path characters starts (linear search)
PATH_LIKE = re.compile(r"(?<![\w.-])[\w.-]+(?:/[\w.-]+)+")


def without_tokens(text: str, tokens: list[str]) -> str:
    """`text` with each kept token replaced by a space (longest first, so no token eats another)."""
    for token in sorted(tokens, key=len, reverse=True):
        text = text.replace(token, " ")
    return text


# ---- pseudo-locales ----------------------------------------------------------------------------
# en-XA: one precomposed, non-ASCII look-alike per ASCII letter (after Android's pseudolocalizer),
# so every letter changes and lengths are unchanged before padding.
PSEUDO_ACCENTS: dict[str, str] = dict(
    zip(
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
        "åƀçðéƒĝĥîĵķļɱñöþǫŕšţûṽŵẋýžÅƁÇÐÉƑĜĤÎĴĶĻṀÑÖÞǪŔŠŢÛṼŴẊÝŽ",
        strict=True,
    )
)
PSEUDO_ACCENTED_LETTERS = frozenset(PSEUDO_ACCENTS.values())
ACCENT_TABLE = str.maketrans(PSEUDO_ACCENTS)
UNACCENT_TABLE = str.maketrans({accented: plain for plain, accented in PSEUDO_ACCENTS.items()})
# ar-XB: each letter run is wrapped in a right-to-left override ... pop directional formatting.
RLO, PDF = "\u202e", "\u202c"
MIRRORED_RUN = re.compile(f"{RLO}([^{RLO}{PDF}]*){PDF}")  # runs never nest: an unclosed RLO is scanned once


def unmirror(text: str) -> str:
    """Undo ar-XB runs: "\u202esnaol\u202c" -> "loans"."""
    return MIRRORED_RUN.sub(lambda m: m.group(1)[::-1], text)


PSEUDO_PADDING = re.compile(r"(?: (?:one|two|three|four|five|six|seven|eight|nine|ten))+(?=\])")  # en-XA's


def comparable(text: str, style: str | None) -> str:
    """Pseudo-locale text made comparable across fields: ar-XB runs read forward; en-XA's brackets
    and padding words gone and its accents undone ('[Ŵåţéŕ Ɓöţţļé one two]' and 'ŵåţéŕ ƀöţţļé' both
    read 'water bottle' in any case: the accented capitals are no case pairs of the small letters).
    `style`: 'accented', 'mirrored' or None (other text, returned unchanged)."""
    if style == "mirrored":
        return unmirror(text)
    if style == "accented":
        return PSEUDO_PADDING.sub("", text).replace("[", "").replace("]", "").translate(UNACCENT_TABLE)
    return text


# ---- scripts -----------------------------------------------------------------------------------
# ISO 15924 code -> prefixes of the Unicode character names of its letters.
SCRIPT_NAME_PREFIXES: dict[str, tuple[str, ...]] = {
    "Thai": ("THAI",),
    "Laoo": ("LAO",),
    "Khmr": ("KHMER",),
    "Mymr": ("MYANMAR",),
    "Hans": ("CJK",),
    "Hant": ("CJK",),
    "Jpan": ("CJK", "HIRAGANA", "KATAKANA"),
    "Kore": ("HANGUL",),
    "Arab": ("ARABIC",),
    "Hebr": ("HEBREW",),
    "Deva": ("DEVANAGARI",),
    "Beng": ("BENGALI",),
    "Taml": ("TAMIL",),
    "Cyrl": ("CYRILLIC",),
    "Grek": ("GREEK",),
    "Geor": ("GEORGIAN",),
    "Armn": ("ARMENIAN",),
    "Ethi": ("ETHIOPIC",),
}


def in_script(char: str, script: str) -> bool:
    """Is `char` a letter of `script` (ISO 15924)?"""
    name = unicodedata.name(char, "")
    if script == "Latn":
        return name.startswith("LATIN")
    return name.startswith(SCRIPT_NAME_PREFIXES.get(script, ("\0",)))


def script_share(text: str, script: str) -> float | None:
    """Share of the letters of `text` written in `script`; None when it has no letters."""
    letters = [c for c in text if c.isalpha()]
    if not letters:
        return None
    return sum(1 for c in letters if in_script(c, script)) / len(letters)


# ---- a model that answered instead of translating ----------------------------------------------
MODEL_ANSWER = re.compile(
    r"^\W*(sure|certainly|of course|here is|here's|as an ai|i cannot|i can't|i'm sorry|translation)\b", re.I
)
TRANSLATOR_COMMENTARY = re.compile(
    r"\((note|translator'?s? note|nb)\b|\btranslator'?s note\b|\btranslated (by|with)\b", re.I
)


def ascii_fold(text: str) -> str:
    """Accents dropped (NFKD, ASCII only): the answer/commentary patterns then see 'Sûre' as 'Sure'."""
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()


# a letter of a script written without spaces (Han, kana, Thai, Lao, Khmer, Myanmar). Two in a row are a
# sentence's words; one beside a digit is a word too ('8个' eight pieces, '约2斤' about 1 kg, '85度C' a shop's
# name), not an id, though \w matches every letter
UNSPACED_LETTER = re.compile(
    "[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff]"
)
UNSPACED_LETTERS = re.compile(UNSPACED_LETTER.pattern + "{2}")


# a sentence ends at . ! ? before a space or the end, and at a CJK stop anywhere (no space follows it)
SENTENCE_END = re.compile(r"[.!?。！？](?=\s|$)|[。！？]")


def first_sentence(text: str) -> str:
    """The text's first sentence, stripped (all of it when no sentence end is found)."""
    text = text.strip()
    found = SENTENCE_END.search(text)
    return (text[: found.end()] if found else text).strip()
