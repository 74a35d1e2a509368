"""Apertium, the rule-based translator from Debian (`apt-get install apertium-eng-spa`), offline.

Apertium moves ``⟦N⟧`` brackets around as punctuation, so placeholders travel as inline XML tags
(``<x id="N"/>``) in its HTML markup mode, which keeps tags where the words around them go. Many
segments share one process call: each is a ``<div id="sK">`` block of one document (block tags
are sentence boundaries for Apertium, so segments never bleed into each other). A segment whose
tags come back dropped or duplicated in the batch is translated again alone (a *fallback*); if
it is still broken it is reported in ``failed`` and the engine records a unit failure. Nothing
is patched.

Transfuse (Debian's html pre/post-processor, pulled in by apertium) is bypassed with
``APERTIUM_TRANSFUSE=no``: with it, the word after an inline tag comes back capitalised
("la reserva <x/> Sólo si"); the plain deformatter keeps case and tags (`<x id="1"/>`).
"""

from __future__ import annotations

import hashlib
import html
import os
import re
import shutil
import subprocess
import time
from collections import Counter
from pathlib import Path

import langcodes
from pydantic import Field

from babelflow.errors import BabelflowError
from babelflow.ir import Record
from babelflow.text import PLACEHOLDER
from translators.interface import TranslatedSegment, TranslationRequest, TranslationResponse, TranslationUsage

APERTIUM_VERSION = "v1"  # bump when the markup protocol below changes (part of translator_id)
BINARY_ENV = "BABELFLOW_APERTIUM_BIN"  # another apertium executable; "off" hides Apertium
INSTALL_HINT = "install Apertium and the language pair, e.g. `apt-get install -y apertium-eng-spa` (scripts/install.sh does this as root)"

_TAG = re.compile(r'<x id="([0-9]+)"\s*/>|<x id="([0-9]+)"\s*>\s*</x>')
_BLOCK = re.compile(r'<div id="s([0-9]+)">(.*?)</div>', re.S)
_MODE = re.compile(r"^([a-z]{2,3})-([a-z]{2,3})$")  # plain pairs only: no variants (spa-eng_US) or debug modes


def apertium_binary() -> str | None:
    """The apertium executable, or None when it is not installed (or hidden by BABELFLOW_APERTIUM_BIN=off)."""
    configured = os.environ.get(BINARY_ENV, "").strip()
    if configured.lower() == "off":
        return None
    if configured:
        return configured if Path(configured).is_file() else None
    return shutil.which("apertium")


def installed_modes(binary: str | None = None) -> list[str]:
    """Translation directions Apertium reports (`apertium -l`), e.g. ['eng-spa', 'spa-eng']."""
    binary = binary or apertium_binary()
    if binary is None:
        return []
    try:
        listed = subprocess.run([binary, "-l"], capture_output=True, text=True, timeout=30, check=False)
    except OSError:
        return []
    return [line.strip() for line in listed.stdout.splitlines() if line.strip()]


def _iso639_3(tag: str) -> str:
    return langcodes.Language.get(tag).to_alpha3()


def mode_for(source: str, target: str, modes: list[str]) -> str | None:
    """The installed direction translating `source` into `target` (2- or 3-letter mode names)."""
    want = (_iso639_3(source), _iso639_3(target))
    for mode in modes:
        match = _MODE.match(mode)
        if match and (_iso639_3(match.group(1)), _iso639_3(match.group(2))) == want:
            return mode
    return None


def require_mode(target: str, source: str = "en", mode: str | None = None) -> tuple[str, str]:
    """(binary, mode) for `source` → `target`, or a clear error naming how to install it."""
    binary = apertium_binary()
    if binary is None:
        raise BabelflowError(
            "Apertium is not installed (no `apertium` on PATH)",
            field="--translator",
            fix=INSTALL_HINT + "; or pass --translator PROVIDER:MODEL, or translate elsewhere and use `babelflow import`",
        )
    modes = installed_modes(binary)
    chosen = mode if mode in modes else None if mode else mode_for(source, target, modes)
    if chosen is None:
        wanted = mode or f"{_iso639_3(source)}-{_iso639_3(target)}"
        raise BabelflowError(
            f"No Apertium pair {wanted} installed (installed: {', '.join(modes) or 'none'})",
            field="--translator",
            fix=f"apt-get install -y apertium-{wanted} if Debian packages it (apt-cache search apertium), or pass --translator PROVIDER:MODEL",
        )
    return binary, chosen


def _data_fingerprint(binary: str, mode: str) -> str:
    """Changes when the pair's data is upgraded, so translation-memory entries do not go stale."""
    digest = hashlib.sha256(binary.encode())
    mode_file = Path(binary).resolve().parent.parent / "share" / "apertium" / "modes" / f"{mode}.mode"
    text = mode_file.read_text(encoding="utf-8", errors="replace") if mode_file.is_file() else ""
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


