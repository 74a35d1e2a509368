"""The one rule for a target-language tag given by a user (`--lang`, a pack's `tag`).

A tag names files (language_packs/<tag>.toml, canonical_maps/<bench>/<tag>.json, the run lock
<bench>--<tag>.lock) and goes to langcodes and babel, so its length is bounded before anything
parses it: a 300-character tag made `open()` fail with "File name too long", and langcodes'
parser recurses once per subtag. Real tags are short: RFC 5646 asks implementations to handle
at least 35 characters, and the longest CLDR locale with a calendar, numbering system and
private use ("zh-Hant-TW-u-ca-chinese-nu-hanidec-x-private") is 44.
"""

from __future__ import annotations

import langcodes

from babelflow.errors import BabelflowError

MAX_TAG_LENGTH = 64
_FIX = "use a tag such as zh-Hans, hi, en-XA or ar-XB"


def shown(tag: str) -> str:
    """The tag as a message quotes it: a long one cut, with its length."""
    return repr(tag) if len(tag) <= MAX_TAG_LENGTH else f"{tag[:40]!r}… ({len(tag)} characters)"


def tag_too_long(tag: str) -> str | None:
    """Why `tag` is refused before parsing, or None."""
    if len(tag) > MAX_TAG_LENGTH:
        return f"The language tag {shown(tag)} is longer than {MAX_TAG_LENGTH} characters"
    return None


def check_language_tag(tag: str, *, field: str = "--lang") -> str:
    """A well-formed BCP 47 tag of bounded length (pseudo-locales en-XA/ar-XB included), else a
    BabelflowError naming `field`."""
    too_long = tag_too_long(tag)
    if too_long:
        raise BabelflowError(too_long, field=field, fix=f"{_FIX} (at most {MAX_TAG_LENGTH} characters)")
    try:
        valid = bool(tag) and langcodes.tag_is_valid(tag)
    except (ValueError, LookupError, RecursionError):  # the parser's own limits: not a usable tag
        valid = False
    if not valid:
        raise BabelflowError(f"{shown(tag)} is not a valid BCP 47 language tag", field=field, fix=_FIX)
    return tag
