"""Which task a finding on a field belongs to, so a task-level finding carries its task id (the
review lists a task's findings together, and `babelflow review --task` finds them)."""

from __future__ import annotations

from collections.abc import Callable

from babelflow.ir import ArtifactRole, DataValueLocator
from validators.context import ValidationContext
from validators.findings import Finding


def list_positions(ctx: ValidationContext) -> dict[tuple[str, int], str]:
    """(tasks artifact, index in its list) -> task id, for tasks kept in one list (τ²)."""
    out: dict[tuple[str, int], str] = {}
    for spec in ctx.specs:
        if spec.role is not ArtifactRole.TASKS or spec.holds_list is False:
            continue
        document = ctx.source_document(spec)
        if isinstance(document, list):
            out.update(
                {(spec.path, i): str(t["id"]) for i, t in enumerate(document) if isinstance(t, dict) and "id" in t}
            )
    return out


def _task_files(ctx: ValidationContext) -> dict[str, str]:
    """tasks file -> task id, for tasks kept one per file (τ³ banking): the file's top-level id."""
    per_file = {s.path for s in ctx.specs if s.role is ArtifactRole.TASKS and s.holds_list is False}
    return {
        e.artifact: e.source_text
        for e in ctx.ir.elements
        if e.artifact in per_file and isinstance(e.locator, DataValueLocator) and e.locator.path == ("id",)
    }


def with_task_ids(findings: list[Finding], context: Callable[[], ValidationContext]) -> list[Finding]:
    """The findings, each on a task's field given that task's id (others unchanged); the context is
    made only when a finding needs it."""
    wanted = {f.element_id for f in findings if f.element_id and f.task_id is None}
    if not wanted:
        return findings
    ctx = context()
    elements = {e.id: e for e in ctx.ir.elements if e.id in wanted}
    positions: dict[tuple[str, int], str] | None = None
    files = _task_files(ctx)
    out: list[Finding] = []
    for finding in findings:
        element = elements.get(finding.element_id or "")
        task = None
        if element is not None:
            path = getattr(element.locator, "path", ())
            if element.artifact in files:
                task = files[element.artifact]
            elif path and isinstance(path[0], int):
                positions = list_positions(ctx) if positions is None else positions
                task = positions.get((element.artifact, path[0]))
        out.append(finding.model_copy(update={"task_id": task}) if task else finding)
    return out
