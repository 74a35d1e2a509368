"""Static description of the four tau2-bench domains: which files, models and code they read."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from babelflow.ir import ArtifactFormat, ArtifactRole
from source_benchmarks.protocol import ArtifactSpec


@dataclass(frozen=True)
class Tau2DomainSpec:
    benchmark_id: str
    domain: str
    db_file: str
    db_model: str
    tools_class: str
    policy_files: tuple[str, ...]
    default_split: str | None
    user_db_file: str | None = None
    user_db_model: str | None = None
    user_tools_class: str | None = None
    code_files: tuple[tuple[str, ArtifactRole], ...] = field(default_factory=tuple)
    # a domain package outside tau2's tree (domain_package.py): where it lives and how it binds its files
    environment_module: str | None = None
    path_globals: tuple[tuple[str, str], ...] | None = None
    package_dir: str | None = None
    data_path: str | None = None

    @property
    def data_dir(self) -> str:
        return f"data/tau2/domains/{self.domain}"


# Code every domain's models read: prompts sent to the agent, the user simulator and the judge.
SHARED_PROMPT_CODE: tuple[tuple[str, ArtifactRole], ...] = (
    ("agent/llm_agent.py", ArtifactRole.PROMPT_CODE),
    ("user/user_simulator.py", ArtifactRole.PROMPT_CODE),
    ("user/base.py", ArtifactRole.PROMPT_CODE),
    ("orchestrator/orchestrator.py", ArtifactRole.PROMPT_CODE),
    ("evaluator/evaluator_nl_assertions.py", ArtifactRole.PROMPT_CODE),
)

USER_GUIDELINES = (
    "data/tau2/user_simulator/simulation_guidelines.md",
    "data/tau2/user_simulator/simulation_guidelines_tools.md",
)


def _code(domain: str, *extra: str) -> tuple[tuple[str, ArtifactRole], ...]:
    files = [
        (f"domains/{domain}/tools.py", ArtifactRole.TOOL_CODE),
        (f"domains/{domain}/data_model.py", ArtifactRole.DATA_MODEL_CODE),
    ]
    for name in extra:
        role = (
            ArtifactRole.TOOL_CODE
            if "tools" in name
            else (ArtifactRole.PROMPT_CODE if "environment" in name else ArtifactRole.DATA_MODEL_CODE)
        )
        files.append((f"domains/{domain}/{name}", role))
    return tuple(files) + SHARED_PROMPT_CODE


def _domain(
    domain: str, db_model: str, tools_class: str, policy_files: tuple[str, ...], default_split: str | None, **rest: Any
) -> Tau2DomainSpec:
    """A domain of tau2's tree: its models and tools by class name in tau2.domains.<domain>."""
    return Tau2DomainSpec(
        benchmark_id=f"tau2-{domain}",
        domain=domain,
        db_file=rest.pop("db_file", "db.json"),
        db_model=f"tau2.domains.{domain}.data_model:{db_model}",
        tools_class=f"tau2.domains.{domain}.tools:{tools_class}",
        policy_files=policy_files,
        default_split=default_split,
        code_files=_code(domain, *rest.pop("extra_code", ())),
        **rest,
    )


DOMAINS: dict[str, Tau2DomainSpec] = {
    "tau2-mock": _domain("mock", "MockDB", "MockTools", ("policy.md", "policy_solo.md"), None),
    "tau2-airline": _domain("airline", "FlightDB", "AirlineTools", ("policy.md",), "base"),
    "tau2-retail": _domain("retail", "RetailDB", "RetailTools", ("policy.md",), "base"),
    "tau2-telecom": _domain(
        "telecom",
        "TelecomDB",
        "TelecomTools",
        (
            "main_policy.md",
            "tech_support_manual.md",
            "tech_support_workflow.md",
            "main_policy_solo.md",
            "tech_support_workflow_solo.md",
        ),
        "base",
        db_file="db.toml",
        user_db_file="user_db.toml",
        user_db_model="tau2.domains.telecom.user_data_model:TelecomUserDB",
        user_tools_class="tau2.domains.telecom.user_tools:TelecomUserTools",
        extra_code=("user_tools.py", "user_data_model.py", "environment.py"),
    ),
}


def format_of(filename: str) -> ArtifactFormat:
    if filename.endswith(".json"):
        return ArtifactFormat.JSON
    if filename.endswith(".toml"):
        return ArtifactFormat.TOML
    if filename.endswith(".py"):
        return ArtifactFormat.PYTHON
    return ArtifactFormat.MARKDOWN


def database_artifacts(spec: Tau2DomainSpec, model: Callable[[str], str] = str) -> list[ArtifactSpec]:
    """The domain's DB and user DB (telecom; τ³'s mock), each with the model that loads it (`model` maps
    its dotted path: τ³'s mirrored models)."""
    files = ((spec.db_file, spec.db_model), (spec.user_db_file, spec.user_db_model))
    return [
        ArtifactSpec(
            path=f"{spec.data_dir}/{name}",
            format=format_of(name),
            role=ArtifactRole.DATABASE,
            data_model=model(dotted) if dotted else None,
        )
        for name, dotted in files
        if name
    ]


def split_artifact(spec: Tau2DomainSpec) -> ArtifactSpec:
    """The task splits: ids only, kept as they are."""
    return ArtifactSpec(
        path=f"{spec.data_dir}/split_tasks.json",
        format=ArtifactFormat.JSON,
        role=ArtifactRole.TASK_SPLIT,
        translatable=False,
    )


def policy_artifacts(spec: Tau2DomainSpec) -> list[ArtifactSpec]:
    return [
        ArtifactSpec(path=f"{spec.data_dir}/{name}", format=ArtifactFormat.MARKDOWN, role=ArtifactRole.POLICY)
        for name in spec.policy_files
    ]


def guideline_and_code_artifacts(spec: Tau2DomainSpec, user_guidelines: tuple[str, ...]) -> list[ArtifactSpec]:
    """The user simulator's guidelines, then the domain's code (tools, models, prompts)."""
    guidelines = [
        ArtifactSpec(path=path, format=ArtifactFormat.MARKDOWN, role=ArtifactRole.USER_GUIDELINES)
        for path in user_guidelines
    ]
    return guidelines + [
        ArtifactSpec(path=path, format=ArtifactFormat.PYTHON, role=role) for path, role in spec.code_files
    ]
