"""Canonical maps: one reviewed translation per (canonical group, source term), reused everywhere.

Stored at canonical_maps/<benchmark>/<language>.json, versioned by a hash of its entries. Entries
record where the translation came from (a translator, CLDR, a reviewer) and their review state,
so a rerun keeps reviewed terms and only translates new ones.

A map is refused (on load, before every write, and by `babelflow import`) when a live entry has an
empty target (the field would be emptied) or when two sources of one group share a target (two
products or books would carry the same name, and the agent could no longer tell them apart), unless
the two never meet: their entries name the tasks they stand in, and no task holds both (worlds.py).
"""

from __future__ import annotations

import hashlib
import unicodedata
from collections import defaultdict
from functools import lru_cache
from pathlib import Path
from typing import Final, Literal

import orjson
from babel import Locale, UnknownLocaleError
from pydantic import Field, PrivateAttr

from babelflow.atomic_io import write_bytes_atomic
from babelflow.errors import BabelflowError, StaleArtifactError
from babelflow.ir import Record
from babelflow.saved_records import load_saved_record
from babelflow.worlds import meet

CANONICAL_MAP_SCHEMA: Final = "babelflow.canonical_map/1"


class CanonicalEntry(Record):
    group: str
    source: str
    target: str
    origin: Literal["translator", "cldr", "reviewer", "kept", "localized", "adopted"] = Field(
        description="translator / cldr / reviewer, or the run's entity policy: kept (the source value itself), "
        "localized (a fitting identity of the target language)"
    )
    origin_detail: str = Field(default="", description="translator id, CLDR locale, reviewer name, Faker locale")
    review_state: Literal["unreviewed", "confirmed", "rejected"] = "unreviewed"
    note: str = ""
    worlds: list[str] | None = Field(
        default=None,
        description="the tasks the value stands in, set only where it shares its target with another value of its "
        "group that never meets it (babelflow/worlds.py); None: it meets every value",
    )


class CanonicalMap(Record):
    schema_version: Literal["babelflow.canonical_map/1"] = CANONICAL_MAP_SCHEMA
    benchmark: str
    language: str
    entries: list[CanonicalEntry] = Field(default_factory=list)
    _positions: dict[tuple[str, str], int] = PrivateAttr(default_factory=dict)

    def version(self) -> str:
        """Content hash of the entries: part of every downstream cache key and the manifest."""
        # `worlds` None is left out: a map without shared renderings keeps its bytes and hash
        data = orjson.dumps(
            [e.model_dump(exclude_none=True) for e in sorted(self.entries, key=lambda e: (e.group, e.source))]
        )
        return hashlib.sha256(data).hexdigest()[:16]

    def lookup(self) -> dict[tuple[str, str], CanonicalEntry]:
        return {(e.group, e.source): e for e in self.entries if e.review_state != "rejected"}

    def target_of(self, group: str, source: str) -> str | None:
        entry = self.lookup().get((group, source))
        return entry.target if entry else None

    def upsert(self, entry: CanonicalEntry) -> None:
        """Add `entry`, or replace the one with its (group, source) where it stands. Positions are indexed:
        a run that adds 15k terms one by one (VitaBench) rebuilt the list per term (17 s to load a map)."""
        key = (entry.group, entry.source)
        position = self._positions.get(key)
        if not self._at(position, key) or (position is None and len(self._positions) != len(self.entries)):
            # someone else changed the list (a sort, an append): index it again
            self._positions = {(e.group, e.source): index for index, e in enumerate(self.entries)}
            position = self._positions.get(key)
        if position is None:
            self._positions[key] = len(self.entries)
            self.entries.append(entry)
        else:
            self.entries[position] = entry

    def discard(self, keys: set[tuple[str, str]]) -> None:
        """Drop the entries of these (group, source) keys: a rendering seeded for this run only (an adopted one
        the release checks refused) before the translator renders the value instead."""
        self.entries = [e for e in self.entries if (e.group, e.source) not in keys]
        self._positions = {}

    def _at(self, position: int | None, key: tuple[str, str]) -> bool:
        if position is None:
            return True
        return position < len(self.entries) and (self.entries[position].group, self.entries[position].source) == key


# characters that draw nothing although Unicode calls them letters or symbols (braille blank, Hangul
# fillers); with format characters, spaces and marks that have no letter to sit on, a target made only
# of them reads as empty (issue 44)
_BLANK_LOOKING = frozenset("\u2800\u3164\uffa0\u115f\u1160\u17b4\u17b5\u180e")


def as_read(text: str) -> str:
    """`text` as a reader tells names apart: Unicode forms (NFC/NFD, full-width: NFKC), case,
    invisible format characters (zero-width space, joiners, bidi marks), blank-looking letters
    (braille blank, Hangul fillers) and runs of whitespace do not count. 'Café' in NFC and NFD,
    'Ｔｅａｍ' and 'Team', 'Team  Sync' and 'Team Sync' are one name."""
    text = "".join(
        c for c in unicodedata.normalize("NFKC", text) if unicodedata.category(c) != "Cf" and c not in _BLANK_LOOKING
    )
    text = " ".join(text.split()).casefold()
    # a mark with no letter before it (a lone combining accent) draws nothing either
    return "" if all(unicodedata.category(c) in ("Mn", "Me", "Zs") for c in text) else text


