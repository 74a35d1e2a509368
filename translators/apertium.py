"""Apertium, the rule-based translator from Debian (`apt-get install apertium-eng-spa`), offline.

Apertium moves ``⟦N⟧`` brackets around as punctuation, so placeholders travel as inline XML tags
in its HTML markup mode, many segments per process call (``babelflow.apertium``: the process, the
markup, which directions are installed; the back-translation validator runs it too). A segment
whose tags come back dropped or duplicated in the batch is translated again alone (a
*fallback*); if it is still broken it is reported in ``failed`` and the engine records a unit
failure. Nothing is patched.

Apertium has no per-call terminology, so the language pack's glossary reaches it the way canonical
terms do: each occurrence of a term travels as a placeholder of its own and comes back as the
pack's rendering (its case following the source's: "REFERRER" → "REFERENTE").
"""

from __future__ import annotations

import hashlib
import re
import subprocess
import time
from collections import Counter
from pathlib import Path

from pydantic import Field

from babelflow.apertium import (
    TRANSLATOR_PREFIX,
    apertium_binary,
    blocks_document,
    installed_modes,
    iso639_3,
    mode_file,
    mode_for,
    read_blocks,
    run_apertium,
)
from babelflow.day_periods import written_markers
from babelflow.errors import BabelflowError
from babelflow.ir import Record
from babelflow.target_lexicon import TargetLexicon, target_lexicon
from babelflow.text import PLACEHOLDER
from translators.interface import (
    GlossaryEntry,
    TranslatedSegment,
    TranslationRequest,
    TranslationResponse,
    TranslationUsage,
)

APERTIUM_VERSION = "v5"  # bump when the markup or the glossary protocol changes (part of translator_id)
# v3: glossary terms follow the sentence's case and take agreeing articles
# v5: clock times travel as placeholders and come back with the target's CLDR day period ('10 AM' -> '10 a. m.')
INSTALL_HINT = (
    "install Apertium and the language pair, e.g. `apt-get install -y apertium-eng-spa` "
    "(scripts/install.sh does this as root)"
)


def require_mode(target: str, source: str = "en", mode: str | None = None) -> tuple[str, str]:
    """(binary, mode) for `source` → `target`, or a clear error naming how to install it."""
    binary = apertium_binary()
    if binary is None:
        raise BabelflowError(
            "Apertium is not installed (no `apertium` on PATH)",
            field="--translator",
            fix=INSTALL_HINT
            + "; or pass --translator PROVIDER:MODEL, or translate elsewhere and use `babelflow import`",
        )
    modes = installed_modes(binary)
    chosen = mode if mode in modes else None if mode else mode_for(source, target, modes)
    if chosen is None:
        wanted = mode or f"{iso639_3(source)}-{iso639_3(target)}"
        raise BabelflowError(
            f"No Apertium pair {wanted} installed (installed: {', '.join(modes) or 'none'})",
            field="--translator",
            fix=(
                f"apt-get install -y apertium-{wanted} if Debian packages it (apt-cache search apertium), "
                "or pass --translator PROVIDER:MODEL"
            ),
        )
    return binary, chosen


def _data_fingerprint(binary: str, mode: str) -> str:
    """Changes when the pair's data is upgraded, so translation-memory entries do not go stale."""
    digest = hashlib.sha256(binary.encode())
    path = mode_file(binary, mode)
    text = path.read_text(encoding="utf-8", errors="replace") if path.is_file() else ""
    digest.update(text.encode())
    for path in sorted(set(re.findall(r"'(/[^']+)'", text))):
        try:
            stat = Path(path).stat()
        except OSError:
            continue
        digest.update(f"{path}:{stat.st_size}:{stat.st_mtime_ns}".encode())
    return digest.hexdigest()[:10]


class ApertiumStats(Record):
    """What a translator instance did; bench/apertium_speed.py reports it."""

    calls: int = 0
    segments: int = 0
    fallbacks: int = Field(default=0, description="segments broken in a batch and translated again alone")
    failed: int = Field(default=0, description="segments still broken alone: reported as unit failures")
    input_characters: int = 0
    seconds: float = 0.0


def tag_problems(source: str, translated: str) -> list[str]:
    """Placeholders lost, duplicated or invented (ordering is checked later by `restore`)."""
    asked = Counter(PLACEHOLDER.findall(source))
    got = Counter(PLACEHOLDER.findall(translated))
    problems = [
        f"placeholder ⟦{i}⟧ {'is missing' if got[i] == 0 else f'appears {got[i]} times'}"
        for i in sorted(asked, key=int)
        if got[i] != asked[i]
    ]
    problems += [f"placeholder ⟦{i}⟧ was never issued" for i in sorted(set(got) - set(asked), key=int)]
    return problems


