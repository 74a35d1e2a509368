"""Is a word a word of the target language? Asked of the language's own morphological analyser.

A Spanish variant that keeps "total", "blog" or "Chicago" keeps Spanish words, not English ones; a
word list tuned per language cannot know that for a language it was not tuned on. Apertium's
monolingual analysers can, for every language with an installed pair whose source side is that
language (`spa-eng` for es): `lt-proc -a` marks an unknown word with `*`. Where no analyser is
installed the lexicon knows nothing, and the checks that ask it behave as before.
"""

from __future__ import annotations

import atexit
import os
import re
import selectors
import shutil
import subprocess
import threading
from collections.abc import Iterable, Iterator
from functools import lru_cache
from pathlib import Path

from babelflow.apertium import apertium_binary, installed_modes, iso639_3, mode_file, mode_languages
from babelflow.lexical_transfer import Reading, parse_reading, parse_units

_ANALYSER = re.compile(r"lt-proc\s+(?:-\S+\s+)*'?([^'\s|]+\.automorf\.bin)'?")
_TIMEOUT = 60.0
_BATCH_BYTES = 32_768  # half a Linux pipe buffer
_NOUN_FORM = re.compile(r"<n><([mf])><(sg|pl)>")  # a noun analysis: gender, number


class TargetLexicon:
    """The words one language's analyser recognises (asked in batches, remembered)."""

    def __init__(self, language: str, analyser: Path | None, lt_proc: str | None):
        self.language = language
        self.analyser = analyser if analyser is not None and lt_proc is not None else None
        self._lt_proc = lt_proc
        self._known: dict[str, bool] = {}
        self._process: subprocess.Popen[bytes] | None = None
        self._lock = threading.Lock()

    @property
    def available(self) -> bool:
        return self.analyser is not None

    def known(self, words: Iterable[str]) -> set[str]:
        """The subset of `words` (each one word or a multiword name such as "San Francisco") the language knows."""
        asked = [w for w in dict.fromkeys(words) if w and "\n" not in w and "\0" not in w]
        if self.analyser is None or not asked:
            return set()
        missing = [w for w in asked if w not in self._known]
        if missing:
            self._known.update(self._analyse(missing))
        return {w for w in asked if self._known.get(w)}

    def noun_forms(self, words: Iterable[str]) -> dict[str, tuple[str, str]]:
        """word -> (gender m/f, number sg/pl) where every noun analysis of it agrees ('botella' ->
        ('f', 'sg')); words the analyser does not know as a noun are left out."""
        asked = [w for w in dict.fromkeys(words) if w and "\n" not in w and "\0" not in w and " " not in w]
        if self.analyser is None or not asked:
            return {}
        lines = self._lines(asked)
        forms = {}
        for word, line in zip(asked, lines, strict=False):
            found = {(g, n) for g, n in _NOUN_FORM.findall(line)}
            if len(found) == 1:
                forms[word] = found.pop()
        return forms

    def readings(self, texts: Iterable[str]) -> dict[str, list[tuple[str, tuple[Reading, ...]]]]:
        """text -> its words, each with every analysis the analyser gives it (() when it does not know
        the word): 'subió oro' -> [('subió', (subir<vblex><ifi>…,)), ('oro', (oro<n><m><sg>,))]."""
        asked = [t for t in dict.fromkeys(texts) if t and "\n" not in t and "\0" not in t]
        if self.analyser is None or not asked:
            return {}
        lines = self._lines(asked)
        out = {}
        for text, line in zip(asked, lines, strict=False):
            out[text] = [
                (surface.replace("\\", ""), tuple(r for r in map(parse_reading, analyses) if r is not None))
                for surface, analyses in parse_units(line)
            ]
        return out

    def _lines(self, words: list[str]) -> list[str]:
        """One analysis line per word, from one lt-proc kept running in null-flush mode (-z): loading the
        analyser costs ~50 ms a process, which one process per unit paid 1,255 times on retail es."""
        assert self.analyser is not None and self._lt_proc is not None
        out: list[str] = []
        with self._lock:
            for batch in _batches(words, _BATCH_BYTES):
                lines = self._ask(batch)
                if len(lines) < len(batch):
                    return []
                out += lines[: len(batch)]
        return out

    def _ask(self, words: list[str]) -> list[str]:
        """A batch under the pipe's buffer (so writing it never waits on lt-proc's output); [] when the
        process is gone or silent for _TIMEOUT (it is ended: the next batch starts a fresh one)."""
        process = self._process
        if process is None or process.poll() is not None:
            try:
                process = self._process = subprocess.Popen(
                    [str(self._lt_proc), "-z", "-a", str(self.analyser)],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.DEVNULL,
                    bufsize=0,
                )
            except OSError:
                return []
            atexit.register(self.close)
        assert process.stdin is not None and process.stdout is not None
        received = bytearray()
        try:
            process.stdin.write(("\n".join(words) + "\n").encode() + b"\0")
            with selectors.DefaultSelector() as selector:
                selector.register(process.stdout, selectors.EVENT_READ)
                while not received.endswith(b"\0"):
                    if not selector.select(_TIMEOUT):
                        raise TimeoutError
                    chunk = os.read(process.stdout.fileno(), 1 << 16)
                    if not chunk:
                        raise BrokenPipeError
                    received += chunk
        except (OSError, TimeoutError):
            process.kill()
            self._process = None
            return []
        return received[:-1].decode("utf-8", errors="replace").split("\n")

    def close(self) -> None:
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            process.kill()
            process.wait()

    def _analyse(self, words: list[str]) -> dict[str, bool]:
        lines = self._lines(words)
        if len(lines) < len(words):
            return {w: False for w in words}
        # one output line per input line; a line is known when every unit on it has an analysis
        return {word: _all_analysed(line) for word, line in zip(words, lines, strict=False)}


