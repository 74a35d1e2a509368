"""Who reads a field: texts no agent, user simulator or evaluator ever reads are no fidelity target.

Two kinds of evidence, neither a word list of a language:
- the family's own account of its data files (`family.perturbation(...).data_file`: keys whose leaves
  never reach a task, e.g. AgentDojo's injection-vector descriptions);
- a task file's maintainer metadata: the task's `description` (purpose, notes) and `issues`
  (title, description), which the harness loads for display only or drops, and no run reads.
"""

from __future__ import annotations

from babelflow.ir import ArtifactRole, DataValueLocator
from source_benchmarks.registry import family_of
from validators.context import ValidationContext

# top-level keys of a task record that only its maintainers read (tau2: Task.description is
# printed by manual mode only; `issues` is no field of the task model and is dropped on load)
TASK_METADATA = ("description", "issues")

# metadata and judge-only text: cosmetic. AgentDojo's task `COMMENT` ("none" in most injection tasks) is read
# by nothing in agentdojo: no model, no check
READ_BY_NO_MODEL = ("issues", "description.", "nl_assertions", ".COMMENT")


def read_by_no_model(ctx: ValidationContext, element) -> bool:
    locator = element.locator
    if not isinstance(locator, DataValueLocator):
        return False
    unread = ctx.derived(_unread_keys).get(element.artifact)
    if unread and any(isinstance(segment, str) and segment in unread for segment in locator.path):
        return True
    if element.artifact not in ctx.derived(_task_files):
        return False
    # tasks.json: [index, key, ...]; a per-task file: [key, ...]
    path = [segment for segment in locator.path if isinstance(segment, str)]
    return bool(path) and path[0] in TASK_METADATA


def _task_files(ctx: ValidationContext) -> frozenset[str]:
    return frozenset(s.path for s in ctx.specs if s.role is ArtifactRole.TASKS)


def _unread_keys(ctx: ValidationContext) -> dict[str, frozenset[str]]:
    """artifact -> keys whose leaves never reach a task, as the family declares them."""
    found: dict[str, frozenset[str]] = {}
    perturbed = family_of(ctx.source.id).perturbation(ctx.source)
    if perturbed is not None:
        for spec in ctx.specs:
            if spec.format.value in ("json", "yaml", "toml"):
                keys = perturbed.data_file(spec).unread_keys
                if keys:
                    found[spec.path] = frozenset(keys)
    return found
