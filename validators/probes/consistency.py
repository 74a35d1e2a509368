"""Layer 2, cross-artifact consistency: preserved values unchanged and canonical terms rendered one
way everywhere. The layer's other checks: the variant's own rendering policy (probes/policy.py), the
references prose makes (probes/references.py, probes/prose_references.py, probes/prompt_entities.py)
and the code's texts (probes/code_texts.py).

Code texts take part as the variant runs them (the code overlay's rendering, else the source's):
a value a check compares is rendered one way in code and data, and a prompt still names it."""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass

from babelflow.ir import ArtifactRole, LinkKind, PreserveReason, TranslationType
from babelflow.worlds import world_of
from validators.checks import Scope, check, check_on
from validators.context import ValidationContext
from validators.finding_kinds import PAIRED, Layer, Severity, declare_kind
from validators.findings import Hit
from validators.map_parity import map_targets
from validators.probes.policy import POLICY_KIND

paired_consistency = check_on(Layer.CONSISTENCY, PAIRED)

# values no entity policy renders: a map that renders one of them is wrong, the field is reported
NEVER_RENDERED = {
    PreserveReason.IDENTIFIER,
    PreserveReason.NUMBER,
    PreserveReason.DATE_TIME,
    PreserveReason.EMAIL_URL,
    PreserveReason.TOOL_NAME,
    PreserveReason.ARGUMENT_NAME,
    PreserveReason.SCHEMA_KEY,
    PreserveReason.CONTROL_TOKEN,
}


@paired_consistency(POLICY_KIND, Severity.NOTE, "the variant renders an entity class its own way, consistently")
def canonical_rendering_inferred(ctx: ValidationContext, scope: Scope) -> Iterator[Hit]:
    """One note per entity class whose values the variant renders one consistent way."""
    policy = ctx.policy
    for name, mapping in sorted(policy.classes.items()):
        first = policy.elements[name][0]
        example = next(iter(mapping.items()))
        yield Hit(
            artifact=first.artifact,
            location=f"entity class {name}",
            message=f"{len(mapping)} {name} value(s) rendered one consistent way in {policy.occurrences[name]} "
            f"field(s) (e.g. {example[0]!r} -> {example[1]!r}): a canonical policy of this variant, not a defect",
            source=example[0],
            target=example[1],
            pattern=name,
            detail={
                "entity_class": name,
                "values": str(len(mapping)),
                "fields": str(policy.occurrences[name]),
                "map": json.dumps(mapping, ensure_ascii=False, sort_keys=True),
            },
        )


# a value the agent passes to a tool, or the code compares, breaks a call when two of them read alike
CALL_BOUND = frozenset(
    {LinkKind.TOOL_ARGUMENT, LinkKind.COMPARED_IN_CODE, LinkKind.COMPARED_BY_EVALUATOR, LinkKind.DB_LOOKUP}
)


@paired_consistency("renderings_collide", Severity.CRITICAL, "two source values share one rendering")
def renderings_collide(ctx: ValidationContext, scope: Scope) -> Iterator[Hit]:
    """Two kept values given one rendering cannot be told apart any more (two products, one name). Critical
    where a tool call takes them or code compares them; major where only a model reads them (a tag, an
    option shown in a tool's output): the agent and the judge read two things as one."""
    policy = ctx.policy
    bound = _call_bound_values(ctx)
    for rendering, values in sorted(policy.collisions().items()):
        element = policy.first.get(values[0])
        breaks_calls = any(v in bound for v in values)
        yield Hit(
            artifact=element.artifact if element else "<variant>",
            location=f"rendering {rendering!r}",
            message=f"{len(values)} different kept values are all rendered {rendering!r} "
            f"({', '.join(map(repr, values))}): they can no longer be told apart"
            + ("" if breaks_calls else " by a reader (no tool call takes them, no code compares them)"),
            source=" | ".join(values),
            target=rendering,
            pattern=f"{rendering!r}",
            cause="different values given one rendering",
            severity=Severity.CRITICAL if breaks_calls else Severity.MAJOR,
        )


def _fields_seen(ctx: ValidationContext, kinds: frozenset[LinkKind]):
    """The fields whose evidence shows one of these kinds (the run saw them passed to a tool, compared…)."""
    seen = {evidence.id: set(evidence.kinds) for evidence in ctx.ir.evidence}
    return [e for e in ctx.ir.elements if e.evidence and seen.get(e.evidence, set()) & kinds]


