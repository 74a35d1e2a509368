"""Register an adapted variant as a tau2-bench domain, so tau2's own APIs run it unchanged."""

from __future__ import annotations

from pathlib import Path

from babelflow.variant import load_manifest


def register_variant(variant_root: Path) -> str:
    """Register `<domain>_<lang>` (environment, tasks, splits) in tau2's registry; returns the name.

    Importing tau2.registry pulls litellm; babelflow sets LITELLM_LOCAL_MODEL_COST_MAP so it stays
    offline. Registering the same variant twice is a no-op.
    """
    from source_benchmarks import open_variant
    from tau2.registry import registry

    manifest = load_manifest(variant_root)
    bench = open_variant(manifest.benchmark, variant_root)
    name = manifest.domain_name
    if name in registry.get_domains():
        return name
    default_split = bench.spec.default_split

    def get_tasks(task_split_name: str | None = default_split):
        return [bench.task(task_id) for task_id in bench.task_ids(task_split_name)]

    registry.register_domain(bench.environment_factory, name)
    registry.register_tasks(get_tasks, name, get_task_splits=bench.splits)
    return name
