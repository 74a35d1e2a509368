"""Register an adapted variant as a tau2-bench domain, so tau2's own APIs run it unchanged."""

from __future__ import annotations

from pathlib import Path

from babelflow.errors import BabelflowError
from babelflow.variant import load_manifest


def register_variant(variant_root: Path) -> str:
    """Register `<domain>_<lang>` (environment, tasks, splits) and the localized agent and user
    simulator (`llm_agent_<lang>`, `user_simulator_<lang>`) in tau2's registry; returns the domain.

    Importing tau2.registry pulls litellm; babelflow sets LITELLM_LOCAL_MODEL_COST_MAP so it stays
    offline. Registering the same variant twice is a no-op.
    """
    from tau2.registry import registry

    from source_benchmarks import open_variant
    from source_benchmarks.tau_common.adapter import Tau2Benchmark

    manifest = load_manifest(variant_root)
    bench = open_variant(manifest.benchmark, variant_root)
    if not isinstance(bench, Tau2Benchmark):
        raise BabelflowError(
            f"{manifest.benchmark} is not a tau2 benchmark; only tau2 variants register as tau2 domains",
            file=variant_root,
            fix="point at a tau2 variant",
        )
    name = manifest.domain_name
    if name in registry.get_domains():
        return name
    default_split = bench.spec.default_split

    def get_tasks(task_split_name: str | None = default_split):
        return [bench.task(task_id) for task_id in bench.task_ids(task_split_name)]

    registry.register_domain(bench.environment_factory, name)
    registry.register_tasks(get_tasks, name, get_task_splits=bench.splits)
    register_roles(variant_root, manifest.language, bench.overlay)
    return name


def register_roles(variant_root: Path, language: str, overlay) -> tuple[str, str]:
    """`llm_agent_<lang>` and `user_simulator_<lang>`: tau2's agent and user with translated prompts."""
    from tau2.registry import registry

    from babelflow.language_pack import load_pack
    from source_benchmarks.tau_common.localized_roles import localized_agent_class, localized_user_class

    agent_name, user_name = f"llm_agent_{language}", f"user_simulator_{language}"
    clause = load_pack(language).agent_language_clause
    if agent_name not in registry.get_agents():
        registry.register_agent(localized_agent_class(overlay, clause), agent_name)
    if user_name not in registry.get_users():
        registry.register_user(localized_user_class(Path(variant_root) / "data" / "tau2" / "user_simulator"), user_name)
    return agent_name, user_name