def _keep_edges(source: str, translated: str) -> str:
    # The deformatter turns a block's edge whitespace into blanks of its own (" Quiero…"): the
    # segment's leading/trailing whitespace is layout of the source file, so it is taken from there.
    core = translated.strip()
    lead = source[: len(source) - len(source.lstrip())]
    trail = source[len(source.rstrip()) :]
    return f"{lead}{core}{trail}" if source.strip() else source


# 'No.⟦0⟧': a placeholder glued to an abbreviation is read as part of that word, and Apertium moves it with
# the word it reorders ('No.61 Hong Kong Middle Road' came out 'Hong Kong61 de Núm. Carretera Media')
_GLUED_TO_ABBREVIATION = re.compile(r"(\b[A-Za-z]{1,4}\.)(⟦\d+⟧)")


def _apart(text: str) -> str:
    """A placeholder after an abbreviation as a word of its own ('No. ⟦0⟧' translates to 'Núm. ⟦0⟧')."""
    return _GLUED_TO_ABBREVIATION.sub(r"\1 \2", text)


TERM_PLACEHOLDER_BASE = 1_000_000  # far above any placeholder index the engine issues for a segment


class GlossaryTerms:
    """The request's glossary as placeholders: `protect` before Apertium, `render` after it."""

    def __init__(self, glossary: list[GlossaryEntry]):
        self.entries = sorted(glossary, key=lambda entry: len(entry.source), reverse=True)  # longest term first
        alternatives = "|".join(re.escape(entry.source) for entry in self.entries)
        self._pattern = re.compile(rf"(?<!\w)(?:{alternatives})(?!\w)", re.I) if self.entries else None
        self._by_key = {entry.source.casefold(): entry.target for entry in self.entries}

    def protect(self, text: str) -> tuple[str, dict[str, str]]:
        """`text` with each term occurrence replaced by a fresh placeholder, and what each one renders as."""
        if self._pattern is None:
            return text, {}
        renderings: dict[str, str] = {}

        def hide(match: re.Match[str]) -> str:
            token = f"⟦{TERM_PLACEHOLDER_BASE + len(renderings)}⟧"
            renderings[token] = _in_case_of(match.group(), self._by_key[match.group().casefold()])
            return token

        return self._pattern.sub(hide, text), renderings

    @staticmethod
    def render(translated: str, renderings: dict[str, str]) -> str:
        for token, target in renderings.items():
            translated = translated.replace(token, target)
        return translated


def _in_case_of(source: str, target: str) -> str:
    """The term as the sentence wrote it: 'WATER BOTTLE' -> 'BOTELLA DE AGUA', 'Water bottle' ->
    'Botella de agua', 'water bottle' -> 'botella de agua' (an acronym start such as 'USB' is left)."""
    if source.isupper() and len(source) > 1:
        return target.upper()
    if source[:1].isupper() and not target[:1].isupper():
        return target[:1].upper() + target[1:]
    if source[:1].islower() and target[:1].isupper() and not target[1:2].isupper():
        return target[:1].lower() + target[1:]
    return target


CLOCK_PLACEHOLDER_BASE = 2_000_000  # above the glossary's placeholders
# '10 AM', '6:30PM', '9 a.m.': Apertium reads 'AM' as 'I am' ('10 SOY', 21 times in VitaBench instore es)
# the hour may already be the engine's placeholder ('⟦0⟧ AM': numbers are protected before a translator sees them)
_CLOCK_TIME = re.compile(r"(?<![\w:.])(\d{1,2}(?::\d{2})?|⟦\d+⟧)[ \u00a0\u202f]?([AaPp])\.?[Mm]\b\.?")


def protect_clock_times(text: str, target_language: str) -> tuple[str, dict[str, str]]:
    """`text` with each clock time that carries AM/PM as a placeholder, and what each renders as: the time with
    the target's CLDR day period ('10 a. m.' in es), or as written when CLDR has none."""
    markers = written_markers(target_language)
    renderings: dict[str, str] = {}

    def hide(match: re.Match[str]) -> str:
        token = f"⟦{CLOCK_PLACEHOLDER_BASE + len(renderings)}⟧"
        marker = markers[0] if match[2] in "Aa" else markers[1]
        renderings[token] = f"{match[1]} {marker}" if marker else match[0]
        return token

    return _CLOCK_TIME.sub(hide, text), renderings


# Articles Apertium chose for a placeholder it could not see (it guesses the masculine singular):
# (kind, gender, number) -> form, per target language. Only Spanish is written here.
_ARTICLES = {
    "es": {
        "definite": {("m", "sg"): "el", ("f", "sg"): "la", ("m", "pl"): "los", ("f", "pl"): "las"},
        "indefinite": {("m", "sg"): "un", ("f", "sg"): "una", ("m", "pl"): "unos", ("f", "pl"): "unas"},
        "of": {("m", "sg"): "del", ("f", "sg"): "de la", ("m", "pl"): "de los", ("f", "pl"): "de las"},
        "to": {("m", "sg"): "al", ("f", "sg"): "a la", ("m", "pl"): "a los", ("f", "pl"): "a las"},
    }
}


