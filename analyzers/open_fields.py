"""The differential for the data fields the traced replay left open: perturb their paths and keep what moves.

A field path with no observation of its own (a task id, an enum-typed field, a DB record no golden action
reaches) is perturbed by the DifferentialRunner (differential.py); a changed outcome makes its fields Preserve
unless a profile rule decided them."""

from __future__ import annotations

from analyzers.differential import DifferentialRunner, OpenPath, watched_indices
from analyzers.inventory import InventoryBuilder, Progress
from analyzers.trace_cache import cached
from babelflow.ir import ArtifactRole, LinkKind, PreserveReason, TranslationType
from source_benchmarks.registry import get_benchmark


def type_open_fields(builder: InventoryBuilder, progress: Progress) -> None:
    """Perturb the open field paths (batched, bisected, cached by source hash) and record the outcome."""
    if not builder.open_fields or not builder.located.available:
        return
    grouped: dict[tuple, OpenPath] = {}
    for element, key, path in builder.open_fields:
        open_path = grouped.get(key)
        if open_path is None:
            open_path = grouped[key] = OpenPath(key, [], set(), [])
        open_path.locations.append((element.artifact, path))
        open_path.values.add(element.source_text)
        task_index = _task_index(builder, element.artifact, path)
        if task_index is not None and task_index not in open_path.task_indices:
            open_path.task_indices.append(task_index)
    paths = sorted(grouped.values(), key=lambda p: (p.key[0], repr(p.key[1]), p.key[2]))
    progress(f"differential: {len(paths)} open field paths")

    def compute() -> dict:
        runner = DifferentialRunner(builder.bench, lambda folder: get_benchmark(builder.bench.id, source_dir=folder))
        return runner.run(paths, watched_indices(builder.bench))

    found = cached(builder.bench, "differential", compute, extra=repr([(p.key, len(p.locations)) for p in paths]))
    for element, key, _ in builder.open_fields:
        observed = found.get(key)
        if observed is None:
            continue
        element.evidence = builder.located.entry(key[0], key[1], observed)
        plain_changed = (
            LinkKind.PERTURBATION_CHANGES_OUTCOME in observed.kinds or LinkKind.TOOL_OUTPUT in observed.kinds
        )
        if plain_changed:
            element.evidence_type = TranslationType.PRESERVE
            if (
                builder.plain_typer is builder.typer
                and element.translation_type is not TranslationType.PRESERVE
                and not element.typing_rule.startswith("profile")
            ):
                element.translation_type, element.canonical_group = TranslationType.PRESERVE, None
                element.preserve_reason = PreserveReason.EVALUATOR_TOKEN
                element.typing_rule = f"evidence (differential): {observed.detail}"


def _task_index(builder: InventoryBuilder, artifact: str, path: tuple) -> int | None:
    """The position of the task a tasks-file field belongs to: its list index in a tasks file, the
    file's task in a per-file group."""
    spec = builder.specs_by_path.get(artifact)
    if spec is None or spec.role is not ArtifactRole.TASKS:
        return None
    if path and isinstance(path[0], int):
        return path[0]
    return builder.task_positions.get(artifact)