def encode(text: str) -> str:
    """Protected text → Apertium HTML: markup characters escaped, ⟦N⟧ as inline tags."""
    escaped = html.escape(text, quote=False)
    return PLACEHOLDER.sub(lambda m: f'<x id="{m.group(1)}"/>', escaped)


def decode(markup: str) -> str:
    """Apertium HTML → protected text (tags back to ⟦N⟧, entities unescaped)."""
    return html.unescape(_TAG.sub(lambda m: f"⟦{m.group(1) or m.group(2)}⟧", markup))


def tag_problems(source: str, translated: str) -> list[str]:
    """Placeholders lost, duplicated or invented (ordering is checked later by `restore`)."""
    asked = Counter(PLACEHOLDER.findall(source))
    got = Counter(PLACEHOLDER.findall(translated))
    problems = [f"placeholder ⟦{i}⟧ {'is missing' if got[i] == 0 else f'appears {got[i]} times'}" for i in sorted(asked, key=int) if got[i] != asked[i]]
    problems += [f"placeholder ⟦{i}⟧ was never issued" for i in sorted(set(got) - set(asked), key=int)]
    return problems


def _keep_edges(source: str, translated: str) -> str:
    # The deformatter turns a block's edge whitespace into blanks of its own (" Quiero…"): the
    # segment's leading/trailing whitespace is layout of the source file, so it is taken from there.
    core = translated.strip()
    lead = source[: len(source) - len(source.lstrip())]
    trail = source[len(source.rstrip()) :]
    return f"{lead}{core}{trail}" if source.strip() else source


class ApertiumTranslator:
    """The offline `Translator` for real languages with an installed Apertium pair."""

    batch_limits = (500, 200_000)  # segments, characters per process call (read by the engine)

    def __init__(self, target_language: str, *, mode: str | None = None, source_language: str = "en", timeout: float = 600.0):
        self.binary, self.mode = require_mode(target_language, source_language, mode)
        self.target_language = target_language
        self.timeout = timeout
        self.translator_id = f"apertium:{self.mode}@{_data_fingerprint(self.binary, self.mode)}/{APERTIUM_VERSION}"
        self.stats = ApertiumStats()

    def _run(self, document: str) -> str:
        env = dict(os.environ, APERTIUM_TRANSFUSE="no")
        started = time.perf_counter()
        try:
            done = subprocess.run([self.binary, "-u", "-f", "html-noent", self.mode], input=document, capture_output=True, text=True, timeout=self.timeout, env=env, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise BabelflowError(f"Apertium ({self.mode}) did not run: {exc}", field="--translator", fix=INSTALL_HINT) from exc
        finally:
            self.stats.seconds += time.perf_counter() - started
            self.stats.calls += 1
        if done.returncode != 0:
            raise BabelflowError(f"Apertium ({self.mode}) failed: {done.stderr.strip()[:300]}", field="--translator", fix=INSTALL_HINT)
        return done.stdout

    def _batch(self, texts: list[str]) -> dict[int, str]:
        document = "\n".join(f'<div id="s{k}">{encode(text)}</div>' for k, text in enumerate(texts))
        return {int(m.group(1)): decode(m.group(2)) for m in _BLOCK.finditer(self._run(document + "\n"))}

    def translate(self, request: TranslationRequest) -> TranslationResponse:
        # The glossary is not passed on: Apertium has no per-call terminology; canonical terms
        # reach it as placeholders, and the language pack's release checks verify required terms.
        if request.target_language != self.target_language:
            raise ValueError(f"{self.translator_id} translates into {self.target_language!r}, not {request.target_language!r}")
        texts = [segment.text for segment in request.segments]
        batch = self._batch(texts) if texts else {}
        out: list[TranslatedSegment] = []
        failed: dict[str, list[str]] = {}
        for k, segment in enumerate(request.segments):
            text = batch.get(k)
            problems = ["segment missing from Apertium's output"] if text is None else tag_problems(segment.text, text)
            if problems:
                self.stats.fallbacks += 1
                text = self._batch([segment.text]).get(0)
                problems = ["segment missing from Apertium's output"] if text is None else tag_problems(segment.text, text)
            if problems:
                self.stats.failed += 1
                failed[segment.segment_id] = [f"apertium {self.mode}: {p}" for p in problems]
                continue
            out.append(TranslatedSegment(segment_id=segment.segment_id, text=_keep_edges(segment.text, text)))
        chars = sum(len(t) for t in texts)
        self.stats.segments += len(texts)
        self.stats.input_characters += chars
        usage = TranslationUsage(input_characters=chars, output_characters=sum(len(s.text) for s in out), requests=1)
        return TranslationResponse(translator_id=self.translator_id, segments=out, usage=usage, failed=failed)
