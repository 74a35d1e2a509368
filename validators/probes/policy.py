"""What a variant made elsewhere decided about values babelflow would have kept.

Another tool may translate catalogue values (product names) on purpose, the same way in the DB,
the tasks and the golden actions. Such a value is a *canonical rendering*: reported once per
entity class as a policy note carrying the inferred map (which `babelflow validate
--save-inferred-map` writes as a canonical map), never once per occurrence. A value rendered two
ways, or changed in one artifact and kept in a linked one, is a real inconsistency and stays
critical. Behaviour decides the rest: merge() turns the notes critical when replays differ.
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from babelflow.canonical_map import CanonicalEntry, CanonicalMap, save_canonical_map
from babelflow.ir import IRElement, PreserveReason, TranslationType
from babelflow.worlds import EVERYWHERE, collection_of, world_of
from validators.probes.tool_code import lookup_literals

if TYPE_CHECKING:
    from validators.context import ValidationContext

POLICY_KIND = "canonical_rendering_inferred"
# values another tool may render by policy: catalogue entities and enum values, never identifiers
RENDERABLE = {PreserveReason.LINKED_ENTITY, PreserveReason.ENUM_CODE}
MIN_POLICY_VALUES = 1  # one value rendered one way in every field that holds it (>= 2) is already a policy
_SEGMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_ ]*")


@dataclass
class InferredPolicy:
    renderings: dict[str, str] = field(default_factory=dict)  # source value -> its one rendering
    classes: dict[str, dict[str, str]] = field(default_factory=dict)  # entity class -> {source: target}
    occurrences: Counter = field(default_factory=Counter)  # entity class -> fields following the policy
    elements: dict[str, list] = field(default_factory=dict)  # entity class -> the elements (for the note's location)
    inconsistent: dict[str, Counter] = field(default_factory=dict)  # value -> renderings seen (incl. kept)
    first: dict[str, IRElement] = field(default_factory=dict)  # changed value -> one element holding it
    code_bound: set[str] = field(default_factory=set)  # changed values the tool code looks up unchanged
    # (value, rendering) -> the lists holding the value so rendered (babelflow/worlds.py `collection_of`)
    places: dict[tuple[str, str], set[tuple]] = field(default_factory=dict)
    # where tasks are worlds (babelflow/worlds.py): value -> {world: its one rendering there}, for a value
    # rendered one way inside a task and another way in another task, which no reader sees together
    per_world: dict[str, dict[str, str]] = field(default_factory=dict)
    # (value, world) -> the renderings seen inside that world, for a value `inconsistent` inside some world
    in_world: dict[tuple[str, str], Counter] = field(default_factory=dict)

    def renderings_of(self) -> dict[str, set[str]]:
        """source value -> every rendering seen (to compare tool results modulo the policy)."""
        seen = {source: {target} for source, target in self.renderings.items()}
        for source, renderings in self.inconsistent.items():
            seen[source] = set(renderings)
        for source, by_world in self.per_world.items():
            seen.setdefault(source, set()).update(by_world.values())
        return seen

    def consistent_in_world(self, value: str, world: str, target: str | None) -> bool:
        """The value reads `target` in every field of its world (one task, where tasks are worlds)."""
        return target is not None and self.per_world.get(value, {}).get(world) == target

    def renderings_in(self, value: str, world: str) -> Counter | None:
        """The renderings a reader of this world sees of an inconsistent value (None: it is consistent)."""
        if value not in self.inconsistent:
            return None
        return self.in_world.get((value, world), self.inconsistent[value])

    def collisions(self) -> dict[str, list[str]]:
        """A rendering shared by several source values that meet: two products now carry one name."""
        sources: dict[str, set[str]] = defaultdict(set)
        for source, targets in self.renderings_of().items():
            for target in targets:
                if target != source:
                    sources[target].add(source)
        return {
            target: sorted(values)
            for target, values in sources.items()
            if len(values) > 1 and self._side_by_side(target, sorted(values))
        }

    def _side_by_side(self, rendering: str, values: list[str]) -> bool:
        """Two of the values stand so rendered in one list: two options of one product, two products of one
        store or catalogue. Synonyms in two stores' option lists, or in two VitaBench tasks, are never seen
        side by side."""
        places = [self.places.get((value, rendering), set()) for value in values]
        return any(not a.isdisjoint(b) for i, a in enumerate(places) for b in places[i + 1 :])


def entity_class(element) -> str:
    """'linked_entity:name' for db.json.products.*.name and db.json.orders.*.items[*].name alike."""
    names = _SEGMENT.findall(element.role.replace("{key}", ""))
    return (
        f"{element.preserve_reason.value if element.preserve_reason else 'preserve'}:"
        f"{names[-1] if names else element.role}"
    )


def infer_policy(ctx: ValidationContext) -> InferredPolicy:
    """The policy of the context's variant; `ctx.policy` holds it, computed once per context."""
    seen: dict[str, Counter] = defaultdict(Counter)
    by_world: dict[str, dict[str, Counter]] = defaultdict(lambda: defaultdict(Counter))
    members: dict[str, list] = defaultdict(list)
    places: dict[tuple[str, str], set[tuple]] = {}
    for element in ctx.ir.elements:
        if element.translation_type is not TranslationType.PRESERVE or element.locator.kind not in (
            "data_value",
            "data_key",
        ):
            continue
        target = ctx.target_text(element)
        if target is None:
            continue
        seen[element.source_text][target] += 1
        if ctx.ir.tasks_are_worlds:
            by_world[element.source_text][world_of(element, ctx.ir)][target] += 1
        places.setdefault((element.source_text, target), set()).add(collection_of(element, ctx.ir))
        members[element.source_text].append(element)
    policy = InferredPolicy(places=places)
    candidates: dict[str, dict[str, str]] = defaultdict(dict)  # entity class -> {value: its one rendering}
    held_once: dict[str, dict[str, str]] = defaultdict(dict)  # the same, of values a single field holds
    code_renders = _code_renderings(ctx, seen)
    for value, renderings in seen.items():
        changed = [t for t in renderings if t != value]
        if not changed:
            continue
        holders = members[value]
        # the code looks data up by the value as it was: changed in data, it is a defect wherever it is
        code_bound = value in code_renders and not set(changed) <= code_renders[value]
        if code_bound:
            policy.code_bound.add(value)
        if not all(e.preserve_reason in RENDERABLE for e in holders) or not value.strip():
            continue  # ids, numbers, emails, dates: never a rendering policy, always a defect
        policy.first[value] = holders[0]
        if code_bound:
            if len(renderings) > 1:
                policy.inconsistent[value] = renderings
            continue
        if len(renderings) == 1:
            (target,) = renderings
            name = Counter(entity_class(e) for e in holders).most_common(1)[0][0]
            (candidates if len(holders) >= 2 else held_once)[name][value] = target
        else:
            _judge_in_worlds(policy, value, renderings, by_world.get(value, {}))
    # a value held once follows the policy of a class whose values are rendered (a rubric that only
    # overall_rubrics holds, where rubrics held twice are); alone it proves none
    rendered = {entity_class(e) for mapping in candidates.values() for v in mapping for e in members[v]}
    for name, mapping in held_once.items():
        if name in rendered:
            candidates[name].update(mapping)
    for name, mapping in candidates.items():
        if len(mapping) < MIN_POLICY_VALUES:
            for value in mapping:  # too few values to call it a policy
                policy.first.pop(value, None)
            continue
        policy.classes[name] = mapping
        policy.renderings.update(mapping)
        policy.occurrences[name] = sum(sum(seen[v].values()) for v in mapping)
        policy.elements[name] = [members[v][0] for v in mapping]
    return policy


