"""Apertium's reading of a term, word by word: how the source tagger read each word, and every
translation the pair's bilingual dictionary offers for it.

An installed pair runs analyser → tagger → bilingual lookup → lexical selection → transfer. The
first three stages answer two questions a term reviewer asks before trusting a rendering: was
'rose gold' read as a noun phrase, or as the verb *rose*? Does 'glass' have one translation, or
does the dictionary offer *vaso* and *cristal* and the rules pick one? This module runs the pair's
own programs up to the dictionary lookup (taken from its `.mode` file, so it works for any pair,
old-style or new) and parses the stream. Nothing here judges: translators/terms/ does.
"""

from __future__ import annotations

import re
import shlex
import subprocess
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from babelflow.apertium import (
    apertium_binary,
    blocks_document,
    installed_modes,
    mode_file,
    mode_for,
    read_blocks,
    run_apertium,
)

_SPLIT = re.compile(r"(?<!\\)/")
_TAGS = re.compile(r"<([^<>]+)>")
_STREAM_SPECIAL = re.compile(r"([\\^$/<>\[\]@{}])")
_VERB_TAGS = frozenset({"vblex", "vbser", "vbhaver", "vbmod", "vaux", "vbdo"})
# verb forms that are no names: finite tenses, gerunds and bare infinitives ('subió', 'corriendo');
# participles are left out: in Romance languages they are adjectives ('polarizado')
_NAME_LIKE_FORMS = frozenset({"pp", "pprs", "adj"})


@dataclass(frozen=True)
class Reading:
    """One analysis: a lemma and its tags ('rise', ('vblex', 'past'))."""

    lemma: str
    tags: tuple[str, ...]

    @property
    def is_verb_form(self) -> bool:
        """A finite verb, a gerund or an infinitive: a word that says what someone does, not what a thing is."""
        return bool(self.tags) and self.tags[0] in _VERB_TAGS and not _NAME_LIKE_FORMS & set(self.tags)

    @property
    def is_noun(self) -> bool:
        return bool(self.tags) and self.tags[0] in ("n", "np")

    def shown(self) -> str:
        return self.lemma + "".join(f"<{t}>" for t in self.tags)


@dataclass(frozen=True)
class WordTransfer:
    """One source word (or multiword) as the pair read it, and the translations its dictionary offers."""

    surface: str
    read_as: Reading | None  # None: unknown to the source analyser
    translations: tuple[Reading, ...]


def parse_reading(text: str) -> Reading | None:
    text = text.replace("\\", "")
    if not text or text.startswith(("*", "@", "#")):
        return None
    first = text.find("<")
    lemma = (text if first < 0 else text[:first]).replace("#", "").strip()
    return Reading(lemma, tuple(_TAGS.findall(text[first:] if first >= 0 else "")))


def parse_units(line: str) -> list[tuple[str, list[str]]]:
    """`^a/b/c$ ^d/e$` -> [('a', ['b', 'c']), ('d', ['e'])], escapes respected."""
    units = []
    body: list[str] | None = None  # inside ^…$; scanned by hand: a regex over a line of '^' is quadratic
    escaped = False
    for char in line:
        if escaped:
            escaped = False
            if body is not None:
                body.append(char)
            continue
        if char == "\\":
            escaped = True
            if body is not None:
                body.append(char)
        elif char == "^":
            body = []
        elif char == "$" and body is not None:
            head, *rest = _SPLIT.split("".join(body))
            units.append((head, rest))
            body = None
        elif body is not None:
            body.append(char)
    return units


def escape_stream(text: str) -> str:
    """Plain text as Apertium stream text: its reserved characters backslashed."""
    return _STREAM_SPECIAL.sub(r"\\\1", text)


