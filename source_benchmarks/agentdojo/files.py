"""Which files of the installed AgentDojo make up one suite at one version (paths relative to the package)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

from babelflow.ir import ArtifactFormat, ArtifactRole
from source_benchmarks.agentdojo.combinations import COMBINATOR_MODULE, combined_parts
from source_benchmarks.protocol import ArtifactSpec


def package_root() -> Path:
    spec = importlib.util.find_spec("agentdojo")
    assert spec is not None and spec.origin is not None
    return Path(spec.origin).resolve().parent


def module_path(module_name: str) -> str:
    return str(Path(str(sys.modules[module_name].__file__)).resolve().relative_to(package_root()))


def data_dir(suite_name: str) -> str:
    return f"data/suites/{suite_name}"


def suite_artifacts(suite: Any) -> list[ArtifactSpec]:
    """Environment YAML (with its `!include` files), injection vectors, the system message, every
    task module the suite's tasks at this version come from, and the tool modules."""
    root = package_root()
    folder = data_dir(suite.name)
    specs = [ArtifactSpec(path=f"{folder}/environment.yaml", format=ArtifactFormat.YAML, role=ArtifactRole.DATABASE)]
    for include in sorted((root / folder / "include").glob("*.yaml")):
        specs.append(
            ArtifactSpec(
                path=f"{folder}/include/{include.name}", format=ArtifactFormat.YAML, role=ArtifactRole.DATABASE
            )
        )
    specs.append(
        ArtifactSpec(path=f"{folder}/injection_vectors.yaml", format=ArtifactFormat.YAML, role=ArtifactRole.DATABASE)
    )
    specs.append(ArtifactSpec(path="data/system_messages.yaml", format=ArtifactFormat.YAML, role=ArtifactRole.POLICY))
    tasks = [*suite.user_tasks.values(), *suite.injection_tasks.values()]
    tasks += [p for t in tasks for p in combined_parts(type(t))]
    task_modules = sorted({type(t).__module__ for t in tasks} - {COMBINATOR_MODULE})
    for name in task_modules:
        specs.append(ArtifactSpec(path=module_path(name), format=ArtifactFormat.PYTHON, role=ArtifactRole.PROMPT_CODE))
    tool_modules = sorted({f.run.__module__ for f in suite.tools})
    for name in tool_modules:
        specs.append(ArtifactSpec(path=module_path(name), format=ArtifactFormat.PYTHON, role=ArtifactRole.TOOL_CODE))
    return specs
