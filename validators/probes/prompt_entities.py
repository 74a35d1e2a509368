"""A task prompt's entities that the task's own checks compare reach the agent as the checks hold them.

AgentDojo's `utility()` / `security()` compare values the prompt names (a Slack channel, a file, a
hotel). The translated prompt must still name each one exactly as the variant's check holds it
(the code overlay's rendering of the literal, else the literal itself): 'general' renamed 'General'
or 'ĝéñéŕåļ' sends the agent to a channel the check does not look at. The general reference check
forgives another case or word order; a value the task's check compares gets no such allowance and
is critical. The environment must hold the name as the check does too: a calendar whose event
'Yoga Class' reads 'Clase de Yoga' while the prompt asks for, and the check compares, 'Yoga Class'
fails the task. Families without task code (no text attributes declared) have nothing to check here.
"""

from __future__ import annotations

from collections.abc import Iterator

from babelflow.ir import IRElement, PythonLiteralLocator
from source_benchmarks.registry import family_of
from validators.checks import Scope, check, check_on
from validators.context import ValidationContext
from validators.finding_kinds import PAIRED, Layer
from validators.findings import Hit, Severity
from validators.probes.consistency import path_of
from validators.probes.prose_references import REFERENCE_LOST

paired_consistency = check_on(Layer.CONSISTENCY, PAIRED)


def _task_literals(ctx: ValidationContext, attributes: frozenset[str]) -> dict[tuple[str, str], dict[str, str]]:
    """(module, task class) -> {literal of its checks and constants: the variant's text of it}."""
    found: dict[tuple[str, str], dict[str, str]] = {}
    for element in ctx.ir.elements:
        locator = element.locator
        if not isinstance(locator, PythonLiteralLocator) or locator.qualname.count(".") != 1:
            continue
        task, member = locator.qualname.split(".")
        if member in attributes or len(element.source_text.strip()) < 2:
            continue
        found.setdefault((element.artifact, task), {})[element.source_text] = (
            ctx.code_target(element) or element.source_text
        )
    return found


def _compared_prompt_tokens(
    ctx: ValidationContext, scope: Scope
) -> Iterator[tuple[IRElement, PythonLiteralLocator, str, str]]:
    """(prompt field, its locator, inline token of it the task's checks compare, the variant's check's text of it)."""
    if ctx.overlay is None:  # no code texts: a family without task code (and no family to ask, in hand-built contexts)
        return
    perturbed = family_of(ctx.source.id).perturbation(ctx.source)
    if perturbed is None:
        return
    attributes = frozenset(perturbed.text_attributes)
    literals = _task_literals(ctx, attributes)
    for element in ctx.translatable():
        locator = element.locator
        if (
            scope.skips(element)
            or not isinstance(locator, PythonLiteralLocator)
            or locator.qualname.split(".")[-1] not in attributes
        ):
            continue
        compared = literals.get((element.artifact, locator.qualname.split(".")[0]), {})
        for token in element.inline_tokens:
            if token in compared:
                yield element, locator, token, compared[token]


@check(REFERENCE_LOST)
def prompt_entity_lost(ctx: ValidationContext, scope: Scope) -> Iterator[Hit]:
    if ctx.overlay is None:
        return
    for element, locator, token, wanted in _compared_prompt_tokens(ctx, scope):
        target = ctx.code_target(element) or ""
        if not ctx.in_overlay(element) or wanted in target:
            continue
        yield Hit.on(
            element,
            target,
            f"{token!r}, which the task's own checks compare, no longer appears as {wanted!r} in the "
            "translated prompt: the agent is sent to another value",
            severity=Severity.CRITICAL,
            location=f"{element.role} @ {locator.qualname} ({locator.role})",
            detail={"token": token, "compared_as": wanted},
            pattern=f"{token!r}",
            cause="values the task's checks compare, named another way in its prompt",
        )


@paired_consistency(
    "compared_name_rendered_apart",
    Severity.CRITICAL,
    "a name a task's prompt quotes and its check compares reads another way in the environment",
)
def compared_name_rendered_apart(ctx: ValidationContext, scope: Scope) -> Iterator[Hit]:
    """The environment's fields that hold such a name (a channel, file, contact, event title) in another
    rendering than the check's. A rendering the variant applies to every field of the environment
    passes for a policy of its own (policy.py's note): the prompt and the check still name the source's
    value, so the agent looks for an event the calendar no longer has."""
    holders: dict[str, list[IRElement]] = {}
    for element in ctx.ir.elements:
        if (
            element.artifact in ctx.database_paths
            and not scope.skips(element)
            and element.locator.kind in ("data_value", "data_key")
        ):
            holders.setdefault(element.source_text, []).append(element)
    reported: set[str] = set()
    for prompt, locator, token, wanted in _compared_prompt_tokens(ctx, scope):
        for holder in holders.get(token, ()):
            rendering = ctx.target_text(holder)
            if rendering is None or rendering == wanted or holder.id in reported:
                continue
            reported.add(holder.id)
            task = locator.qualname.split(".")[0]
            yield Hit.on(
                holder,
                rendering,
                f"{token!r}, which {task}'s prompt quotes and its check compares as {wanted!r}, reads "
                f"{rendering!r} in the environment: the agent looks for one name, the data holds another",
                location=holder.role + path_of(holder),
                detail={"task": task, "compared_as": wanted, "prompt_field": prompt.id},
                pattern=f"{token!r}",
            )
