"""A task prompt's entities that the task's own checks compare reach the agent as the checks hold them.

AgentDojo's `utility()` / `security()` compare values the prompt names (a Slack channel, a file, a
hotel). The translated prompt must still name each one exactly as the variant's check holds it
(the code overlay's rendering of the literal, else the literal itself): 'general' renamed 'General'
or 'ĝéñéŕåļ' sends the agent to a channel the check does not look at. The general reference check
forgives another case or word order; a value the task's check compares gets no such allowance and
is critical. Families without task code (no text attributes declared) have nothing to check here.
"""

from __future__ import annotations

from collections.abc import Iterator

from babelflow.ir import PythonLiteralLocator
from source_benchmarks.protocol import PerturbedBenchmark
from validators.checks import Scope, check
from validators.context import ValidationContext
from validators.findings import Hit, Severity
from validators.probes.prose_references import REFERENCE_LOST


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


@check(REFERENCE_LOST)
def prompt_entity_lost(ctx: ValidationContext, scope: Scope) -> Iterator[Hit]:
    if not isinstance(ctx.source, PerturbedBenchmark) or ctx.overlay is None:
        return
    attributes = frozenset(ctx.source.text_attributes)
    literals = _task_literals(ctx, attributes)
    for element in ctx.translatable():
        locator = element.locator
        if (
            element.artifact in scope.skip
            or not isinstance(locator, PythonLiteralLocator)
            or locator.qualname.split(".")[-1] not in attributes
            or not ctx.in_overlay(element)
        ):
            continue
        compared = literals.get((element.artifact, locator.qualname.split(".")[0]), {})
        target = ctx.code_target(element) or ""
        for token in element.inline_tokens:
            wanted = compared.get(token)
            if wanted is None or wanted in target:
                continue
            yield Hit(
                severity=Severity.CRITICAL,
                artifact=element.artifact,
                location=f"{element.role} @ {locator.qualname} ({locator.role})",
                message=f"{token!r}, which the task's own checks compare, no longer appears as {wanted!r} in the "
                "translated prompt: the agent is sent to another value",
                element_id=element.id,
                source=element.source_text,
                target=target,
                detail={"token": token, "compared_as": wanted},
                pattern=f"{token!r}",
            )