def _compared_by_evaluator(ctx: ValidationContext) -> set[str]:
    """Ids of the fields whose text the evaluator itself compares (VitaBench judges each distinct rubric
    string once: a rubric worded two ways is judged twice, and the reward needs both verdicts)."""
    return {e.id for e in _fields_seen(ctx, frozenset({LinkKind.COMPARED_BY_EVALUATOR}))}


def _call_bound_values(ctx: ValidationContext) -> set[str]:
    """Kept values whose fields the run saw passed to a tool or compared (their evidence's kinds)."""
    return {e.source_text for e in _fields_seen(ctx, CALL_BOUND) if e.translation_type is TranslationType.PRESERVE}


@paired_consistency("preserved_value_changed", Severity.CRITICAL, "a Preserve value was translated")
def preserved_value_changed(ctx: ValidationContext, scope: Scope) -> Iterator[Hit]:
    policy = ctx.policy
    # a field the IR types Preserve (an IR made with another profile, a golden argument linked to a
    # localized DB value) that holds the map's rendering of its value follows the variant's map
    map_renders = map_renderings(ctx)
    references = dominant_renderings(ctx, policy)
    collided = set(policy.collisions())
    compared = ctx.derived(_compared_by_evaluator)
    for element in ctx.ir.elements:
        if scope.skips(element) or element.translation_type is not TranslationType.PRESERVE:
            continue
        if element.locator.kind == "python_literal":
            continue  # kept code texts: code_texts.py; prose in code: prose_references.py
        target = ctx.target_text(element)
        if (
            target != element.source_text
            and element.source_text in policy.renderings
            and element.locator.kind != "markdown_block"
        ):
            continue  # rendered one way everywhere: reported once per entity class (policy.py)
        if (
            target is not None
            and target != element.source_text
            and target in map_renders.get(element.source_text, ())
            and element.preserve_reason not in NEVER_RENDERED
            and element.locator.kind != "markdown_block"
        ):
            continue  # the map's rendering of a localized value: the map is checked by canonical_inconsistent
        world = world_of(element, ctx.ir)
        if policy.consistent_in_world(element.source_text, world, target):
            continue  # one rendering in its task, where tasks are worlds: no reader sees another
        others = policy.renderings_in(element.source_text, world)
        reference = references.get((element.source_text, world)) if others else None
        # judged against the dominant rendering when the value has one (an order line that kept
        # 'Perfume' while the catalogue reads 'Pabango' differs too), else against the source
        if target == (
            reference.target
            if reference is not None and element.locator.kind != "markdown_block"
            else element.source_text
        ):
            continue
        severity = _changed_severity(element, target, others, reference, policy, collided)
        if severity is Severity.MAJOR and element.id in compared:
            severity = Severity.CRITICAL  # the evaluator compares the text: two wordings are two criteria
        detail = {"typing_rule": element.typing_rule}
        if others:
            detail["renderings"] = "; ".join(f"{t!r}×{n}" for t, n in others.most_common(5))
        if reference is not None:
            detail.update(reference=reference.target, reference_role=reference.role, holder_role=element.role)
        message = (
            "Preserve field "
            f"({element.preserve_reason.value if element.preserve_reason else 'preserve'}) "
            + ("kept as in the source" if target == element.source_text else "changed")
            + (
                f": {element.source_text!r} is rendered {len(others)} ways; this field reads {target!r}, "
                f"{reference.place}: {reference.target!r}"
                if others and reference is not None
                else (f": the value is rendered {len(others)} ways across the variant" if others else "")
            )
            + (
                "; only the kind of space differs: the harness parses one time"
                if _only_spaces_differ(element, target)
                else "; only the letter case differs: one name to every reader"
                if severity is Severity.NOTE
                else ""
            )
            + (": the tool code looks data up by it unchanged" if element.source_text in policy.code_bound else "")
            + (
                "; the evaluator compares this text exactly: it judges two criteria where the source has one"
                if others and element.id in compared and severity is Severity.CRITICAL
                else ""
            )
        )
        if element.source_text in policy.code_bound:
            detail["tool_code_literal"] = element.source_text
        yield Hit.on(
            element,
            target,
            message,
            severity=severity,
            location=element.role + path_of(element),
            detail=detail,
            pattern=f"{element.source_text!r} in another letter case"
            if severity is Severity.NOTE
            else f"{element.source_text!r} rendered {len(others)} ways"
            if others
            else None,
            # one repair for all of them: each value's record rendering written everywhere (`babelflow adopt`)
            cause=(
                "criteria the evaluator compares, worded two ways"
                if element.id in compared
                else "fields that do not use their record's rendering of a value"
            )
            if others and severity is not Severity.NOTE
            else None,
        )