def agree_articles(language: str, text: str, renderings: dict[str, str], lexicon: TargetLexicon) -> str:
    """Before each placeholder, the article Apertium guessed made to agree with the term that replaces
    it ('el ⟦1⟧' + 'botella de agua' -> 'la botella de agua'), by the head noun's gender and number
    from the language's own analyser. A language without an article table, or a head noun the
    analyser does not know, is left as it is."""
    table = _ARTICLES.get(language.split("-")[0])
    if not table or not renderings:
        return text
    kinds = {form: kind for kind, forms in table.items() for form in forms.values()}
    heads = {token: target.split()[0].lower() for token, target in renderings.items() if target.split()}
    forms = lexicon.noun_forms(heads.values())
    pattern = re.compile(
        r"(?<!\w)(" + "|".join(sorted(map(re.escape, kinds), key=len, reverse=True)) + r")(\s+)(⟦\d+⟧)", re.I
    )

    def agree(match: re.Match[str]) -> str:
        article, space, token = match.groups()
        form = forms.get(heads.get(token, ""))
        if form is None:
            return match.group()
        wanted = table[kinds[article.lower()]][form]
        return (wanted[:1].upper() + wanted[1:] if article[:1].isupper() else wanted) + space + token

    return pattern.sub(agree, text)


class ApertiumTranslator:
    """The offline `Translator` for real languages with an installed Apertium pair."""

    batch_limits = (500, 200_000)  # segments, characters per process call (read by the engine)

    def __init__(
        self, target_language: str, *, mode: str | None = None, source_language: str = "en", timeout: float = 600.0
    ):
        self.binary, self.mode = require_mode(target_language, source_language, mode)
        self.target_language = target_language
        self.timeout = timeout
        self.translator_id = (
            f"{TRANSLATOR_PREFIX}{self.mode}@{_data_fingerprint(self.binary, self.mode)}/{APERTIUM_VERSION}"
        )
        self.stats = ApertiumStats()
        self.lexicon = target_lexicon(target_language)  # head nouns' gender, for the articles before terms

    def _run(self, document: str) -> str:
        started = time.perf_counter()
        try:
            done = run_apertium(self.binary, self.mode, document, self.timeout)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise BabelflowError(
                f"Apertium ({self.mode}) did not run: {exc}", field="--translator", fix=INSTALL_HINT
            ) from exc
        finally:
            self.stats.seconds += time.perf_counter() - started
            self.stats.calls += 1
        if done.returncode != 0:
            raise BabelflowError(
                f"Apertium ({self.mode}) failed: {done.stderr.strip()[:300]}", field="--translator", fix=INSTALL_HINT
            )
        return done.stdout

    def _batch(self, texts: list[str]) -> dict[int, str]:
        return read_blocks(self._run(blocks_document(texts)))

    def _protect(self, terms: GlossaryTerms, text: str) -> tuple[str, dict[str, str]]:
        timed, times = protect_clock_times(_apart(text), self.target_language)
        sent, renderings = terms.protect(timed)
        return sent, renderings | times

    def translate(self, request: TranslationRequest) -> TranslationResponse:
        if request.target_language != self.target_language:
            raise ValueError(
                f"{self.translator_id} translates into {self.target_language!r}, not {request.target_language!r}"
            )
        terms = GlossaryTerms(request.glossary)
        protected = [self._protect(terms, segment.text) for segment in request.segments]
        texts = [text for text, _ in protected]
        batch = self._batch(texts) if texts else {}
        out: list[TranslatedSegment] = []
        failed: dict[str, list[str]] = {}
        for k, segment in enumerate(request.segments):
            sent, renderings = protected[k]
            text = batch.get(k)
            problems = ["segment missing from Apertium's output"] if text is None else tag_problems(sent, text)
            if problems:
                self.stats.fallbacks += 1
                text = self._batch([sent]).get(0)
                problems = ["segment missing from Apertium's output"] if text is None else tag_problems(sent, text)
            if problems or text is None:
                self.stats.failed += 1
                failed[segment.segment_id] = [f"apertium {self.mode}: {p}" for p in problems]
                continue
            text = terms.render(agree_articles(self.target_language, text, renderings, self.lexicon), renderings)
            out.append(TranslatedSegment(segment_id=segment.segment_id, text=_keep_edges(segment.text, text)))
        chars = sum(len(segment.text) for segment in request.segments)
        self.stats.segments += len(texts)
        self.stats.input_characters += chars
        usage = TranslationUsage(input_characters=chars, output_characters=sum(len(s.text) for s in out), requests=1)
        return TranslationResponse(translator_id=self.translator_id, segments=out, usage=usage, failed=failed)
