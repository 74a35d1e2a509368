"""Imports sit at the top of modules (ruff PLC0415); the few kept inside functions keep two promises
that the rule cannot check, so they are checked here in a fresh interpreter:

- `babelflow --help` (which imports flows.cli.app) loads no engine and no heavy dependency: each command
  imports its engine when it runs;
- the modules that set Prefect's environment before importing it (python -m flows.pipeline.deployment,
  flows.server.launcher) do not import Prefect when they are loaded, since prefect.context reads the
  environment once, at import.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# third-party packages that would cost `babelflow --help` from 0.1 s (babel) to 25 s (tau2.registry)
HEAVY = (
    "prefect",
    "tau2",
    "agentdojo",
    "litellm",
    "openai",
    "anthropic",
    "dashscope",
    "httpx",
    "requests",
    "sacrebleu",
    "deepdiff",
    "translate",
    "lxml",
    "libcst",
    "babel",
    "lingua",
    "ruamel",
    "yaml",
    "uvicorn",
)
# our engines: analysis, translation, rebuild, validation, the pipeline and the Prefect flow
ENGINES = (
    "analyzers",
    "translators.engine",
    "translators.rebuild",
    "translators.spec",
    "validators.run",
    "validators.orchestrator",
    "validators.model_backends",
    "flows.pipeline.adapt",
    "flows.pipeline.stages",
    "flows.pipeline.prefect_flows",
    "flows.evaluation.evaluate",
    "flows.server.local_server",
    "babelflow.llm.costs",
    "babelflow.canonical_map",
)


def loaded_by(module: str) -> set[str]:
    """Every module `import <module>` (or a comma-separated list) loads, in a fresh interpreter."""
    env = {**os.environ, "DO_NOT_TRACK": "1", "PREFECT_SERVER_ANALYTICS_ENABLED": "false"}
    code = f"import sys, {module}; print('\\n'.join(sys.modules))"
    command = [sys.executable, "-c", code]
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=True)
    return set(done.stdout.split())


def offenders(modules: set[str], names: tuple[str, ...]) -> list[str]:
    return sorted(n for n in names if any(m == n or m.startswith(n + ".") for m in modules))


def test_babelflow_help_loads_no_engine_and_no_heavy_dependency():
    modules = loaded_by("flows.cli.app")
    assert offenders(modules, HEAVY) == []
    assert offenders(modules, ENGINES) == []


def test_the_check_sees_an_engine_and_a_heavy_dependency():
    """The check can fail: `babelflow evaluate`'s engine brings both (the provider layer, a translator registry)."""
    modules = loaded_by("flows.evaluation.evaluate")
    assert "requests" in offenders(modules, HEAVY)
    assert "translators.spec" in offenders(modules, ENGINES)


def test_modules_that_set_prefects_environment_first_do_not_import_it_when_loaded():
    modules = loaded_by(
        "flows.pipeline.deployment, flows.server.launcher, flows.pipeline.run_guard, flows.pipeline.progress_views"
    )
    assert offenders(modules, ("prefect", "uvicorn")) == []
