"""A deterministic *simulated model translator*: en-XA pseudo-translation with a model's typical errors.

It implements the `Translator` protocol and renders text the way the offline ``en-XA`` pseudo-locale
does (``pseudo_translate_text``: accented, bracketed, ~35% longer), but it makes the mistakes that
independent per-field model translation makes, at stated rates, chosen by seeded hashes
(``hashlib.blake2b`` of seed, error kind, token, segment context and attempt; never Python's
``hash()``, so every run and every process gives the same output):

=================================  ======  =====================================================
error                               rate    unit the rate applies to
=================================  ======  =====================================================
(a) entity rendered another way     30%     each (capitalised word, context): the word gets the
                                            alternative rendering B instead of the usual A, so the
                                            same name/product/city/title reads differently in
                                            different contexts
(b) identifier translated           10%     each (identifier, context): a token with a digit, an
                                            underscore, a leading ``#``, an ``@`` (emails) or an
                                            all-caps code (``ATL``) is accented like prose
(c) placeholder dropped             3%      each segment that contains ``⟦N⟧`` placeholders comes
                                            back with one of them missing
(d) number reformatted              10%     each (number, context), for numbers with a decimal
                                            part or >= 4 integer digits (years 1900-2099 are left
                                            alone): ``1628`` -> ``1,628`` / ``1.628``,
                                            ``24.99`` -> ``24,99``
=================================  ======  =====================================================

A model only ever sees what it is sent: text inside ``⟦N⟧`` placeholders is never altered (a
placeholder is kept byte-for-byte or, error (c), dropped whole). Identifiers and numbers that a
pipeline protects therefore reach the model as placeholders and cannot be mistranslated.

Without an error, an identifier, email or number is left exactly as it is (a good model does
that) and every other letter is accented as in en-XA. Segments of kind ``canonical`` (terms,
entity values) are rendered term-style: accented word by word, without en-XA's brackets and
padding, so a term and its mention inside prose have the same rendering when no error occurs.

A retry is a new sample: the translator counts how often it has been asked for the same
(context, text) and that attempt number is part of every seed, so a segment retranslated after a
review (its translation-memory entry purged) is drawn afresh, like a real model at temperature > 0.
With ``ErrorRates.none()`` the translator is the error-free reference rendering the ablation's
scripted reviewer compares against.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

from babelflow.text import ACCENT_TABLE, PLACEHOLDER, WORD
from translators.interface import TranslatedSegment, TranslationRequest, TranslationResponse, TranslationUsage
from translators.pseudo_locale import pseudo_translate_text

SIMULATED_MODEL_VERSION = "v1"

ENTITY_VARIANT_RATE = 0.30  # (a) per (capitalised word, context)
IDENTIFIER_TRANSLATION_RATE = 0.10  # (b) per (identifier, context)
PLACEHOLDER_DROP_RATE = 0.03  # (c) per segment holding at least one placeholder
NUMBER_REFORMAT_RATE = 0.10  # (d) per (eligible number, context)
CHARS_PER_TOKEN = 4  # token estimate: characters / 4 (the simulated model has no tokenizer)

SUPPORTED_LANGUAGES = ("en-XA",)

# Rendering B of a capitalised word: other precomposed look-alikes, none of them in en-XA's table,
# so the pseudo-locale leaves them alone and B differs from A in every letter.
_ALTERNATIVE = dict(
    zip(
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
        "àḃćďèḟǵȟìǰḱĺḿńòṕʠřśťùʋẁẍỳźÀḂĆĎÈḞǴȞÌɈḰĹḾŃÒṔɊŘŚŤÙƲẀẌỲŹ",
        strict=True,
    )
)
_ALTERNATIVE_TABLE = str.maketrans(_ALTERNATIVE)

# A token: a placeholder, an email, or a word. An email may start after a '%' inside a run of
# local-part characters, which made the pattern rescan the run from each '%' ('A' + 20,000 '%': 1.2 s).
# Here an email starts only where such a run starts, and a '%' before a local-part character is a
# marker (`percent`): _tokens() decides the email after it once per run, which gives the same tokens.
_TOKEN = re.compile(
    r"(?P<placeholder>⟦[0-9]+⟧)"
    r"|(?P<email>(?<![\w.%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+)"
    r"|(?P<word>#?\w+(?:[-.,:/]\w+)*)"
    r"|(?P<percent>%(?=[A-Za-z0-9._%+-]))"
)
_EMAIL_LOCAL = re.compile(r"[A-Za-z0-9._%+-]*")
_EMAIL_DOMAIN = re.compile(r"@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+")
_NUMBER = re.compile(r"(\d+)(?:\.(\d+))?")
_CODE = re.compile(r"[A-Z]{2,}[A-Z0-9]*")
_MASK = re.compile("\ue000([0-9]+)\ue001")


def _tokens(text: str) -> Iterator[tuple[str, int, int]]:
    """(group, start, end) of each token, as `finditer` with the one pattern whose email could also
    start right after any '%' gave them: the email after a `percent` marker is the run of local-part
    characters from there, then @domain; it depends only on where the run ends, so each run is read once."""
    pos, local_end, email_end = 0, -1, -1
    while (match := _TOKEN.search(text, pos)) is not None:
        if match.lastgroup != "percent":
            yield match.lastgroup or "", match.start(), match.end()
            pos = match.end()
            continue
        pos = match.end()
        if pos >= local_end:
            local_end = _EMAIL_LOCAL.match(text, pos).end()  # type: ignore[union-attr]  # * always matches
            domain = _EMAIL_DOMAIN.match(text, local_end)
            email_end = domain.end() if domain is not None else -1
        if email_end >= 0:
            yield "email", pos, email_end
            pos = email_end


@dataclass(frozen=True)
class ErrorRates:
    """Probabilities of the four error behaviours (see the module docstring for their units)."""

    entity_variant: float = ENTITY_VARIANT_RATE
    identifier_translated: float = IDENTIFIER_TRANSLATION_RATE
    placeholder_dropped: float = PLACEHOLDER_DROP_RATE
    number_reformatted: float = NUMBER_REFORMAT_RATE

    @classmethod
    def none(cls) -> ErrorRates:
        return cls(0.0, 0.0, 0.0, 0.0)

    @property
    def error_free(self) -> bool:
        return not any(
            (self.entity_variant, self.identifier_translated, self.placeholder_dropped, self.number_reformatted)
        )

    def tag(self) -> str:
        if self.error_free:
            return "error-free"
        parts = (self.entity_variant, self.identifier_translated, self.placeholder_dropped, self.number_reformatted)
        return "e{:g}-i{:g}-p{:g}-n{:g}".format(*(round(p * 100, 4) for p in parts))


ERROR_FREE = ErrorRates.none()


def classify(token: str) -> str:
    """number | identifier | entity | plain, for a word-like token outside placeholders."""
    if _NUMBER.fullmatch(token):
        return "number"
    if (
        token.startswith("#")
        or "_" in token
        or "@" in token
        or any(ch.isdecimal() for ch in token)
        or _CODE.fullmatch(token)
    ):
        return "identifier"
    if token[0].isupper() and any(ch.islower() for ch in token):
        return "entity"
    return "plain"


def number_is_eligible(token: str) -> bool:
    """Numbers a model might reformat: decimals, and integers of 4+ digits that are not years."""
    match = _NUMBER.fullmatch(token)
    if match is None:
        return False
    whole, fraction = match.group(1), match.group(2)
    if fraction is not None:
        return True
    if len(whole) < 4 or whole.startswith("0"):
        return False
    return not (len(whole) == 4 and 1900 <= int(whole) <= 2099)


def _group(whole: str, separator: str) -> str:
    head = len(whole) % 3 or 3
    return separator.join([whole[:head]] + [whole[i : i + 3] for i in range(head, len(whole), 3)])


def reformat_number(token: str, european: bool) -> str:
    """``1628`` -> ``1,628`` (or ``1.628``), ``24.99`` -> ``24,99``, ``1628.5`` -> ``1,628.5`` / ``1.628,5``."""
    match = _NUMBER.fullmatch(token)
    assert match is not None
    whole, fraction = match.group(1), match.group(2)
    if fraction is None:
        return _group(whole, "." if european else ",")
    if len(whole) >= 4:
        return _group(whole, ".") + "," + fraction if european else _group(whole, ",") + "." + fraction
    return f"{whole},{fraction}"


def alternative_rendering(word: str) -> str:
    """Rendering B of a capitalised word (rendering A is en-XA's accenting)."""
    return word.translate(_ALTERNATIVE_TABLE)


class SimulatedModelTranslator:
    """The `Translator` of the ablation: deterministic, seeded, and wrong at the stated rates."""

    def __init__(self, target_language: str = "en-XA", *, seed: int = 0, rates: ErrorRates | None = None):
        if target_language not in SUPPORTED_LANGUAGES:
            raise ValueError(
                f"the simulated model renders only {', '.join(SUPPORTED_LANGUAGES)}, not {target_language!r}"
            )
        self.target_language = target_language
        self.seed = seed
        self.rates = rates if rates is not None else ErrorRates()
        self.translator_id = (
            f"simulated-model:{SIMULATED_MODEL_VERSION}/{target_language}/seed{seed}/{self.rates.tag()}"
        )
        self._attempts: Counter[tuple[str, str]] = Counter()
        self.events: Counter[str] = Counter()  # errors made, by kind
        self.opportunities: Counter[str] = Counter()  # chances to make them, by kind
        self.characters_in = 0
        self.characters_out = 0
        self.requests = 0
        self.segments = 0

    # ---- seeded draws ------------------------------------------------------------------------

    def _draw(self, *parts: object) -> float:
        raw = "\x1f".join([str(self.seed), *map(str, parts)]).encode("utf-8")
        return int.from_bytes(hashlib.blake2b(raw, digest_size=8).digest(), "big") / 2**64

    # ---- rendering ---------------------------------------------------------------------------

    def render(self, text: str, context: str, *, kind: str = "free", attempt: int = 0) -> str:
        """One segment's translation (pure: same arguments, same output; counts its errors)."""
        rates = self.rates
        placeholders = [m.group() for m in PLACEHOLDER.finditer(text)]
        dropped = -1
        if placeholders:
            self.opportunities["placeholder_dropped"] += 1
            if self._draw("drop", context, text, attempt) < rates.placeholder_dropped:
                dropped = min(
                    int(self._draw("drop-which", context, text, attempt) * len(placeholders)), len(placeholders) - 1
                )
                self.events["placeholder_dropped"] += 1
        masks: list[str] = []

        def mask(value: str) -> str:
            masks.append(value)
            return f"\ue000{len(masks) - 1}\ue001"

        seen: dict[tuple[str, str], tuple[str, bool]] = {}  # one decision per (class, token) in a segment
        pieces: list[str] = []
        cursor = 0
        placeholder_index = 0
        for group, start, end in _tokens(text):
            pieces.append(text[cursor:start])
            cursor = end
            token = text[start:end]
            if group == "placeholder":
                pieces.append("" if placeholder_index == dropped else token)  # never altered, only dropped whole
                placeholder_index += 1
                continue
            category = "identifier" if group == "email" else classify(token)
            if category == "plain":
                pieces.append(token)
                continue
            if (category, token) not in seen:
                seen[(category, token)] = self._render_token(category, token, context, attempt)
            rendered, verbatim = seen[(category, token)]
            # only letters are ever changed by the pseudo-locale: digit-only tokens need no mask (and
            # must stay visible, e.g. as Markdown list numbers)
            pieces.append(mask(rendered) if verbatim and WORD.search(rendered) else rendered)
        pieces.append(text[cursor:])
        masked = "".join(pieces)
        if kind == "canonical":
            out = masked.translate(ACCENT_TABLE)  # a term: accented, no brackets or padding
        else:
            out = pseudo_translate_text(masked, self.target_language)
        return _MASK.sub(lambda m: masks[int(m.group(1))], out) if masks else out

    def _render_token(self, category: str, token: str, context: str, attempt: int) -> tuple[str, bool]:
        """(text to put in the segment, whether it must come out verbatim) for one token."""
        rates = self.rates
        if category == "entity":
            self.opportunities["entity_variant"] += 1
            if self._draw("entity", token, context, attempt) < rates.entity_variant:
                self.events["entity_variant"] += 1
                return alternative_rendering(token), False  # the pseudo-locale leaves these letters alone
            return token, False  # rendering A: accented by the pseudo-locale
        if category == "identifier":
            self.opportunities["identifier_translated"] += 1
            if self._draw("identifier", token, context, attempt) < rates.identifier_translated:
                if any(ch.isalpha() for ch in token):
                    self.events["identifier_translated"] += 1
                return token, False  # its letters get accented like prose
            return token, True
        if not number_is_eligible(token):
            return token, True
        self.opportunities["number_reformatted"] += 1
        if self._draw("number", token, context, attempt) < rates.number_reformatted:
            self.events["number_reformatted"] += 1
            return reformat_number(token, european=self._draw("number-style", token, context, attempt) < 0.5), True
        return token, True

    # ---- Translator protocol -----------------------------------------------------------------

    def translate(self, request: TranslationRequest) -> TranslationResponse:
        if request.target_language != self.target_language:
            raise ValueError(f"{self.translator_id} cannot translate into {request.target_language!r}")
        segments = []
        for segment in request.segments:
            key = (segment.context, segment.text)
            attempt = self._attempts[key]
            self._attempts[key] += 1
            segments.append(
                TranslatedSegment(
                    segment_id=segment.segment_id,
                    text=self.render(segment.text, segment.context, kind=segment.kind, attempt=attempt),
                )
            )
        chars_in = sum(len(s.text) for s in request.segments)
        chars_out = sum(len(s.text) for s in segments)
        self.characters_in += chars_in
        self.characters_out += chars_out
        self.requests += 1
        self.segments += len(segments)
        usage = TranslationUsage(
            input_characters=chars_in,
            output_characters=chars_out,
            input_tokens=math.ceil(chars_in / CHARS_PER_TOKEN),
            output_tokens=math.ceil(chars_out / CHARS_PER_TOKEN),
            requests=1,
        )
        return TranslationResponse(translator_id=self.translator_id, segments=segments, usage=usage)

    @property
    def estimated_tokens(self) -> int:
        """(characters sent + characters received) / 4, rounded up."""
        return math.ceil((self.characters_in + self.characters_out) / CHARS_PER_TOKEN)