@lru_cache(maxsize=8)
def lexical_pipeline(source: str, target: str) -> tuple[str, ...] | None:
    """The shell commands of the pair's own stages up to its bilingual lookup, or None (no pair).

    New-style modes run `lt-proc -b <pair>.autobil.bin` as a stage; old-style ones (en-gl) pass the
    dictionary to `apertium-transfer`: there the lookup is added after pretransfer."""
    binary = apertium_binary()
    if binary is None:
        return None
    try:
        mode = mode_for(source, target, installed_modes(binary))
    except (LookupError, ValueError):
        return None
    path = mode_file(binary, mode) if mode else None
    if path is None or not path.is_file():
        return None
    stages = [stage.strip() for stage in path.read_text(encoding="utf-8").split("|")]
    stages = [stage.replace("$1", "").replace("$2", "").strip() for stage in stages]
    dictionary = next((word for stage in stages for word in shlex.split(stage) if word.endswith(".autobil.bin")), None)
    if dictionary is None or not Path(dictionary).is_file():
        return None
    kept: list[str] = []
    for stage in stages:
        if "autobil.bin" in stage and stage.startswith("lt-proc"):
            kept.append(stage)
            return tuple(kept)
        if stage.startswith(("apertium-transfer", "lrx-proc", "apertium-interchunk", "apertium-postchunk")):
            break
        kept.append(stage)
    return (*kept, f"lt-proc -b {shlex.quote(dictionary)}")


def transfer_words(terms: list[str], source: str, target: str, timeout: float = 120.0) -> dict[str, list[WordTransfer]]:
    """term -> its words as the pair read and looked them up; {} when the pair is not installed.
    One process chain for all terms: each is a paragraph of its own."""
    pipeline = lexical_pipeline(source, target)
    asked = [t for t in dict.fromkeys(terms) if t.strip() and "\n" not in t]
    if pipeline is None or not asked:
        return {}
    # each term ends a sentence: the tagger's context stops there, so a term reads the same whatever the
    # terms around it ('rose gold' after 'leather' was read as the verb *rose*, alone as the noun)
    text = "\n\n".join(escape_stream(t) + " ." for t in asked) + "\n"
    done = subprocess.run(
        " | ".join(pipeline), shell=True, input=text, capture_output=True, text=True, timeout=timeout, check=False
    )
    lines = [line for line in done.stdout.split("\n") if line.strip()]
    if done.returncode != 0 or len(lines) != len(asked):
        return {}
    out: dict[str, list[WordTransfer]] = {}
    for term, line in zip(asked, lines, strict=True):
        words = []
        for head, rest in parse_units(line):
            read = parse_reading(head)
            if read is not None and read.tags[:1] == ("sent",):
                continue
            words.append(
                WordTransfer(
                    surface=head.split("<", 1)[0].lstrip("*").replace("\\", "") if read is None else read.lemma,
                    read_as=read,
                    translations=tuple(r for r in (parse_reading(x) for x in rest) if r is not None),
                )
            )
        out[term] = words
    return out


@lru_cache(maxsize=8)
def modifier_follows_noun(source: str, target: str) -> bool | None:
    """Does the target put a modifier after its noun ('red car' -> 'coche rojo')? Asked of the pair itself
    (its translation of that phrase), so no table of languages is kept; None when no pair is installed."""
    binary = apertium_binary()
    if binary is None or lexical_pipeline(source, target) is None:
        return None
    mode = mode_for(source, target, installed_modes(binary))
    if mode is None:
        return None
    done = run_apertium(binary, mode, blocks_document(["red car"]), 60.0)
    words = [w.casefold() for w in re.findall(r"[^\W\d_]+", read_blocks(done.stdout).get(0, ""))]
    phrase = transfer_words(["red car"], source, target).get("red car", [])
    if len(phrase) != 2:
        return None
    red, car = ({t.lemma.casefold()[:4] for t in word.translations} for word in phrase)
    where_red = next((i for i, w in enumerate(words) if w[:4] in red), None)
    where_car = next((i for i, w in enumerate(words) if w[:4] in car), None)
    if where_red is None or where_car is None:
        return None
    return where_red > where_car
