"""Layer 2, cross-artifact consistency: preserved values unchanged, canonical terms rendered one
way everywhere, and every reference (ids, names, codes quoted in prose) still resolvable.

Code texts take part as the variant runs them (the code overlay's rendering, else the source's):
a value a check compares is rendered one way in code and data, and a prompt still names it."""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from dataclasses import dataclass

from babelflow.ir import ArtifactRole, LinkKind, PreserveReason, TranslationType
from babelflow.language_data import language_data, numbers_in
from validators.context import ValidationContext
from validators.finding_kinds import PROFILE_CONTRADICTS_EVIDENCE
from validators.findings import Finding, Layer, Severity, SuppressedCheck, make_finding
from validators.map_parity import map_targets
from validators.probes.policy import POLICY_KIND, infer_policy
from validators.probes.quoting import quoted_pairs
from validators.probes.references import check_entity_references, rendered_entities
from validators.probes.tool_code import cited, tool_names

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


def check_consistency(ctx: ValidationContext, suppressed: list[SuppressedCheck]) -> list[Finding]:
    validator_id = ctx.validator_id
    skip = {s.artifact for s in suppressed if s.layer is Layer.CONSISTENCY}
    findings: list[Finding] = []
    policy = infer_policy(ctx)
    findings += _policy_notes(policy, validator_id)
    findings += _collisions(policy, validator_id)
    canonical_targets: dict[tuple[str, str], list[tuple]] = defaultdict(list)
    map_targets = ctx.canonical_map.lookup() if ctx.canonical_map else {}
    canonical_by_value: dict[str, str] = {}
    # a field the IR types Preserve (an IR made with another profile, a golden argument linked to a
    # localized DB value) that holds the map's rendering of its value follows the variant's map
    map_renders = _map_renderings(ctx)
    references = dominant_renderings(ctx, policy)
    collided = set(policy.collisions())
    for element in ctx.ir.elements:
        if element.artifact in skip:
            continue
        code = element.locator.kind == "python_literal"
        if code and element.translation_type is not TranslationType.TRANSLATE_CANONICAL:
            continue  # kept code texts: _overlay below; prose in code: _references
        target = ctx.code_target(element) if code else ctx.target_text(element)
        if element.translation_type is TranslationType.PRESERVE:
            if (
                target != element.source_text
                and element.source_text in policy.renderings
                and element.locator.kind != "markdown_block"
            ):
                continue  # rendered one way everywhere: reported once per entity class below
            if (
                target is not None
                and target != element.source_text
                and target in map_renders.get(element.source_text, ())
                and element.preserve_reason not in NEVER_RENDERED
                and element.locator.kind != "markdown_block"
            ):
                continue  # the map's rendering of a localized value: the map is checked below
            others = policy.inconsistent.get(element.source_text)
            reference = references.get(element.source_text) if others else None
            # judged against the dominant rendering when the value has one (an order line that kept
            # 'Perfume' while the catalogue reads 'Pabango' differs too), else against the source
            if target != (
                reference.target
                if reference is not None and element.locator.kind != "markdown_block"
                else element.source_text
            ):
                severity = _changed_severity(element, target, others, reference, policy, collided)
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
                    + ("; only the letter case differs: one name to every reader" if severity is Severity.NOTE else "")
                    + (
                        ": the tool code looks data up by it unchanged"
                        if element.source_text in policy.code_bound
                        else ""
                    )
                )
                if element.source_text in policy.code_bound:
                    detail["tool_code_literal"] = element.source_text
                findings.append(
                    make_finding(
                        validator_id,
                        Layer.CONSISTENCY,
                        "preserved_value_changed",
                        severity,
                        element.artifact,
                        element.role + _path(element),
                        message,
                        element_id=element.id,
                        source=element.source_text,
                        target=target,
                        detail=detail,
                        pattern=(
                            f"{element.source_text!r} in another letter case"
                            if severity is Severity.NOTE
                            else f"{element.source_text!r} rendered {len(others)} ways"
                            if others
                            else None
                        ),
                    )
                )
        elif element.translation_type is TranslationType.TRANSLATE_CANONICAL:
            canonical_targets[(element.canonical_group or "default", element.source_text)].append((element, target))
            canonical_by_value[element.source_text] = element.canonical_group or "default"
    for (group, source), renderings in canonical_targets.items():
        counts = Counter(t for _, t in renderings)
        expected = (
            map_targets[(group, source)].target if (group, source) in map_targets else counts.most_common(1)[0][0]
        )
        for element, target in renderings:
            if target != expected:
                findings.append(
                    make_finding(
                        validator_id,
                        Layer.CONSISTENCY,
                        "canonical_inconsistent",
                        Severity.CRITICAL,
                        element.artifact,
                        element.role + _path(element),
                        f"canonical {group} term rendered differently from its reviewed rendering",
                        element_id=element.id,
                        source=source,
                        target=target,
                        detail={"expected": expected},
                    )
                )
    findings += _left_in_source(ctx, validator_id, skip, map_renders)
    entities = rendered_entities(ctx, policy)
    findings += check_entity_references(ctx, validator_id, skip, entities)
    findings += _references(ctx, validator_id, skip, canonical_targets, map_targets, policy, entities)
    findings += _tool_names_lost(ctx, validator_id, skip)
    findings += _overlay(ctx, validator_id)
    findings += _profile_disagreements(ctx, validator_id)
    return findings


