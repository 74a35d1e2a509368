"""References that translated prose must keep: the values its inline tokens name (canonical ones in
their rendering, values the variant renders by a policy in that rendering) and the tools it names.

An entity of the DB that task prose names is probes/references.py's; a value a task's own checks
compare, probes/prompt_entities.py's."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

from babelflow.ir import ArtifactRole, LinkKind, TranslationType
from babelflow.language_data import language_data, numbers_in
from validators.checks import Scope, check
from validators.context import ValidationContext
from validators.finding_kinds import PAIRED, Layer, Severity, declare_kind
from validators.findings import Hit
from validators.probes.consistency import canonical_renderings, map_renderings, path_of
from validators.probes.quoting import quoted_pairs
from validators.probes.references import rendered_entities
from validators.probes.tool_code import cited, tool_names

REFERENCE_LOST = declare_kind(
    "reference_lost", Layer.CONSISTENCY, Severity.MAJOR, PAIRED, "prose no longer names a value it referred to"
)
CANONICAL_TERM_NOT_USED = declare_kind(
    "canonical_term_not_used",
    Layer.CONSISTENCY,
    Severity.CRITICAL,
    PAIRED,
    "prose names a canonical value but not in its canonical rendering",
)


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
    def of(cls, ctx: ValidationContext, policy, renderings: dict[str, str]) -> ReadScope:
        tasks = {s.path for s in ctx.specs if s.role is ArtifactRole.TASKS}
        database = ctx.database_paths
        changed = set(policy.renderings) | set(policy.inconsistent)
        db_kept = {
            element.source_text
            for element in ctx.ir.elements
            if element.artifact in database
            and element.locator.kind in ("data_value", "data_key")  # an option's name ('stovetop compatibility') too
            and element.source_text not in changed
            # kept by the IR, or a canonical value whose rendering is itself (an adopted catalogue kept it)
            and (
                element.translation_type is TranslationType.PRESERVE
                or renderings.get(element.source_text) == element.source_text
            )
        }
        return cls(tasks=tasks, db_kept=db_kept)

    def task_prose(self, element) -> bool:
        return element.artifact in self.tasks

    def read_from_db(self, token: str) -> bool:
        return token in self.db_kept


@check(CANONICAL_TERM_NOT_USED, also=(REFERENCE_LOST,))
def references_kept(ctx: ValidationContext, scope: Scope) -> Iterator[Hit]:
    """Inline tokens of translated prose must still be there (canonical ones in their rendering,
    values the variant renders by an inferred policy in that rendering)."""
    policy = ctx.policy
    entities = ctx.derived(rendered_entities)
    map_entries = ctx.canonical_map.lookup() if ctx.canonical_map else {}
    rendering = {
        source: (
            map_entries[(g, source)].target
            if (g, source) in map_entries
            else Counter(t for _, t in items).most_common(1)[0][0]
        )
        for (g, source), items in canonical_renderings(ctx, scope).items()
    }
    kinds = _link_kinds(ctx)
    all_renderings = policy.renderings_of()
    map_renders = map_renderings(ctx)
    readers = ReadScope.of(ctx, policy, rendering)
    for element in ctx.translatable():
        if scope.skips(element) or not element.inline_tokens:
            continue
        target = ctx.code_target(element) if element.locator.kind == "python_literal" else ctx.target_text(element)
        if target is None or target == element.source_text:
            continue  # missing, or copied through whole: `untranslated` reports it, once per file
        folded = target.casefold()
        for token in element.inline_tokens:
            if token in entities and readers.task_prose(element):
                continue  # a rendered DB entity in task prose: entity_rendering_unknown judges it, once
            wanted = rendering.get(token, token)
            kept = wanted == token  # the map (or the data) keeps the value: a lost mention is a lost reference
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
            if kept and digits and not Counter(digits) - Counter(numbers_in(target, language_data(ctx.language))):
                continue  # a measure whose unit the translation writes in its language ('15-inch' -> '15 นิ้ว')
            if kept and _same_parts(token, folded):
                continue  # same value in another case, spacing or word order ('13-inch' -> '13 inch')
            kind = "reference_lost" if kept else "canonical_term_not_used"
            read_from_db = False
            if kind == "reference_lost" and readers.task_prose(element):
                if LinkKind.SCHEMA_LITERAL in kinds.get(token, set()):
                    continue  # a closed set's value in the user's words: the agent maps it onto the policy's list
                read_from_db = readers.read_from_db(token)  # a city in 'you live in Denver, 80280': a note
            # prose is read by a model (user simulator, agent): wrong there is major; a policy
            # value the agent must pass to a tool verbatim (a cancel reason) changes behaviour
            acts_on = (
                ctx._spec_by_path.get(element.artifact) is not None
                and ctx._spec_by_path[element.artifact].role.value == "policy"
                and LinkKind.TOOL_ARGUMENT in kinds.get(token, set())
            )
            # a value the agent passes to a tool verbatim breaks the call when named another way; one it only
            # reads (an option the user asks for, a product it finds by id) is misread at worst
            passed = LinkKind.TOOL_ARGUMENT in kinds.get(token, set())
            severity = (
                Severity.CRITICAL if acts_on or (kind == "canonical_term_not_used" and passed) else Severity.MAJOR
            )
            also = f" nor as the variant's rendering {inferred!r}" if inferred else ""
            if read_from_db:
                yield Hit.on(
                    element,
                    target,
                    f"{token!r} is translated in the task's prose; the DB keeps it, and the agent reads it "
                    "(and writes it into tool calls) from there: nothing compares the prose's rendering",
                    kind=kind,
                    severity=Severity.NOTE,
                    location=element.role + path_of(element),
                    detail={"token": token},
                    pattern="DB values translated in task prose",
                )
                break
            yield Hit.on(
                element,
                target,
                f"{token!r} no longer appears as {wanted!r}{also} in the translation"
                + _why_it_matters(token, element.source_text, target, readers, acts_on, kinds.get(token, set())),
                kind=kind,
                severity=severity,
                location=element.role + path_of(element),
                detail={"token": token},
                pattern=f"{token!r}",
                cause=(
                    "values the tools hold, named another way in the text"
                    if kind == "reference_lost"
                    else "canonical values not in the map's rendering"
                ),
            )
            break


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


@check(REFERENCE_LOST)
def tool_names_lost(ctx: ValidationContext, scope: Scope) -> Iterator[Hit]:
    """A tool the source's prose names (a document telling the agent which tool to unlock) must be
    named the same in the translation: the code keeps its name. Inline tokens are `references_kept`'s."""
    names = tool_names(ctx)
    for element in ctx.translatable() if names else []:
        if scope.skips(element):
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
        yield Hit.on(
            element,
            target,
            f"the tool name {lost[0]!r} no longer appears in the translation"
            + (f" ({len(lost) - 1} more)" if len(lost) > 1 else "")
            + ": an agent that follows it looks for a tool the code does not have",
            severity=Severity.CRITICAL,
            location=element.role + path_of(element),
            detail={"token": lost[0], "tools": ", ".join(lost)},
            pattern=f"{lost[0]!r}",
        )


def _standalone(token: str, source: str, tokens: list[str]) -> int:
    """How often the source names `token` outside a longer token of the field ('London' in 'London
    Luxury', a hotel whose own rendering the check of that token follows)."""
    longer = {t for t in tokens if token in t and t != token}
    covered = [(m.start(), m.end()) for t in longer for m in re.finditer(re.escape(t), source)]
    return sum(
        1 for m in re.finditer(re.escape(token), source) if not any(a <= m.start() and m.end() <= b for a, b in covered)
    )