def _batches(words: list[str], limit: int) -> Iterator[list[str]]:
    batch: list[str] = []
    size = 0
    for word in words:
        if batch and size + len(word.encode()) + 1 > limit:
            yield batch
            batch, size = [], 0
        batch.append(word)
        size += len(word.encode()) + 1
    if batch:
        yield batch


def _all_analysed(line: str) -> bool:
    """Every `^surface/analyses$` unit of one output line has an analysis (an unknown one reads `/*surface`).
    Split by hand, not with a regex: a findall over a line of '^' is quadratic."""
    units = [chunk[chunk.index("^") + 1 :] for chunk in line.split("$") if "^" in chunk]
    return bool(units) and all("/" in unit and not unit.partition("/")[2].startswith("*") for unit in units)


@lru_cache(maxsize=16)
def target_lexicon(language: str, source_language: str = "en") -> TargetLexicon:
    """The lexicon of `language` (a BCP 47 tag); empty when no analyser for it is installed, and for
    the source language itself (an en-XA pseudo-locale's words are English: they prove nothing)."""
    binary = apertium_binary()
    lt_proc = shutil.which("lt-proc")
    if binary is None or lt_proc is None:
        return TargetLexicon(language, None, None)
    try:
        wanted = iso639_3(language)
        if wanted == iso639_3(source_language):
            return TargetLexicon(language, None, None)
    except (LookupError, ValueError):
        return TargetLexicon(language, None, None)
    for mode in installed_modes(binary):
        pair = mode_languages(mode)
        if pair is None or iso639_3(pair[0]) != wanted:
            continue
        path = mode_file(binary, mode)
        text = path.read_text(encoding="utf-8", errors="replace") if path.is_file() else ""
        found = _ANALYSER.search(text)
        if found and Path(found.group(1)).is_file():
            return TargetLexicon(language, Path(found.group(1)), lt_proc)
    return TargetLexicon(language, None, None)