@dataclass(frozen=True)
class Reference:
    """The rendering the other renderings of a value are judged against, and where it is held."""

    target: str
    role: str
    place: str


def _depth(role: str) -> int:
    return role.count("*")


def dominant_renderings(ctx: ValidationContext, policy) -> dict[str, Reference]:
    """value rendered several ways -> its dominant rendering: an enum code or id itself where some
    field keeps it; else (a catalogue entity) the one the value's own record holds (the shallowest
    field role: the catalogue's products.*.name rather than orders.*.items[*].name), else the most
    common. Only occurrences that differ from it are defects: a line that already matches the
    catalogue is not one (the issue's 970 of 1,585)."""
    holders: dict[str, list[tuple]] = defaultdict(list)
    for element in ctx.ir.elements:
        if (
            element.source_text in policy.inconsistent
            and element.translation_type is TranslationType.PRESERVE
            and element.locator.kind in ("data_value", "data_key")
        ):
            target = ctx.target_text(element)
            if target is not None:
                holders[element.source_text].append((element, target))
    references = {}
    for value, items in holders.items():
        kept = next((e for e, t in items if t == value), None)
        if kept is not None and kept.preserve_reason is not PreserveReason.LINKED_ENTITY:
            # an enum code or id kept somewhere: Preserve means kept, every change is the defect
            references[value] = Reference(target=value, role=kept.role, place="the fields that keep it hold")
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
        references[value] = Reference(target=target, role=role, place=place)
    return references


def _changed_severity(element, target: str | None, others, reference: Reference | None, policy, collided) -> Severity:
    """Impact, per occurrence: a Preserve value changed outright is critical; a value rendered
    several ways is a synonym (major; a note when only the letter case differs: 'Thảm tập Yoga' and
    'Thảm tập yoga' are one name to every reader, and a reviewer labelled both such groups false) unless this
    rendering is another value's too (a collision: two products read as one) or the tool code
    looks the value up unchanged."""
    if element.locator.kind == "markdown_block":
        return Severity.MAJOR
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


def _map_renderings(ctx: ValidationContext) -> dict[str, set[str]]:
    """source value -> the map's renderings of it, for values the map renders differently from the source."""
    renderings = {source: {t for t in targets if t != source} for source, targets in map_targets(ctx).items()}
    return {source: targets for source, targets in renderings.items() if targets}


