"""Apertium, Debian's rule-based translator, as a process both stages run: the translator
(en → target, ``translators/apertium.py``) and the back-translation validator (target → en,
``validators/backtranslation.py``). Which executable, which directions are installed, and one
process call over many texts.

Many texts share one call: each is a ``<div id="sK">`` block of one HTML document (block tags
are sentence boundaries for Apertium, so texts never bleed into each other). ``⟦N⟧``
placeholders travel as inline tags (``<x id="N"/>``), which Apertium keeps where the words
around them go. Transfuse (Debian's html pre/post-processor) is bypassed with
``APERTIUM_TRANSFUSE=no``: with it, the word after an inline tag comes back capitalised.
"""

from __future__ import annotations

import html
import os
import re
import shutil
import subprocess
from pathlib import Path

import langcodes

from babelflow.text import PLACEHOLDER

BINARY_ENV = "BABELFLOW_APERTIUM_BIN"  # another apertium executable; "off" hides Apertium
_TAG = re.compile(r'<x id="([0-9]+)"\s*/>|<x id="([0-9]+)"\s*>\s*</x>')
_BLOCK = re.compile(r'<div id="s([0-9]+)">(.*?)</div>', re.S)
_MODE = re.compile(r"^([a-z]{2,3})-([a-z]{2,3})$")  # plain pairs only: no variants (spa-eng_US) or debug modes


TRANSLATOR_PREFIX = "apertium:"  # translators/apertium.py's ids: 'apertium:eng-spa@<data>/v5'


def passes_unknown_words(translator_id: str | None) -> bool:
    """Whether a variant made by this translator holds the source words it had no entry for, as they were:
    Apertium copies an unknown word through ('upcoming' stays 'upcoming'); a model rewrites it or keeps it
    on purpose, and a variant made elsewhere says nothing of how it was made."""
    return translator_id is not None and translator_id.startswith(TRANSLATOR_PREFIX)


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


def mode_file(binary: str, mode: str) -> Path:
    """The `.mode` file naming the programs and data of one installed direction."""
    return Path(binary).resolve().parent.parent / "share" / "apertium" / "modes" / f"{mode}.mode"


def mode_languages(mode: str) -> tuple[str, str] | None:
    """(source, target) of a plain pair's mode name ('spa-eng'), or None for variants and debug modes."""
    match = _MODE.match(mode)
    return (match.group(1), match.group(2)) if match else None


def iso639_3(tag: str) -> str:
    return langcodes.Language.get(tag).to_alpha3()


def mode_for(source: str, target: str, modes: list[str]) -> str | None:
    """The installed direction translating `source` into `target` (2- or 3-letter mode names)."""
    want = (iso639_3(source), iso639_3(target))
    for mode in modes:
        pair = mode_languages(mode)
        if pair and (iso639_3(pair[0]), iso639_3(pair[1])) == want:
            return mode
    return None


def encode(text: str) -> str:
    """Protected text → Apertium HTML: markup characters escaped, ⟦N⟧ as inline tags."""
    escaped = html.escape(text, quote=False)
    return PLACEHOLDER.sub(lambda m: f'<x id="{m.group(1)}"/>', escaped)


def decode(markup: str) -> str:
    """Apertium HTML → protected text (tags back to ⟦N⟧, entities unescaped)."""
    return html.unescape(_TAG.sub(lambda m: f"⟦{m.group(1) or m.group(2)}⟧", markup))


def blocks_document(texts: list[str]) -> str:
    """Texts as the numbered blocks of one HTML document for one process call."""
    return "\n".join(f'<div id="s{k}">{encode(text)}</div>' for k, text in enumerate(texts)) + "\n"


def read_blocks(output: str) -> dict[int, str]:
    """Block number → its translation (a block Apertium lost is simply absent)."""
    return {int(m.group(1)): decode(m.group(2)) for m in _BLOCK.finditer(output)}


def run_apertium(binary: str, mode: str, document: str, timeout: float) -> subprocess.CompletedProcess:
    """One call in HTML mode, unknown words unmarked (``-u``); raises OSError / TimeoutExpired."""
    env = dict(os.environ, APERTIUM_TRANSFUSE="no")
    return subprocess.run(
        [binary, "-u", "-f", "html-noent", mode],
        input=document,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        check=False,
    )