@lru_cache(maxsize=1)
def _homoglyphs() -> dict[str, list[dict[str, str]]]:
    from confusable_homoglyphs import confusables  # noqa: PLC0415 - its table loads on first use

    return confusables.confusables_data


def looks_like(text: str) -> str:
    """What `text` looks like: each character as the smallest of its Unicode homoglyphs (TR39's
    confusables, via confusable-homoglyphs), ASCII first, so 'Cafе' with a Cyrillic е and 'Cafe' are one."""
    table = _homoglyphs()
    out = []
    for char in as_read(text):
        shapes = [char, *(h["c"] for h in table.get(char, ()))]
        out.append(min(shapes, key=lambda shape: (not shape.isascii(), len(shape), shape)))
    return "".join(out)


def map_problems(cmap: CanonicalMap) -> list[str]:
    """Empty targets and collisions among the live (not rejected) entries; [] = usable.

    Sources that read the same ('Tablet', 'tablet') are one term, so they may share a target; targets
    are compared as read (`as_read`: 'El Camino' and 'el camino' name the same thing) and as they look
    (`looks_like`: a Cyrillic 'а' for a Latin 'a'), and one that reads as nothing (spaces, a zero-width
    space, a braille blank, a lone accent) is empty."""
    problems: list[str] = []
    by_target: dict[tuple[str, str], dict[str, CanonicalEntry]] = defaultdict(dict)
    for entry in cmap.lookup().values():
        target = as_read(entry.target)
        if not target:
            problems.append(f"entry ({entry.group}, {entry.source!r}) has an empty target")
            continue
        by_target[(entry.group, looks_like(entry.target))].setdefault(as_read(entry.source), entry)
    for (group, _), sources in by_target.items():
        if len(sources) > 1 and _some_meet(list(sources.values())):
            entries = sorted(sources.values(), key=lambda e: e.source)
            names = " and ".join(f"{e.source!r} ({e.origin})" for e in entries)
            targets = list(dict.fromkeys(e.target for e in entries))
            if len({as_read(t) for t in targets}) == 1:
                problems.append(f"group {group!r}: {names} share the target {entries[0].target!r}")
            else:  # different characters, one look: a reader (and a model) cannot tell them apart
                shown = " / ".join(repr(t) for t in targets)
                problems.append(f"group {group!r}: {names} have targets that look the same ({shown})")
    return problems


def _some_meet(entries: list[CanonicalEntry]) -> bool:
    """Whether two of the entries sharing a target can be seen together (a VitaBench task names both)."""
    return any(meet(a.worlds, b.worlds) for i, a in enumerate(entries) for b in entries[i + 1 :])


class TakenRenderings:
    """Renderings already given within a group, with the worlds of the values holding them: which other
    values would a new value meet under a rendering? (`distinct_renderings` and adoption's `seed_map`.)"""

    def __init__(self, worlds: dict[tuple[str, str], frozenset[str]]) -> None:
        self._worlds = worlds
        self._owners: dict[tuple[str, str], list[tuple[str, str]]] = defaultdict(list)  # -> (source, as read)

    def add(self, group: str, source: str, target: str) -> None:
        self._owners[(group, as_read(target))].append((source, as_read(source)))

    def met_by(self, group: str, source: str, target: str) -> list[str]:
        """The other values holding `target` in `group` that `source` meets (a source read alike is itself)."""
        own, read = self._worlds.get((group, source)), as_read(source)
        return [
            other
            for other, other_read in self._owners.get((group, as_read(target)), ())
            if other_read != read and meet(own, self._worlds.get((group, other)))
        ]


def mark_worlds(cmap: CanonicalMap, worlds: dict[tuple[str, str], frozenset[str]]) -> None:
    """Give each entry that shares its target within its group the worlds its value stands in (and take
    them from an entry that no longer shares one): `map_problems` then lets values that never meet share
    a rendering. `worlds` is `worlds_of_terms(ir)`; {} (one world) changes nothing."""
    if not worlds:
        return
    by_target: dict[tuple[str, str], list[CanonicalEntry]] = defaultdict(list)
    for entry in cmap.lookup().values():
        by_target[(entry.group, looks_like(entry.target))].append(entry)
    for entries in by_target.values():
        shared = len({as_read(e.source) for e in entries}) > 1
        for entry in entries:
            known = worlds.get((entry.group, entry.source))
            wanted = sorted(known) if shared and known is not None else None
            if entry.worlds != wanted:
                cmap.upsert(entry.model_copy(update={"worlds": wanted}))


def check_canonical_map(cmap: CanonicalMap, path: Path | None) -> None:
    """Raise (exit 2) naming every empty or colliding entry; nothing is written by the caller."""
    problems = map_problems(cmap)
    if problems:
        shown = "\n  ".join(problems[:20])
        more = f"\n  … and {len(problems) - 20} more" if len(problems) > 20 else ""
        entries = "entry" if len(problems) == 1 else "entries"
        raise BabelflowError(
            f"Canonical map {cmap.benchmark}/{cmap.language}: {len(problems)} unusable {entries}:\n  {shown}{more}",
            file=path,
            field="entries",
            fix='give each source its own non-empty target (edit the entry and set origin "reviewer", or import'
            ' the canonical terms with `babelflow import`), or set review_state "rejected" on a wrong entry to have'
            " it translated again",
        )