def _left_in_source(ctx: ValidationContext, validator_id: str, skip: set[str], map_renders) -> list[Finding]:
    """A task's data field (golden argument, evaluation criterion) that keeps a value in the source
    language while the DB fields it is linked to hold the map's rendering: the agent would look up,
    or the grader expect, a value the DB no longer has. Canonical-typed fields are judged against the
    map above; this is the same check for fields the IR keeps."""
    if not map_renders:
        return []
    database = {s.path for s in ctx.specs if s.role is ArtifactRole.DATABASE}
    tasks = {s.path for s in ctx.specs if s.role is ArtifactRole.TASKS}
    members: dict[str, list] = defaultdict(list)
    kept_in_db: set[str] = set()
    for element in ctx.ir.elements:
        if element.artifact in database and element.source_text in map_renders:
            for link in element.links:
                members[link].append(element)
            if element.translation_type is TranslationType.PRESERVE and ctx.target_text(element) == element.source_text:
                kept_in_db.add(element.source_text)  # the same text kept elsewhere in the DB: ambiguous
    findings = []
    for element in ctx.ir.elements:
        value = element.source_text
        if (
            element.artifact not in tasks
            or element.artifact in skip
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
        findings.append(
            make_finding(
                validator_id,
                Layer.CONSISTENCY,
                "canonical_inconsistent",
                Severity.CRITICAL,
                element.artifact,
                element.role + _path(element),
                f"{value!r} is left in the source language while the DB field it is linked to holds the map's "
                f"rendering {target!r} ({db.artifact} {_path(db).removeprefix(' @ ')})",
                element_id=element.id,
                source=value,
                target=value,
                detail={"expected": target or "", "linked_db_field": db.id},
            )
        )
    return findings


def _profile_disagreements(ctx, validator_id: str) -> list[Finding]:
    """Where the reviewed profile translates a field the instrumented run saw executed (analysis
    route: the reviewer fixes the profile's type, not the translation)."""
    by_id = ctx.ir.by_id() if ctx.ir.analysis_findings else {}
    findings = []
    for disagreement in ctx.ir.analysis_findings:
        element = by_id.get(disagreement.element)
        if element is None:
            continue
        findings.append(
            make_finding(
                validator_id,
                Layer.CONSISTENCY,
                PROFILE_CONTRADICTS_EVIDENCE,
                Severity.MAJOR,
                element.artifact,
                element.role + _path(element),
                f"the profile types it {disagreement.profile_type.value} ({disagreement.profile_rule}) "
                f"but the run shows {disagreement.evidence}",
                element_id=element.id,
                source=element.source_text,
                target=ctx.target_text(element),
                detail={"route": "analysis", "evidence_type": disagreement.evidence_type.value},
            )
        )
    return findings


def _path(element) -> str:
    locator = element.locator
    if locator.kind == "python_literal":
        return f" @ {locator.qualname} ({locator.role})"
    return " @ " + (
        "$" + "".join(f"[{p!r}]" for p in locator.path)
        if hasattr(locator, "path")
        else f"block {getattr(locator, 'block_index', '?')}"
    )


def _policy_notes(policy, validator_id: str) -> list[Finding]:
    """One note per entity class whose values the variant renders one consistent way."""
    notes = []
    for name, mapping in sorted(policy.classes.items()):
        first = policy.elements[name][0]
        example = next(iter(mapping.items()))
        notes.append(
            make_finding(
                validator_id,
                Layer.CONSISTENCY,
                POLICY_KIND,
                Severity.NOTE,
                first.artifact,
                f"entity class {name}",
                f"{len(mapping)} {name} value(s) rendered one consistent way in {policy.occurrences[name]} field(s) "
                f"(e.g. {example[0]!r} -> {example[1]!r}): "
                "a canonical policy of this variant, not a defect",
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
        )
    return notes


def _collisions(policy, validator_id: str) -> list[Finding]:
    """Two kept values given one rendering cannot be told apart any more (two products, one name)."""
    out = []
    for rendering, values in sorted(policy.collisions().items()):
        element = policy.first.get(values[0])
        artifact = element.artifact if element else "<variant>"
        out.append(
            make_finding(
                validator_id,
                Layer.CONSISTENCY,
                "renderings_collide",
                Severity.CRITICAL,
                artifact,
                f"rendering {rendering!r}",
                f"{len(values)} different kept values are all rendered {rendering!r} "
                f"({', '.join(map(repr, values))}): they can no longer be told apart",
                source=" | ".join(values),
                target=rendering,
                pattern=f"{rendering!r}",
            )
        )
    return out


def _same_parts(token: str, folded_target: str) -> bool:
    parts = re.findall(r"\w+", token.casefold())
    words = set(re.findall(r"\w+", folded_target))
    return bool(parts) and all(p in words for p in parts)


def _link_kinds(ctx) -> dict[str, set]:
    kinds: dict[str, set] = {}
    for group in ctx.ir.link_groups:
        kinds.setdefault(group.value, set()).update(group.kinds)
    return kinds


@dataclass
class ReadScope:
    """Which values of a task's prose an agent, user simulator or evaluator reads from the prose.

    A DB value the variant keeps unchanged (a city next to the zip code that finds the user, an
    option such as 'AC adapter') is one the agent reads, and writes into tool calls, from the DB:
    the user saying it in the target language changes nothing anyone compares (a reviewer labelled
    'Phoenix -> 菲尼克斯' false). Such translations are listed in one note, not reported as lost."""

    tasks: set[str]
    db_kept: set[str]

    @classmethod
    def of(cls, ctx: ValidationContext, policy) -> ReadScope:
        tasks = {s.path for s in ctx.specs if s.role is ArtifactRole.TASKS}
        database = {s.path for s in ctx.specs if s.role is ArtifactRole.DATABASE}
        changed = set(policy.renderings) | set(policy.inconsistent)
        db_kept = {
            element.source_text
            for element in ctx.ir.elements
            if element.artifact in database
            and element.locator.kind in ("data_value", "data_key")  # an option's name ('stovetop compatibility') too
            and element.translation_type is TranslationType.PRESERVE
            and element.source_text not in changed
        }
        return cls(tasks=tasks, db_kept=db_kept)

    def task_prose(self, element) -> bool:
        return element.artifact in self.tasks

    def read_from_db(self, token: str) -> bool:
        return token in self.db_kept


def _references(ctx, validator_id, skip, canonical_targets, map_targets, policy, entities) -> list[Finding]:
    """Inline tokens of translated prose must still be there (canonical ones in their rendering,
    values the variant renders by an inferred policy in that rendering)."""
    rendering = {
        source: (
            map_targets[(g, source)].target
            if (g, source) in map_targets
            else Counter(t for _, t in items).most_common(1)[0][0]
        )
        for (g, source), items in canonical_targets.items()
    }
    kinds = _link_kinds(ctx)
    all_renderings = policy.renderings_of()
    map_renders = _map_renderings(ctx)
    scope = ReadScope.of(ctx, policy)
    findings = []
    for element in ctx.translatable():
        if element.artifact in skip or not element.inline_tokens:
            continue
        target = ctx.code_target(element) if element.locator.kind == "python_literal" else ctx.target_text(element)
        if target is None:
            continue
        folded = target.casefold()
        for token in element.inline_tokens:
            if token in entities and token not in rendering and scope.task_prose(element):
                continue  # a rendered DB entity in task prose: check_entity_references judges it, once
            wanted = rendering.get(token, token)
            inferred = policy.renderings.get(token)
            if target.count(wanted) >= _standalone(token, element.source_text, element.inline_tokens):
                continue
            renderings = (
                [inferred] if inferred is not None else [t for t in policy.inconsistent.get(token, ()) if t != token]
            )
            if any(r.casefold() in folded for r in renderings):
                continue  # one of the variant's own renderings of the value
            if any(r.casefold() in folded for r in map_renders.get(token, ())):
                continue  # the map's rendering of the value (a localized name or product)
            if any(
                re.search(rf"\b{re.escape(token)}\b", value) and any(t.casefold() in folded for t in targets)
                for value, targets in map_renders.items()
                if token in value and value != token
            ):
                continue  # part of a longer value the map renders ('Water' in 'Water Bottle')
            if any(
                re.search(rf"\b{re.escape(token)}\b", value)
                and any(t.casefold() in folded for t in all_renderings.get(value, ()))
                for value in policy.first
            ):
                continue  # part of a longer kept value ('Wireless' in 'Wireless Earbuds') the variant renders
            # a measure starts with its number; an id with a number inside ('US1330…') is a value to keep whole
            digits = numbers_in(token, language_data("en")) if token[:1].isdigit() else []
            if (
                token not in rendering
                and digits
                and not Counter(digits) - Counter(numbers_in(target, language_data(ctx.language)))
            ):
                continue  # a measure whose unit the translation writes in its language ('15-inch' -> '15 นิ้ว')
            if token not in rendering and _same_parts(token, folded):
                continue  # same value in another case, spacing or word order ('13-inch' -> '13 inch')
            kind = "canonical_term_not_used" if token in rendering else "reference_lost"
            read_from_db = False
            if kind == "reference_lost" and scope.task_prose(element):
                if LinkKind.SCHEMA_LITERAL in kinds.get(token, set()):
                    continue  # a closed set's value in the user's words: the agent maps it onto the policy's list
                read_from_db = scope.read_from_db(token)  # a city in 'you live in Denver, 80280': a note
            # prose is read by a model (user simulator, agent): wrong there is major; a policy
            # value the agent must pass to a tool verbatim (a cancel reason) changes behaviour
            acts_on = (
                ctx._spec_by_path.get(element.artifact) is not None
                and ctx._spec_by_path[element.artifact].role.value == "policy"
                and LinkKind.TOOL_ARGUMENT in kinds.get(token, set())
            )
            severity = Severity.CRITICAL if kind == "canonical_term_not_used" or acts_on else Severity.MAJOR
            also = f" nor as the variant's rendering {inferred!r}" if inferred else ""
            if read_from_db:
                findings.append(
                    make_finding(
                        validator_id,
                        Layer.CONSISTENCY,
                        kind,
                        Severity.NOTE,
                        element.artifact,
                        element.role + _path(element),
                        f"{token!r} is translated in the task's prose; the DB keeps it, and the agent reads it (and "
                        "writes it into tool calls) from there: nothing compares the prose's rendering",
                        element_id=element.id,
                        source=element.source_text,
                        target=target,
                        detail={"token": token},
                        pattern="DB values translated in task prose",
                    )
                )
                break
            findings.append(
                make_finding(
                    validator_id,
                    Layer.CONSISTENCY,
                    kind,
                    severity,
                    element.artifact,
                    element.role + _path(element),
                    f"{token!r} no longer appears as {wanted!r}{also} in the translation"
                    + _why_it_matters(token, element.source_text, target, scope, acts_on, kinds.get(token, set())),
                    element_id=element.id,
                    source=element.source_text,
                    target=target,
                    detail={"token": token},
                    pattern=f"{token!r}",
                )
            )
            break
    return findings


_HELD_BY_TOOLS = {LinkKind.TOOL_OUTPUT, LinkKind.DB_WRITE, LinkKind.COMPARED_IN_CODE}


def _why_it_matters(token: str, source: str, target: str, scope: ReadScope, acts_on: bool, links: set) -> str:
    """The evidence a reviewer needs to judge a lost reference: what the translation says instead,
    and what the software holds ('the DB keeps 'pending'; the tools return it so')."""
    counterpart = next((said for value, said in quoted_pairs(source, target) if value == token), None)
    said = f": it says {counterpart!r}" if counterpart and counterpart != token else ""
    if acts_on:
        return f"{said}; the agent passes this value to a tool, which accepts only {token!r}"
    if scope.read_from_db(token) or links & _HELD_BY_TOOLS:
        return (
            f"{said}; the variant's DB and tools hold {token!r} unchanged (the tools return and write it so), "
            "so the text and the tools' output name one value two ways"
        )
    if LinkKind.SCHEMA_LITERAL in links:
        return (
            f"{said}; the tools' data model lists {token!r} among its values and the tools return it unchanged, "
            "so the text and the tools' output name one value two ways"
        )
    return said


def _tool_names_lost(ctx: ValidationContext, validator_id: str, skip: set[str]) -> list[Finding]:
    """A tool the source's prose names (a document telling the agent which tool to unlock) must be
    named the same in the translation: the code keeps its name. Inline tokens are `_references`'."""
    names = tool_names(ctx)
    findings = []
    for element in ctx.translatable() if names else []:
        if element.artifact in skip:
            continue
        wanted = {n: k for n, k in cited(names, element.source_text).items() if n not in element.inline_tokens}
        if not wanted:
            continue
        target = ctx.code_target(element) if element.locator.kind == "python_literal" else ctx.target_text(element)
        if target is None:
            continue
        found = cited(names, target)
        lost = sorted(n for n, k in wanted.items() if found.get(n, 0) < k)
        if not lost:
            continue
        findings.append(
            make_finding(
                validator_id,
                Layer.CONSISTENCY,
                "reference_lost",
                Severity.CRITICAL,
                element.artifact,
                element.role + _path(element),
                f"the tool name {lost[0]!r} no longer appears in the translation"
                + (f" ({len(lost) - 1} more)" if len(lost) > 1 else "")
                + ": an agent that follows it looks for a tool the code does not have",
                element_id=element.id,
                source=element.source_text,
                target=target,
                detail={"token": lost[0], "tools": ", ".join(lost)},
                pattern=f"{lost[0]!r}",
            )
        )
    return findings


def _standalone(token: str, source: str, tokens: list[str]) -> int:
    """How often the source names `token` outside a longer token of the field ('London' in 'London
    Luxury', a hotel whose own rendering the check of that token follows)."""
    longer = {t for t in tokens if token in t and t != token}
    covered = [(m.start(), m.end()) for t in longer for m in re.finditer(re.escape(t), source)]
    return sum(
        1 for m in re.finditer(re.escape(token), source) if not any(a <= m.start() and m.end() <= b for a, b in covered)
    )


def _overlay(ctx: ValidationContext, validator_id: str) -> list[Finding]:
    """Code texts the IR preserves (compared literals, control tokens) must not be translated."""
    if ctx.overlay is None:
        return []
    preserved = {
        (e.artifact, e.source_text)
        for e in ctx.ir.elements
        if e.locator.kind == "python_literal" and e.translation_type is TranslationType.PRESERVE
    }
    # the field itself when the IR has one at the text's place (a confirmed finding routes to it)
    at = {
        ctx.code_key(e): e.id
        for e in ctx.ir.elements
        if e.locator.kind == "python_literal" and e.translation_type is TranslationType.PRESERVE
    }
    findings = []
    for text in ctx.overlay.texts:
        if text.role != "docstring" and (text.module, text.source) in preserved:
            findings.append(
                make_finding(
                    validator_id,
                    Layer.CONSISTENCY,
                    "preserved_code_text_translated",
                    Severity.CRITICAL,
                    text.module,
                    f"{text.qualname} ({text.role})",
                    "a code literal the IR preserves is translated in the overlay",
                    element_id=at.get((text.module, text.qualname, text.role, text.occurrence)),
                    source=text.source,
                    target=text.target,
                )
            )
    return findings
