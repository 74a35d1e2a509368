"""Register a variant the AgentDojo way: `register_suite(suite, "<version>-<tag>")`.

After `register_variant(path)`, AgentDojo's own APIs find it: `get_suite("v1.2.2-en-XA", "travel")`,
`agentdojo.benchmark.benchmark_suite_with_injections(pipeline, suite, ...)`, with
`variant_system_message(path)` as the agent's system message and `unicode_tool_output` as the
`ToolsExecutor(tool_output_formatter=...)` so translated tool output reaches the model unescaped.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from babelflow.errors import BabelflowError
from babelflow.variant import OVERLAY_NAME, load_manifest, load_overlay
from source_benchmarks.agentdojo.adapter import AgentDojoBenchmark
from source_benchmarks.agentdojo.loader import load_module
from source_benchmarks.yaml_io import load_yaml


def variant_version(base_version: str, language: str) -> str:
    return f"{base_version}-{language}"


def register_variant(variant_root: Path) -> tuple[str, Any]:
    """(benchmark version string, suite) of the variant, registered in AgentDojo's suite registry."""
    manifest = load_manifest(Path(variant_root))
    if not manifest.benchmark.startswith("agentdojo-"):
        raise BabelflowError(
            f"{manifest.benchmark} is not an AgentDojo variant",
            file=variant_root,
            fix="pass adapted/agentdojo-<suite>/<lang>",
        )
    bench = AgentDojoBenchmark(
        manifest.benchmark, variant_root=Path(variant_root), overlay=load_overlay(Path(variant_root) / OVERLAY_NAME)
    )
    version = variant_version(bench.version, manifest.language)
    load_module("agentdojo.task_suite.load_suites").register_suite(bench.suite, version)
    return version, bench.suite


def variant_system_message(variant_root: Path, name: str | None = None) -> str:
    """The variant's translated system message (upstream reads only the packaged file)."""
    messages = load_yaml(Path(variant_root) / "data" / "system_messages.yaml")
    return str(messages.get(name, messages["default"]) if name else messages["default"])
