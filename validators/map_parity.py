"""Source and variant compared through the canonical map: the renderings a variant may give a value.

A variant that localizes entities (a product name rendered once, the same way in the DB, the task
prose, the golden arguments and the evaluation criteria) returns other tool outputs than its source
by design. `Renderings` says, per source value, which target values are that value: the canonical
map's rendering (reviewed or not), the variant's own rendering of a translated DB field, or the
rendering a variant made elsewhere gives a kept value consistently (validators/probes/policy.py).
Outputs are then compared per whole value: each string leaf of a JSON (or YAML) output, never a
substring, so a name the map missed in one place still differs.

A value the map renders must appear in its rendering: left in the source language where the DB
holds the rendering, it is a mention the map missed, unless a kept DB field holds the same text
unchanged (then the text is ambiguous and equality is accepted).
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import yaml

from babelflow.ir import TranslationType
from babelflow.value_index import ValueIndex
from validators.context import ValidationContext

_LETTER = re.compile(r"[^\W\d_]")
# a value formatted into a text result is substituted whole up to this length: VitaBench formats its
# addresses (up to ~150 characters, naming the store they belong to) into every store it lists
_LONGEST = 400


@dataclass
class Renderings:
    """source value -> the target values that are that value in the variant."""

    allowed: dict[str, set[str]] = field(default_factory=dict)
    must_change: set[str] = field(default_factory=set)  # mapped values no kept DB field holds as they are
    free_texts: list[str] = field(default_factory=list)  # freely translated DB texts (no one rendering per value)
    messages: Callable[[str], str] | None = None  # harness messages the variant's code translates (catalog)
    _single: dict[str, str] = field(default_factory=dict, repr=False)
    _index: ValueIndex | None = field(default=None, repr=False)
    _free_set: frozenset[str] | None = field(default=None, repr=False)

    def accepts(self, source: str, target: str) -> bool:
        if source == target:
            return source not in self.must_change
        if target in self.allowed.get(source, ()):
            return True
        return self.messages is not None and self.messages(source) == target

    def __bool__(self) -> bool:
        return bool(self.allowed)

    @property
    def free_set(self) -> frozenset[str]:
        if self._free_set is None:
            self._free_set = frozenset(self.free_texts)
        return self._free_set

    def composed(self, source: str, target: str) -> bool:
        """A text the code formats from values (a message naming a payee, a file filled with an
        injection vector), not a value itself: equal once each value the variant renders one way is
        replaced by its rendering (whole words, longest first). In a DB that also holds freely
        translated prose (AgentDojo's emails and files) such text cannot be predicted: not judged."""
        if source in self.allowed or source in self.must_change:
            return False  # a value: judged whole by `accepts`
        if self._substituted(source) == target:
            return True
        return bool(self.free_texts) and source != target

    def _substituted(self, text: str) -> str:
        if self._index is None:
            self._single = {
                s: next(iter(t))
                for s, t in self.allowed.items()
                if len(t) == 1 and s not in t and 3 <= len(s) <= _LONGEST and _LETTER.search(s)
            }
            self._index = ValueIndex(self._single)
        return self._index.replace(text, self._single) if self._single else text


def map_targets(ctx: ValidationContext) -> dict[str, set[str]]:
    """source text -> its renderings in the variant's canonical map (every live group)."""
    targets: dict[str, set[str]] = defaultdict(set)
    for (_, source), entry in (ctx.canonical_map.lookup() if ctx.canonical_map is not None else {}).items():
        targets[source].add(entry.target)
    return dict(targets)


def renderings_for(ctx: ValidationContext, inferred: Callable[[], dict[str, set[str]]]) -> Renderings:
    """The map's renderings, the variant's renderings of its translated DB fields (a canonical field
    only as the map renders it: a DB value renamed against the map is not accepted), and, for a
    variant made elsewhere, the renderings `inferred` from its kept values."""
    mapped = map_targets(ctx)
    allowed: dict[str, set[str]] = defaultdict(set)
    for source, targets in mapped.items():
        allowed[source] |= targets
    database = ctx.database_paths
    kept_as_is: set[str] = set()
    free: set[str] = set()
    for element in ctx.ir.elements:
        if element.artifact not in database or element.locator.kind not in ("data_value", "data_key"):
            continue
        if element.translation_type is TranslationType.PRESERVE:
            if element.source_text in mapped and ctx.target_text(element) == element.source_text:
                kept_as_is.add(element.source_text)
            continue
        if element.translation_type is TranslationType.TRANSLATE_CANONICAL and element.source_text in mapped:
            continue  # only the map's rendering is that value
        target = ctx.target_text(element)
        if target is not None:
            allowed[element.source_text].add(target)
            if element.translation_type is TranslationType.TRANSLATE_FREE and len(element.source_text) > 3:
                free.add(element.source_text)
    # kept values a variant renders its own consistent way (one made elsewhere); the map decides its own values
    for source, targets in inferred().items():
        if source not in mapped:
            allowed[source] |= targets
    renamed = {source for source, targets in mapped.items() if source not in targets}  # the map changes them
    return Renderings(allowed=dict(allowed), must_change=renamed - kept_as_is, free_texts=sorted(free))


def parse_output(text: str) -> Any:
    """A tool output as data: JSON (τ²), else YAML (AgentDojo dumps its results as YAML); None for
    plain text (a YAML scalar is plain text too)."""
    try:
        return json.loads(text)
    except ValueError:
        pass
    try:
        value = yaml.safe_load(text)
    except yaml.YAMLError:
        return None
    return value if isinstance(value, (dict, list)) else None


def equal_modulo(source: Any, target: Any, renderings: Renderings, derived: bool = False) -> bool:
    """Equal, each string (leaf or dict key) compared as a whole value through `renderings`. With
    `derived`, numbers may differ: the result holds freely translated text, whose size and counts
    (a file's size in bytes) change with the translation."""
    if isinstance(source, str) and isinstance(target, str):
        return renderings.accepts(source, target) or renderings.composed(source, target)
    if derived and type(source) in (int, float) and type(target) in (int, float):
        return True
    if isinstance(source, datetime) and isinstance(target, datetime) and _run_clock(source) and _run_clock(target):
        return True  # the moment each replay ran (an email's timestamp), not data
    if isinstance(source, list) and isinstance(target, list):
        return len(source) == len(target) and all(
            equal_modulo(a, b, renderings, derived) for a, b in zip(source, target)
        )
    if isinstance(source, dict) and isinstance(target, dict):
        if len(source) != len(target):
            return False
        for key, value in source.items():
            # a rendering may name another value too (one rendering for two kettles): the key matches
            # if any of its renderings holds an equal value
            kept = key in target and (not isinstance(key, str) or renderings.accepts(key, key))
            candidates = [key] if kept else [k for k in renderings.allowed.get(key, ()) if k in target]
            if not candidates and isinstance(key, str) and renderings.messages is not None:
                # a harness message used as a key ('Preferred Network Mode set to'), translated by the code overlay
                candidates = [k for k in (renderings.messages(key),) if k in target]
            if not any(equal_modulo(value, target[k], renderings, derived) for k in candidates):
                return False
        return True
    return bool(source == target)


def holds_free_text(value: Any, renderings: Renderings) -> bool:
    """Does a parsed result hold a freely translated DB text (or prose made from one: a file's
    content formatted with an injection vector) as one of its strings?"""
    if isinstance(value, str):
        return value in renderings.free_set or (bool(renderings.free_texts) and len(value) >= 40 and " " in value)
    if isinstance(value, list):
        return any(holds_free_text(v, renderings) for v in value)
    if isinstance(value, dict):
        return any(holds_free_text(v, renderings) for v in value.values())
    return False


def _run_clock(moment: datetime) -> bool:
    """A time within a day of now: stamped by the replay's clock, so source and variant differ by design."""
    now = datetime.now(moment.tzinfo) if moment.tzinfo is not None else datetime.now()
    return abs(now - moment) < timedelta(days=1)


def mapped(value: Any, renderings: Renderings) -> Any:
    """`value` with each string put through its one rendering, where it has exactly one (for explaining)."""
    if isinstance(value, str):
        options = renderings.allowed.get(value, set())
        return next(iter(options)) if len(options) == 1 and value in renderings.must_change else value
    if isinstance(value, list):
        return [mapped(v, renderings) for v in value]
    if isinstance(value, dict):
        return {mapped(k, renderings) if isinstance(k, str) else k: mapped(v, renderings) for k, v in value.items()}
    return value


def explain(source: Any, target: Any, renderings: Renderings, limit: int = 400) -> str:
    """What differs once the source went through the map (deepdiff's words, shortened)."""
    # deepdiff takes ~1-2 s to import; only a mismatch needs it
    from deepdiff import DeepDiff  # noqa: PLC0415

    diff = DeepDiff(mapped(source, renderings), target, verbose_level=2)
    parts = []
    for kind, changes in diff.items():
        if isinstance(changes, dict):
            for path, change in list(changes.items())[:3]:
                parts.append(f"{kind} {path}: {json.dumps(change, ensure_ascii=False, default=str)}")
        else:
            parts.append(f"{kind}: {list(changes)[:3]}")
    text = "; ".join(parts)
    return text if len(text) <= limit else text[: limit - 1] + "…"
