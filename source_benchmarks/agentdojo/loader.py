"""Import AgentDojo's suites, tasks and tools without its LLM SDKs.

`agentdojo.task_suite.task_suite` imports three small modules of `agentdojo.agent_pipeline`
(base element, errors, ground-truth pipeline), but the package's `__init__` imports every model
client (openai, anthropic, cohere, google-genai, transformers) at import time. A lean install
(`pip install --no-deps agentdojo` + what the suites import) lacks them, so the package is
registered here as a namespace whose `__path__` is the real folder: its submodules import as
usual, its `__init__` does not run. Nothing of AgentDojo is copied or changed.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import sys
import types
from functools import cache
from typing import Any

from babelflow.errors import BabelflowError

VERSIONS = ("v1", "v1.1", "v1.1.1", "v1.1.2", "v1.2", "v1.2.1", "v1.2.2")
LATEST_VERSION = VERSIONS[-1]
SUITES = ("workspace", "travel", "banking", "slack")

_PIPELINE = "agentdojo.agent_pipeline"


def _bypass_pipeline_init() -> None:
    if _PIPELINE in sys.modules:
        return
    spec = importlib.util.find_spec("agentdojo")
    if spec is None or not spec.submodule_search_locations:
        raise BabelflowError(
            "AgentDojo is not installed", fix="run `bash scripts/install.sh` (installs agentdojo with --no-deps)"
        )
    folder = list(spec.submodule_search_locations)[0] + "/agent_pipeline"
    package = types.ModuleType(_PIPELINE)
    package.__path__ = [folder]  # submodules resolve here; the SDK-importing __init__ is skipped
    package.__package__ = _PIPELINE
    sys.modules[_PIPELINE] = package


@cache
def agentdojo_version() -> str:
    return importlib.metadata.version("agentdojo")


def load_module(name: str) -> Any:
    _bypass_pipeline_init()
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        raise BabelflowError(
            f"AgentDojo module {name} does not import: {exc}",
            fix="run `bash scripts/install.sh` (lean AgentDojo install: see README, AgentDojo)",
        ) from exc


def get_suite(suite: str, version: str = LATEST_VERSION) -> Any:
    if suite not in SUITES:
        raise BabelflowError(
            f"Unknown AgentDojo suite {suite!r}",
            field="benchmark",
            fix=f"use agentdojo-<suite> with one of: {', '.join(SUITES)}",
        )
    if version not in VERSIONS:
        raise BabelflowError(
            f"Unknown AgentDojo version {version!r}", field="--version", fix=f"use one of: {', '.join(VERSIONS)}"
        )
    load_suites = load_module("agentdojo.task_suite.load_suites")
    return load_suites.get_suite(version, suite)