def canonical_renderings(ctx: ValidationContext, scope: Scope) -> dict[tuple[str, str], list[tuple]]:
    """(canonical group, source value) -> (element, its rendering in the variant) of every
    Translate-Canonical field the scope does not skip (code texts as the variant runs them)."""
    renderings: dict[tuple[str, str], list[tuple]] = defaultdict(list)
    for element in ctx.ir.elements:
        if scope.skips(element) or element.translation_type is not TranslationType.TRANSLATE_CANONICAL:
            continue
        code = element.locator.kind == "python_literal"
        target = ctx.code_target(element) if code else ctx.target_text(element)
        renderings[(element.canonical_group or "default", element.source_text)].append((element, target))
    return renderings


CANONICAL_INCONSISTENT = declare_kind(
    "canonical_inconsistent", Layer.CONSISTENCY, Severity.CRITICAL, PAIRED, "a canonical term is rendered two ways"
)


@check(CANONICAL_INCONSISTENT)
def canonical_inconsistent(ctx: ValidationContext, scope: Scope) -> Iterator[Hit]:
    map_entries = ctx.canonical_map.lookup() if ctx.canonical_map else {}
    for (group, source), renderings in canonical_renderings(ctx, scope).items():
        counts = Counter(t for _, t in renderings)
        expected = (
            map_entries[(group, source)].target if (group, source) in map_entries else counts.most_common(1)[0][0]
        )
        for element, target in renderings:
            if target == expected:
                continue
            # a note when no reader tells the two apart (letter case or separators only: 'home_address' for
            # 'home address'); else critical: the data and what the tasks name no longer agree
            alike = target is not None and _reads_alike(target, expected)
            yield Hit(
                artifact=element.artifact,
                location=element.role + path_of(element),
                message=f"canonical {group} term rendered differently from its "
                + ("reviewed rendering" if map_entries else f"rendering elsewhere ({expected!r})")
                + (": only letter case or separators differ, one name to every reader" if alike else ""),
                element_id=element.id,
                source=source,
                target=target,
                detail={"expected": expected},
                severity=Severity.NOTE if alike else Severity.CRITICAL,
            )


@dataclass(frozen=True)
class Reference:
    """The rendering the other renderings of a value are judged against, and where it is held."""

    target: str
    role: str
    place: str


def _depth(role: str) -> int:
    return role.count("*")


def dominant_renderings(ctx: ValidationContext, policy) -> dict[tuple[str, str], Reference]:
    """(value rendered several ways, its world) -> its dominant rendering there (babelflow/worlds.py: one
    task where tasks are worlds, else the whole benchmark): an enum code or id itself where some
    field keeps it; else (a catalogue entity) the one the value's own record holds (the shallowest
    field role: the catalogue's products.*.name rather than orders.*.items[*].name), else the most
    common. Only occurrences that differ from it are defects: a line that already matches the
    catalogue is not one (the issue's 970 of 1,585)."""
    holders: dict[tuple[str, str], list[tuple]] = defaultdict(list)
    for element in ctx.ir.elements:
        if (
            element.source_text in policy.inconsistent
            and element.translation_type is TranslationType.PRESERVE
            and element.locator.kind in ("data_value", "data_key")
        ):
            target = ctx.target_text(element)
            if target is not None:
                holders[(element.source_text, world_of(element, ctx.ir))].append((element, target))
    references = {}
    for (value, world), items in holders.items():
        kept = next((e for e, t in items if t == value), None)
        if kept is not None and kept.preserve_reason is not PreserveReason.LINKED_ENTITY:
            # an enum code or id kept somewhere: Preserve means kept, every change is the defect
            references[(value, world)] = Reference(target=value, role=kept.role, place="the fields that keep it hold")
            continue
        depth = min(_depth(e.role) for e, _ in items)
        top = [(e, t) for e, t in items if _depth(e.role) == depth]
        target, _ = Counter(t for _, t in top).most_common(1)[0]
        role = next(e.role for e, t in top if t == target)
        if len(top) < len(items):
            place = f"its record ({role}) holds"
        else:
            target, _ = Counter(t for _, t in items).most_common(1)[0]
            role = next(e.role for e, t in items if t == target)
            place = "most fields hold"
        references[(value, world)] = Reference(target=target, role=role, place=place)
    return references


