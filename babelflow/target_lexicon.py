"""Is a word a word of the target language? Asked of the language's own morphological analyser.

A Spanish variant that keeps "total", "blog" or "Chicago" keeps Spanish words, not English ones; a
word list tuned per language cannot know that for a language it was not tuned on. Apertium's
monolingual analysers can, for every language with an installed pair whose source side is that
language (`spa-eng` for es): `lt-proc -a` marks an unknown word with `*`. Where no analyser is
installed the lexicon knows nothing, and the checks that ask it behave as before.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

from babelflow.apertium import apertium_binary, installed_modes, iso639_3, mode_file, mode_languages

_ANALYSER = re.compile(r"lt-proc\s+(?:-\S+\s+)*'?([^'\s|]+\.automorf\.bin)'?")
_TIMEOUT = 60.0
_NOUN_FORM = re.compile(r"<n><([mf])><(sg|pl)>")  # a noun analysis: gender, number


class TargetLexicon:
    """The words one language's analyser recognises (asked in batches, remembered)."""

    def __init__(self, language: str, analyser: Path | None, lt_proc: str | None):
        self.language = language
        self.analyser = analyser if analyser is not None and lt_proc is not None else None
        self._lt_proc = lt_proc
        self._known: dict[str, bool] = {}

    @property
    def available(self) -> bool:
        return self.analyser is not None

    def known(self, words: Iterable[str]) -> set[str]:
        """The subset of `words` (each one word or a multiword name such as "San Francisco") the language knows."""
        asked = [w for w in dict.fromkeys(words) if w and "\n" not in w]
        if self.analyser is None or not asked:
            return set()
        missing = [w for w in asked if w not in self._known]
        if missing:
            self._known.update(self._analyse(missing))
        return {w for w in asked if self._known.get(w)}

    def noun_forms(self, words: Iterable[str]) -> dict[str, tuple[str, str]]:
        """word -> (gender m/f, number sg/pl) where every noun analysis of it agrees ('botella' ->
        ('f', 'sg')); words the analyser does not know as a noun are left out."""
        asked = [w for w in dict.fromkeys(words) if w and "\n" not in w and " " not in w]
        if self.analyser is None or not asked:
            return {}
        lines = self._lines(asked)
        forms = {}
        for word, line in zip(asked, lines, strict=False):
            found = {(g, n) for g, n in _NOUN_FORM.findall(line)}
            if len(found) == 1:
                forms[word] = found.pop()
        return forms

    def _lines(self, words: list[str]) -> list[str]:
        assert self.analyser is not None and self._lt_proc is not None
        try:
            done = subprocess.run(
                [self._lt_proc, "-a", str(self.analyser)],
                input="\n".join(words) + "\n",
                capture_output=True,
                text=True,
                timeout=_TIMEOUT,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired):
            return []
        return done.stdout.split("\n") if done.returncode == 0 else []

    def _analyse(self, words: list[str]) -> dict[str, bool]:
        lines = self._lines(words)
        if len(lines) < len(words):
            return {w: False for w in words}
        # one output line per input line; a line is known when every unit on it has an analysis
        return {word: _all_analysed(line) for word, line in zip(words, lines, strict=False)}


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
