"""Is a word a headword of a language's spelling dictionary? Asked of Hunspell with the language's dictionary.

Apertium's analysers know the words their translation rules need; they lack the loanwords a language
writes as they are ('golf', 'suite', 'retro', 'karaoke' in Spanish). The spelling dictionaries word
processors use (Debian's `hunspell-es`, the RLA-ES project's) list those as headwords. A word either source
lists is a word of the language, not English an engine left behind. Where Hunspell or the language's
dictionary is not installed, the dictionary lists nothing and the checks that ask it behave as before.
"""

from __future__ import annotations

import shutil
import subprocess
import threading
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

# where Debian's hunspell-* and myspell-* packages put their dictionaries
_DICTIONARY_FOLDERS = (Path("/usr/share/hunspell"), Path("/usr/share/myspell/dicts"), Path("/usr/share/myspell"))
_TIMEOUT = 60.0


class SpellingDictionary:
    """The headwords of one language's spelling dictionary (asked in one batch per call, remembered)."""

    def __init__(self, language: str, dictionary: Path | None, hunspell: str | None):
        self.language = language
        self.dictionary = dictionary if dictionary is not None and hunspell is not None else None
        self._hunspell = hunspell
        self._headword: dict[str, bool] = {}
        self._lock = threading.Lock()

    @property
    def available(self) -> bool:
        return self.dictionary is not None

    def headwords(self, words: Iterable[str]) -> set[str]:
        """The subset of `words` the dictionary lists as a headword, or a headword's plural ('suites'). A word
        it knows only as the form of another is left out: Spanish 'rebate' (of rebatir), 'resume' (resumir)
        and 'refine' (refinar) are English words a Spanish verb happens to spell, not loanwords. Only words
        of letters are asked; a hyphenated one ('anti-wrinkle') is a compound the dictionary has no entry for."""
        asked = [w for w in dict.fromkeys(words) if w.isalpha()]
        if self.dictionary is None or not asked:
            return set()
        with self._lock:
            missing = [w for w in asked if w not in self._headword]
            if missing:
                self._headword.update(self._ask(missing))
            return {w for w in asked if self._headword.get(w)}

    def _ask(self, words: list[str]) -> dict[str, bool]:
        """`hunspell -s` prints 'word stem' for each stem of a word it knows, and the word alone otherwise.
        A failed run lists nothing (the check then reports as before)."""
        assert self.dictionary is not None and self._hunspell is not None
        try:
            run = subprocess.run(
                [self._hunspell, "-i", "utf-8", "-d", str(self.dictionary), "-s"],
                input="\n".join(words) + "\n",
                capture_output=True,
                text=True,
                encoding="utf-8",
                timeout=_TIMEOUT,
                check=True,
            )
        except (OSError, subprocess.SubprocessError):
            return {w: False for w in words}
        stems: dict[str, set[str]] = {}
        for line in run.stdout.splitlines():
            word, _, stem = line.partition(" ")
            if stem:
                stems.setdefault(word, set()).add(stem)
        return {w: any(w in (s, s + "s", s + "es") for s in stems.get(w, ())) for w in words}


def dictionary_path(language: str, folders: Iterable[Path] = _DICTIONARY_FOLDERS) -> Path | None:
    """The dictionary (its path without .dic/.aff) for a BCP 47 tag: the region's own ('es-MX' → es_MX), else
    the language's main one ('es' → es_ES, the dictionary named after the language itself), else any of its
    regions in name order; None when none is installed."""
    parts = language.replace("_", "-").split("-")
    base = parts[0].lower()
    regions = [p.upper() for p in parts[1:] if len(p) == 2 and p.isalpha()]
    wanted = [f"{base}_{r}" for r in regions] + [f"{base}_{base.upper()}", base]
    for folder in folders:
        if not folder.is_dir():
            continue
        present = {p.stem for p in folder.glob(f"{base}*.dic") if p.with_suffix(".aff").is_file()}
        for name in wanted:
            if name in present:
                return folder / name
        others = sorted(n for n in present if n.startswith(f"{base}_"))
        if others:
            return folder / others[0]
    return None


@lru_cache(maxsize=16)
def spelling_dictionary(language: str) -> SpellingDictionary:
    """The spelling dictionary of `language` (a BCP 47 tag); empty when Hunspell or its dictionary is missing."""
    hunspell = shutil.which("hunspell")
    if hunspell is None:
        return SpellingDictionary(language, None, None)
    return SpellingDictionary(language, dictionary_path(language), hunspell)
