"""Cross-artifact references, without a model: an entity the task prose names must be written
the way the DB (catalogue, order lines) or the canonical map writes it.

A variant that renders its catalogue one way and the same product another way in a task's
instructions (tasks 5-9 of a Chinese variant say 水壶 for the water bottle, the catalogue and the
order say 水瓶; 水壶 is another product's name) sends the user simulator asking for something the
agent cannot find, or finds as another product. This checks every mention of a rendered DB
entity in task prose, an inline token or not, in any letter case ("the water bottle"), by its word
boundaries in the source; `references_kept` in prose_references.py leaves these mentions to it.

Severity from impact: prose that holds another product's rendering names the wrong product
(critical: the agent finds, or the user asks for, something else). Prose that holds no rendering
the DB knows and no other product's is a synonym or transliteration ('thiết bị đọc sách điện tử'
for the catalogue's 'Máy đọc sách điện tử', 'อีรีดเดอร์'): the agent matches it to the catalogue by
meaning, and a reviewer labelled all nine such groups on the corpus false. It is a note, one group
per entity, for a reviewer who wants the prose to use the catalogue's words.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from babelflow.ir import ArtifactRole, PreserveReason
from babelflow.text import UNSPACED_LETTERS, comparable
from babelflow.value_index import ValueIndex
from validators.checks import Scope, check_on
from validators.context import ValidationContext
from validators.finding_kinds import PAIRED, Layer, Severity
from validators.findings import Hit
from validators.map_parity import map_targets
from validators.probes.pseudo_checks import pseudo_style

paired_consistency = check_on(Layer.CONSISTENCY, PAIRED)


def _name(value: str) -> bool:
    """A name ('Water Bottle', 'Rivers of Memory'), not an option word ('medium', 'grey') that prose
    also uses in its ordinary sense ('you want medium')."""
    return value[:1].isupper() and re.search(r"[A-Za-z]{3}", value) is not None


def rendered_entities(ctx: ValidationContext) -> dict[str, set[str]]:
    """Rendered entity (a product name the variant's DB renders, or a value its canonical map renders) ->
    every rendering the variant's DB or map holds for it (`ctx.derived(rendered_entities)`: once a context)."""
    policy = ctx.policy
    seen = policy.renderings_of()
    out: dict[str, set[str]] = {}
    for value, element in policy.first.items():
        if getattr(element, "preserve_reason", None) is not PreserveReason.LINKED_ENTITY or not _name(value):
            continue
        renderings = {t for t in seen.get(value, ()) if t and t != value}
        if renderings:
            out[value] = renderings
    for value, targets in map_targets(ctx).items():
        renderings = {t for t in targets if t and t != value}
        if value in out:
            out[value] |= renderings
        elif renderings and _name(value):
            out[value] = renderings  # a Translate-Canonical entity: the canonical map holds its rendering
    return out


def entity_groups(ctx: ValidationContext) -> dict[str, set[str]]:
    """Canonical value -> the map groups it is rendered in (product_name, tag, store_name, …); a DB name
    the map does not hold has none."""
    groups: dict[str, set[str]] = {}
    for group, source in ctx.canonical_map.lookup() if ctx.canonical_map is not None else {}:
        groups.setdefault(source, set()).add(group)
    return groups


def _same_kind(value: str, other: str, groups: dict[str, set[str]]) -> bool:
    """Could the prose name `other` where it named `value`? Not a tag for a product: an attribute word is
    no record the agent finds in another's place. Unknown groups (DB names outside the map) may."""
    mine, theirs = groups.get(value), groups.get(other)
    return not mine or not theirs or bool(mine & theirs)


def _ordinary_word(value: str, source_text: str, mention: re.Pattern[str]) -> bool:
    """A one-word name the cased source writes only in lower case is the ordinary word ('a classic pottery
    wheel', 'two-person dinner' for the tags 'Classic', 'Two-person'); a longer name is a name in any case."""
    if len(value.split()) > 1 or not value[:1].isupper():
        return False
    return all(not found.group(0)[:1].isupper() for found in mention.finditer(source_text))


def _names(rendering: str) -> re.Pattern[str]:
    """The rendering as a whole word where its script spaces words; inside any text where it does not."""
    if UNSPACED_LETTERS.search(rendering):
        return re.compile(re.escape(rendering))
    return re.compile(rf"(?<!\w){re.escape(rendering)}(?!\w)")


def _in_place(found: re.Pattern[str], folded: str, source_text: str, mention: re.Pattern[str]) -> bool:
    """Does the other rendering stand about where the prose names the entity? A translation keeps a sentence's
    order roughly, so a mention a third of the way into the source is a third of the way into the target
    (give or take 15%, or 60 characters in a short text); a homonym elsewhere in a long text is not it."""
    spots = [hit.start() / max(1, len(source_text)) for hit in mention.finditer(source_text)]
    width = max(0.15, 60 / max(1, len(folded)))
    return any(abs(hit.start() / len(folded) - spot) <= width for hit in found.finditer(folded) for spot in spots)


def _mentioned(name: str, source_folded: str) -> bool:
    """The source names `name` whole, inflected, or by a word of its own ('jigsaw' for 'Jigsaw Puzzle')."""
    folded = name.casefold()
    if folded[: max(4, len(folded) - 2)] in source_folded:
        return True
    words = [w for w in re.findall(r"\w+", folded) if len(w) >= 4]
    stems = [re.escape(w[: max(4, len(w) - 1)]) for w in words]
    return len(words) > 1 and any(re.search(rf"(?<!\w){stem}", source_folded) for stem in stems)


def blanked(folded: str, renderings: set[str]) -> str:
    """`folded` with each rendering blanked, the longest first: 'Occidental' (the tag 'Western') blanked
    before 'Comida occidental' (Western food) would leave 'Comida' (the tag 'Lunch') behind, in whatever
    order a set gave; the reviewed VitaBench instore variant's one critical finding came and went by run."""
    for rendering in sorted({r.casefold() for r in renderings}, key=lambda r: (-len(r), r)):
        folded = folded.replace(rendering, " " * len(rendering))
    return folded


@paired_consistency(
    "entity_rendering_unknown",
    Severity.MAJOR,
    "task prose names a DB entity with a rendering neither the DB nor the canonical map holds",
)
def entity_rendering_unknown(ctx: ValidationContext, scope: Scope) -> Iterator[Hit]:
    style = pseudo_style(ctx)
    rendered = ctx.derived(rendered_entities)  # prose_references.py's references_kept reads it too
    entities = {value: {comparable(r, style) for r in renderings} - {""} for value, renderings in rendered.items()}
    if not entities:
        return
    tasks = {s.path for s in ctx.specs if s.role is ArtifactRole.TASKS}
    patterns = {v: re.compile(rf"(?<![\w-]){re.escape(v)}(?![\w-])", re.IGNORECASE) for v in entities}
    named_in = ValueIndex(entities, joiners="-", fold=True)  # which entities a text names: not a search per entity
    rank = {value: index for index, value in enumerate(patterns)}
    # a rendering another entity holds (and this one does not): the prose now names another product
    owners: dict[str, set[str]] = {}
    for value, renderings in entities.items():
        for rendering in renderings:
            owners.setdefault(rendering.casefold(), set()).add(value)
    as_words = {rendering: _names(rendering) for rendering in owners}
    groups = ctx.derived(entity_groups)
    for element in ctx.translatable():
        if scope.skips(element) or element.artifact not in tasks or element.locator.kind != "data_value":
            continue
        target = ctx.target_text(element)
        if not target or target == element.source_text:
            continue
        folded = comparable(target, style).casefold()
        for value in sorted(named_in.found(element.source_text), key=rank.__getitem__):
            mention = patterns[value]
            if not mention.search(element.source_text) or _ordinary_word(value, element.source_text, mention):
                continue
            if value.casefold() in folded or any(r.casefold() in folded for r in entities[value]):
                continue
            longer = [v for v in entities if value != v and value.casefold() in v.casefold()]
            if any(patterns[v].search(element.source_text) for v in longer):
                continue  # 'Kettle' inside 'Electric Kettle': the longer name is judged
            source_folded = element.source_text.casefold()
            # mentioned in the source in any form ('bookshelves' for 'Bookshelf', 'jigsaw' for 'Jigsaw
            # Puzzle'): its rendering in the target is that product's, not another's
            mentioned = {v for v in entities if _mentioned(v, source_folded)}
            # the renderings of what the source does name, blanked: 'Comida' inside 'Comida occidental'
            # (Western food, which the source names) is no mention of the tag 'Lunch'
            rest = blanked(folded, {r for v in mentioned for r in entities[v]})
            others = sorted(
                {
                    owner
                    for rendering, names in owners.items()
                    if rendering in rest and _in_place(as_words[rendering], rest, element.source_text, mention)
                    for owner in names
                    if owner not in mentioned and _same_kind(value, owner, groups)
                }
            )
            named = ", ".join(sorted(map(repr, entities[value]))[:3])
            if others:
                severity = Severity.CRITICAL
                message = (
                    f"the task names {value!r} with the rendering of {', '.join(map(repr, others[:2]))}: the user "
                    f"asks for, and the agent finds, another product (the DB writes {value!r} as {named})"
                )
                cause = f"{value!r} named as another product in task prose"
                shared = "products named as another product in task prose"
            else:
                severity = Severity.NOTE
                message = (
                    f"the task names {value!r} in words the DB does not use for it ({named}) nor for any other "
                    "product: a synonym the agent matches by meaning; use the catalogue's words if the prose should"
                )
                cause = f"{value!r} named by a synonym in task prose"
                shared = "products named by a synonym in task prose"
            yield Hit.on(
                element,
                target,
                message,
                severity=severity,
                detail={
                    "entity": value,
                    "db_renderings": " | ".join(sorted(entities[value])),
                    "other": ", ".join(others),
                },
                pattern=cause,
                cause=shared,
            )
