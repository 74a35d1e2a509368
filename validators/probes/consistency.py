"""Layer 2, cross-artifact consistency: canonical terms rendered one way everywhere, two values never
given one rendering, and the helpers the layer's other checks share. Those checks: Preserve values kept
(probes/preserved_values.py), the variant's own rendering policy (probes/policy.py), the references prose
makes (probes/references.py, probes/prose_references.py, probes/prompt_entities.py) and the code's texts
(probes/code_texts.py).

Code texts take part as the variant runs them (the code overlay's rendering, else the source's):
a value a check compares is rendered one way in code and data, and a prompt still names it."""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from collections.abc import Iterator

from babelflow.ir import ArtifactRole, LinkKind, PreserveReason, TranslationType
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


def fields_seen(ctx: ValidationContext, kinds: frozenset[LinkKind]):
    """The fields whose evidence shows one of these kinds (the run saw them passed to a tool, compared…)."""
    seen = {evidence.id: set(evidence.kinds) for evidence in ctx.ir.evidence}
    return [e for e in ctx.ir.elements if e.evidence and seen.get(e.evidence, set()) & kinds]


def _call_bound_values(ctx: ValidationContext) -> set[str]:
    """Kept values whose fields the run saw passed to a tool or compared (their evidence's kinds)."""
    return {e.source_text for e in fields_seen(ctx, CALL_BOUND) if e.translation_type is TranslationType.PRESERVE}


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
