"""Evidence keyed by location (from an instrumented replay), generalized per field path.

The trace says, per concrete field (artifact, path, is_key), what the running benchmark did with
it: passed it to a tool (and under which argument name), wrote it to the DB, showed it in a tool
result, compared it in tool code, the evaluator or set_state. An element carries the observations
made on its own location; an element never reached by a replay (most DB records) carries those of
its generalized field path, with how many of the path's locations were observed.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from fnmatch import fnmatch

from analyzers.model_schema import LIST_ITEM, MAP_KEY
from babelflow.ir import EvidenceScope, FieldEvidence, LinkKind

Location = tuple[str, tuple, bool]

# Kinds that show the running code depends on the exact text (vs. merely displaying it).
EXECUTED = frozenset(
    {
        LinkKind.TOOL_ARGUMENT,
        LinkKind.ARGUMENT_NAME,
        LinkKind.COMPARED_IN_CODE,
        LinkKind.COMPARED_BY_EVALUATOR,
        LinkKind.DB_WRITE,
        LinkKind.READ_BY_HARNESS,
    }
)


@dataclass(frozen=True)
class Observed:
    scope: EvidenceScope
    kinds: frozenset[LinkKind]
    detail: str
    observed: int = 0

    @property
    def executed(self) -> bool:
        return bool(self.kinds & EXECUTED)


@dataclass
class LocatedEvidence:
    """Observations of one benchmark's instrumented replay; `available` is False when it has none."""

    by_location: dict[Location, dict[str, str]] = field(default_factory=dict)
    available: bool = False
    _table: dict[tuple, FieldEvidence] = field(default_factory=dict)
    # by_location per artifact (built once per by_location: ~800 artifacts each asked for their paths)
    _index: tuple[int, dict[str, list[tuple[tuple, bool, dict[str, str]]]]] | None = None
    _grouped: dict[tuple, dict[tuple, Observed]] = field(default_factory=dict)

    def keys_read(self) -> frozenset[str]:
        """The keys code read somewhere in the run (a model's field, a lookup): one vocabulary, kept
        wherever the same key appears."""
        executed = {kind.value for kind in EXECUTED}
        return frozenset(
            str(path[-1])
            for (_, path, is_key), seen in self.by_location.items()
            if is_key and path and not executed.isdisjoint(seen)
        )

    def at(self, artifact: str, path: tuple, is_key: bool) -> dict[str, str] | None:
        return self.by_location.get((artifact, path, is_key))

    def _by_artifact(self) -> dict[str, list[tuple[tuple, bool, dict[str, str]]]]:
        if self._index is None or self._index[0] != id(self.by_location):
            index: dict[str, list[tuple[tuple, bool, dict[str, str]]]] = {}
            for (where, path, is_key), seen in self.by_location.items():
                index.setdefault(where, []).append((path, is_key, seen))
            self._index, self._grouped = (id(self.by_location), index), {}
        return self._index[1]

    def for_paths(
        self,
        artifact: str,
        map_paths: frozenset | set,
        open_map_paths: frozenset | set = frozenset(),
        group: str | None = None,
    ) -> dict[tuple, Observed]:
        """Per (generalized path, is_key): the union of what was observed on its locations, including
        records the run created (a reservation a tool booked has the same field paths as the file's).

        `group` (files that are one logical artifact, e.g. τ³ banking's documents/*.json): the field
        paths of every file of the group, as a DB's records share theirs (a document golden retrieval
        never looked up has the same `id` field as the 218 it did)."""
        index = self._by_artifact()
        if group is None:
            return self._generalized(index.get(artifact, []), map_paths, open_map_paths)
        key = (group, frozenset(map_paths), frozenset(open_map_paths))
        found = self._grouped.get(key)
        if found is None:
            members = [entry for where, entries in index.items() if fnmatch(where, group) for entry in entries]
            found = self._grouped[key] = self._generalized(members, map_paths, open_map_paths)
        return found

    def _generalized(
        self,
        entries: list[tuple[tuple, bool, dict[str, str]]],
        map_paths: frozenset | set,
        open_map_paths: frozenset | set,
    ) -> dict[tuple, Observed]:
        kinds: dict[tuple, set[LinkKind]] = {}
        detail: dict[tuple, str] = {}
        count: dict[tuple, int] = {}
        for path, is_key, seen in entries:
            key = (generalize(path, map_paths, is_key, open_map_paths), is_key)
            bucket = kinds.setdefault(key, set())
            bucket.update(LinkKind(k) for k in seen)
            detail.setdefault(key, _first(seen))
            count[key] = count.get(key, 0) + 1
        return {
            key: Observed(EvidenceScope.FIELD_PATH, frozenset(value), detail[key], count[key])
            for key, value in kinds.items()
        }

    def located(self, seen: dict[str, str]) -> Observed:
        return Observed(EvidenceScope.LOCATION, frozenset(LinkKind(k) for k in seen), _first(seen))

    def entry(self, artifact: str, general: tuple, observed: Observed) -> str:
        """Id of the shared table entry for this (field path, scope, kinds)."""
        key = (artifact, general, observed.scope, observed.kinds)
        found = self._table.get(key)
        if found is None:
            # a stable id: the kinds sorted (a frozenset's order follows the per-process string hash seed)
            stable = (artifact, general, observed.scope.value, tuple(sorted(k.value for k in observed.kinds)))
            digest = hashlib.blake2b(repr(stable).encode(), digest_size=6).hexdigest()
            found = self._table[key] = FieldEvidence(
                id=f"ev_{digest}",
                scope=observed.scope,
                kinds=sorted(observed.kinds, key=lambda k: k.value),
                detail=observed.detail,
                observed=observed.observed,
            )
        return found.id

    def table(self) -> list[FieldEvidence]:
        return list(self._table.values())


def generalize(
    path: tuple, map_paths: frozenset | set, is_key: bool, open_map_paths: frozenset | set = frozenset()
) -> tuple:
    """The generalized path of a concrete one, as the data inventory writes it (MAP_KEY / LIST_ITEM)."""
    general: tuple = ()
    last = len(path) - 1
    for index, segment in enumerate(path):
        if general in map_paths or (is_key and index == last and general in open_map_paths):
            general += (MAP_KEY,)
        elif isinstance(segment, int):
            general += (LIST_ITEM,)
        else:
            general += (str(segment),)
    return general


def _first(seen: dict[str, str]) -> str:
    # the most telling observation first: what the evaluator or code compares beats display
    for kind in (
        LinkKind.COMPARED_BY_EVALUATOR,
        LinkKind.READ_BY_HARNESS,
        LinkKind.DB_WRITE,
        LinkKind.TOOL_ARGUMENT,
        LinkKind.ARGUMENT_NAME,
        LinkKind.COMPARED_IN_CODE,
    ):
        if kind.value in seen:
            return f"{kind.value}: {seen[kind.value]}"
    name, text = next(iter(seen.items()))
    return f"{name}: {text}"