def _judge_in_worlds(policy: InferredPolicy, value: str, renderings: Counter, worlds: dict[str, Counter]) -> None:
    """A value rendered several ways. Where tasks are worlds, it is inconsistent only inside a world that
    reads it two ways (the authors' English: a store's product and the rubric naming it); one rendering
    a task, another in the next, is a rendering per world."""
    apart = {world: counts for world, counts in worlds.items() if world != EVERYWHERE}
    if not apart or EVERYWHERE in worlds:
        policy.inconsistent[value] = renderings
        return
    policy.per_world[value] = {world: next(iter(c)) for world, c in apart.items() if len(c) == 1}
    mixed = {world: counts for world, counts in apart.items() if len(counts) > 1}
    if mixed:
        policy.inconsistent[value] = renderings
        policy.in_world.update({(value, world): counts for world, counts in mixed.items()})


def _code_renderings(ctx: ValidationContext, seen: dict[str, Counter]) -> dict[str, set[str]]:
    """Values the tool code looks data up by (a dict keyed by account class, a status it compares)
    that the variant changes in data -> how the code overlay renders them (empty: the code keeps them)."""
    changed = {value for value, renderings in seen.items() if any(t != value for t in renderings)}
    looked_up = lookup_literals(ctx) & changed if changed else frozenset()
    renders: dict[str, set[str]] = {value: set() for value in looked_up}
    for element in ctx.ir.elements if looked_up and ctx.overlay is not None else ():
        if element.source_text in renders and ctx.in_overlay(element):
            renders[element.source_text].add(ctx.code_target(element) or element.source_text)
    return renders


def inferred_canonical_map(failures, benchmark: str, language: str):
    """The policy notes of a failure set as a canonical map (unreviewed: a reviewer confirms it)."""
    cmap = CanonicalMap(benchmark=benchmark, language=language)
    for finding in failures.findings:
        if finding.kind != POLICY_KIND:
            continue
        detail = finding.evidence[0].detail
        for source, target in json.loads(detail.get("map", "{}")).items():
            cmap.upsert(
                CanonicalEntry(
                    group=detail.get("entity_class", "inferred"),
                    source=source,
                    target=target,
                    origin="translator",
                    origin_detail="inferred from the variant's own consistent rendering",
                    note="babelflow validate --save-inferred-map",
                )
            )
    return cmap


def save_inferred_map(failures, path) -> int:
    cmap = inferred_canonical_map(failures, failures.benchmark, failures.language)
    save_canonical_map(cmap, Path(path), whole=True)  # a file of its own, as asked: not a project map
    return len(cmap.entries)