def _changed_severity(element, target: str | None, others, reference: Reference | None, policy, collided) -> Severity:
    """Impact, per occurrence: a Preserve value changed outright is critical; a value rendered
    several ways is a synonym (major; a note when only the letter case differs: 'Thảm tập Yoga' and
    'Thảm tập yoga' are one name to every reader, and a reviewer labelled both such groups false) unless this
    rendering is another value's too (a collision: two products read as one) or the tool code
    looks the value up unchanged."""
    if element.locator.kind == "markdown_block":
        return Severity.MAJOR
    if _only_spaces_differ(element, target):
        return Severity.NOTE
    if element.source_text in policy.code_bound or not others:
        return Severity.CRITICAL
    if element.preserve_reason is not PreserveReason.LINKED_ENTITY:
        return Severity.CRITICAL  # an enum code, id or number: tools and evaluators compare it as it is
    if target in collided:
        return Severity.CRITICAL
    if reference is not None:
        same_case = target is not None and target.casefold() == reference.target.casefold()
        return Severity.NOTE if same_case else Severity.MAJOR
    if len({t.casefold() for t in others}) == 1 and element.source_text.casefold() not in {
        t.casefold() for t in others
    }:
        return Severity.NOTE  # one rendering in two letter cases: cosmetic
    return Severity.MAJOR


def _only_spaces_differ(element, target: str | None) -> bool:
    """A date or time whose only change is the kind of space ('2025-09-19\xa010:49:56' written with a plain
    space): strptime reads any whitespace where its format has a space, so the harness reads one time."""
    return (
        element.preserve_reason is PreserveReason.DATE_TIME
        and target is not None
        and target != element.source_text
        and target.split() == element.source_text.split()
    )


def _reads_alike(first: str, second: str) -> bool:
    """One name to every reader: 'home_address', 'Home address' and 'home-address'."""
    fold = lambda text: " ".join(re.split(r"[\s_\-]+", text.casefold())).strip()  # noqa: E731
    return fold(first) == fold(second)


def map_renderings(ctx: ValidationContext) -> dict[str, set[str]]:
    """source value -> the map's renderings of it, for values the map renders differently from the source."""
    renderings = {source: {t for t in targets if t != source} for source, targets in map_targets(ctx).items()}
    return {source: targets for source, targets in renderings.items() if targets}


@check(CANONICAL_INCONSISTENT)
def left_in_source(ctx: ValidationContext, scope: Scope) -> Iterator[Hit]:
    """A task's data field (golden argument, evaluation criterion) that keeps a value in the source
    language while the DB fields it is linked to hold the map's rendering: the agent would look up,
    or the grader expect, a value the DB no longer has. Canonical-typed fields are judged against the
    map above; this is the same check for fields the IR keeps."""
    map_renders = map_renderings(ctx)
    if not map_renders:
        return
    database = ctx.database_paths
    tasks = {s.path for s in ctx.specs if s.role is ArtifactRole.TASKS}
    members: dict[str, list] = defaultdict(list)
    kept_in_db: set[str] = set()
    for element in ctx.ir.elements:
        if element.artifact in database and element.source_text in map_renders:
            for link in element.links:
                members[link].append(element)
            if element.translation_type is TranslationType.PRESERVE and ctx.target_text(element) == element.source_text:
                kept_in_db.add(element.source_text)  # the same text kept elsewhere in the DB: ambiguous
    for element in ctx.ir.elements:
        value = element.source_text
        if (
            element.artifact not in tasks
            or scope.skips(element)
            or element.locator.kind != "data_value"
            or element.translation_type is not TranslationType.PRESERVE
            or value not in map_renders
            or value in kept_in_db
            or element.preserve_reason in NEVER_RENDERED
        ):
            continue
        if ctx.target_text(element) != value:
            continue  # changed: judged as a Preserve field above
        rendered = next(
            (
                (db, target)
                for link in element.links
                for db in members.get(link, ())
                if (target := ctx.target_text(db)) in map_renders[value]
            ),
            None,
        )
        if rendered is None:
            continue
        db, target = rendered
        yield Hit.on(
            element,
            value,
            f"{value!r} is left in the source language while the DB field it is linked to holds the map's "
            f"rendering {target!r} ({db.artifact} {path_of(db).removeprefix(' @ ')})",
            location=element.role + path_of(element),
            detail={"expected": target or "", "linked_db_field": db.id},
        )


def path_of(element) -> str:
    locator = element.locator
    if locator.kind == "python_literal":
        return f" @ {locator.qualname} ({locator.role})"
    return " @ " + (
        "$" + "".join(f"[{p!r}]" for p in locator.path)
        if hasattr(locator, "path")
        else f"block {getattr(locator, 'block_index', '?')}"
    )