DRAFTS_SUFFIX = ".drafts.json"


def drafts_path(path: Path) -> Path:
    """Where a map's run-generated entries live: beside the reviewed map, ignored by git
    (canonical_maps/tau2-retail/es.json -> es.drafts.json)."""
    path = Path(path)
    return path.with_name(path.name.removesuffix(".json") + DRAFTS_SUFFIX)


def map_exists(path: Path) -> bool:
    """A map is there when its reviewed file or its drafts are."""
    return Path(path).exists() or drafts_path(path).exists()


def is_reviewed(entry: CanonicalEntry) -> bool:
    """A person's decision: a reviewer's rendering, or a rejection. Everything else a run makes again."""
    return entry.origin == "reviewer" or entry.review_state == "rejected"


def _load_one(path: Path, benchmark: str, language: str) -> CanonicalMap | None:
    if not path.exists():
        return None
    cmap = load_saved_record(
        path, CanonicalMap, what="Canonical map", fix="restore it from git or delete it to rebuild from the translator"
    )
    if (cmap.benchmark, cmap.language) != (benchmark, language):
        raise StaleArtifactError(
            f"Canonical map is for {cmap.benchmark}/{cmap.language}, not {benchmark}/{language}",
            file=path,
            field="benchmark/language",
            fix="use the map of this benchmark and language",
        )
    return cmap


def load_canonical_map(path: Path, benchmark: str, language: str) -> CanonicalMap:
    """The reviewed map at `path` over the run's drafts beside it (a reviewed entry wins), or an empty map;
    refuse foreign/corrupt maps."""
    path = Path(path)
    cmap = CanonicalMap(benchmark=benchmark, language=language)
    for part in (_load_one(drafts_path(path), benchmark, language), _load_one(path, benchmark, language)):
        for entry in part.entries if part is not None else ():
            cmap.upsert(entry)
    check_canonical_map(cmap, path)
    return cmap


def _map_bytes(cmap: CanonicalMap) -> bytes:
    return orjson.dumps(cmap.model_dump(exclude_none=True), option=orjson.OPT_INDENT_2) + b"\n"


def _write_if_changed(path: Path, data: bytes) -> None:
    if not path.exists() or path.read_bytes() != data:
        write_bytes_atomic(path, data)


def save_canonical_map(cmap: CanonicalMap, path: Path, *, whole: bool = False) -> None:
    """Reviewed entries to `path` (a tracked file: rewritten only when a review changed it, and not created
    for a map nobody reviewed), the run's own entries to the drafts file beside it. `whole`: one file with
    every entry (the copy a variant carries)."""
    check_canonical_map(cmap, path)  # before the write: a refused map leaves the files as they were
    cmap.entries.sort(key=lambda e: (e.group, e.source))
    path = Path(path)
    if whole:
        write_bytes_atomic(path, _map_bytes(cmap))
        return
    reviewed = cmap.model_copy(update={"entries": [e for e in cmap.entries if is_reviewed(e)]})
    drafts = cmap.model_copy(update={"entries": [e for e in cmap.entries if not is_reviewed(e)]})
    if drafts.entries or drafts_path(path).exists():
        _write_if_changed(drafts_path(path), _map_bytes(drafts))
    if reviewed.entries or path.exists():
        _write_if_changed(path, _map_bytes(reviewed))


def seed_from_cldr(
    cmap: CanonicalMap, group: str, kind: Literal["weekdays", "months", "territories", "currencies"], terms: list[str]
) -> int:
    """Fill a group with CLDR names (babel) instead of asking a model; returns entries added.

    `terms` are the English source names (e.g. "Monday", "France", "US Dollar") to look up.
    """
    try:
        target = Locale.parse(cmap.language, sep="-")
    except (UnknownLocaleError, ValueError) as exc:
        raise BabelflowError(
            f"CLDR has no locale {cmap.language!r}",
            field="language",
            fix="seed only real languages; pseudo-locales have no CLDR data",
        ) from exc
    english = Locale("en")
    tables = {
        "weekdays": (english.days["format"]["wide"], target.days["format"]["wide"]),
        "months": (english.months["format"]["wide"], target.months["format"]["wide"]),
        "territories": (english.territories, target.territories),
        "currencies": (english.currencies, target.currencies),
    }
    source_table, target_table = tables[kind]
    by_name = {name: key for key, name in source_table.items()}
    added = 0
    existing = cmap.lookup()
    for term in terms:
        key = by_name.get(term)
        if key is None or key not in target_table or (group, term) in existing:
            continue
        cmap.upsert(
            CanonicalEntry(
                group=group,
                source=term,
                target=target_table[key],
                origin="cldr",
                origin_detail=f"CLDR {target}",
                review_state="confirmed",
            )
        )
        added += 1
    return added
