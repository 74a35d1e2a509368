"""An AgentDojo suite as a variant sees it: its data folder, translated tasks and tools.

Upstream's tool output goes through `yaml.safe_dump` without `allow_unicode`, so "Köln" reaches the
model as "K\\xF6ln": `unicode_tool_output` is the formatter a variant's agents get
(`ToolsExecutor(tool_output_formatter=unicode_tool_output)`); upstream code is not copied.
"""

from __future__ import annotations

from collections import defaultdict
from functools import partial
from pathlib import Path
from typing import Any

import yaml

from babelflow.variant import CodeOverlay
from source_benchmarks.agentdojo.code_overlay import translate_tasks, translate_tools
from source_benchmarks.agentdojo.files import data_dir
from source_benchmarks.agentdojo.loader import load_module


def unicode_tool_output(result: Any) -> str:
    """AgentDojo's own `tool_result_to_str`, dumping YAML with `allow_unicode=True`."""
    to_str = load_module("agentdojo.agent_pipeline.tool_execution").tool_result_to_str
    return to_str(result, dump_fn=partial(yaml.safe_dump, allow_unicode=True))


def variant_suite(source: Any, variant_root: Path | None, overlay: CodeOverlay | None) -> Any:
    """A copy of `source` (AgentDojo's `get_new_version`) reading its data from the variant."""
    suite = source.get_new_version(source.benchmark_version)
    if variant_root is not None:
        suite.data_path = Path(variant_root) / data_dir(source.name)
    if overlay is not None and overlay.texts:
        version = source.benchmark_version
        suite.tools = translate_tools(source.tools, overlay)
        suite._user_tasks = defaultdict(
            dict, {k: {version: t} for k, t in translate_tasks(source.user_tasks, overlay).items()}
        )
        suite._injection_tasks = defaultdict(
            dict, {k: {version: t} for k, t in translate_tasks(source.injection_tasks, overlay).items()}
        )
    return suite
