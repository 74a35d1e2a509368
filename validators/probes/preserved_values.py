"""Layer 2: a Preserve value kept as the source writes it, or rendered the one way its record renders it.

A value rendered several ways is judged against its dominant rendering in its world (its record's, or the
one the fields that keep it hold); what differs is reported with its impact: critical where a tool, the
tool code or the evaluator compares the text, major for a synonym, a note for letter case or the kind of
space alone."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass

from babelflow.ir import LinkKind, PreserveReason, TranslationType
from babelflow.worlds import world_of
from validators.checks import Scope
from validators.context import ValidationContext
from validators.finding_kinds import Severity
from validators.findings import Hit
from validators.probes.consistency import NEVER_RENDERED, fields_seen, map_renderings, paired_consistency, path_of


def _compared_by_evaluator(ctx: ValidationContext) -> set[str]:
    """Ids of the fields whose text the evaluator itself compares (VitaBench judges each distinct rubric
    string once: a rubric worded two ways is judged twice, and the reward needs both verdicts)."""
    return {e.id for e in fields_seen(ctx, frozenset({LinkKind.COMPARED_BY_EVALUATOR}))}


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
