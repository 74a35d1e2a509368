"""Nothing the models or the code read may be missing from the IR.

Each check enumerates the benchmark's text independently of the analyzer (plain recursion over
the parsed files, line scans of Markdown, the tool schemas tau2 builds, `ast` on prompt modules)
and looks every item up in the IR.
"""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

import orjson
import pytest

from source_benchmarks import benchmarks_of, get_benchmark
from source_benchmarks.tau_common.adapter import tau2_package_root

TAU2_BENCHMARKS = benchmarks_of("tau2")


def _leaves(node, path=()):
    if isinstance(node, str):
        yield path, node
    elif isinstance(node, dict):
        for key, value in node.items():
            yield from _leaves(value, path + (key,))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _leaves(value, path + (index,))


def _parse(path: Path):
    return tomllib.loads(path.read_text()) if path.suffix == ".toml" else orjson.loads(path.read_bytes())


def _normalize(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize("benchmark_id", TAU2_BENCHMARKS)
def test_every_string_leaf_of_db_and_task_files_is_an_element(benchmark_id, analyzed):
    ir = analyzed(benchmark_id)
    bench = get_benchmark(benchmark_id)
    covered = {
        (e.artifact, tuple(e.locator.path)): e.source_text for e in ir.elements if e.locator.kind == "data_value"
    }
    checked = 0
    for spec in bench.artifacts():
        if spec.role.value not in ("database", "tasks"):
            continue
        for path, value in _leaves(_parse(bench.artifact_path(spec))):
            assert covered.get((spec.path, path)) == value, f"{spec.path} {path} missing"
            checked += 1
    assert checked == len(covered)


@pytest.mark.parametrize("benchmark_id", TAU2_BENCHMARKS)
def test_every_markdown_line_is_inside_an_element(benchmark_id, analyzed):
    ir = analyzed(benchmark_id)
    bench = get_benchmark(benchmark_id)
    for spec in bench.artifacts():
        if spec.format.value != "markdown":
            continue
        blocks = [e for e in ir.elements if e.artifact == spec.path]
        assert blocks, spec.path
        text = bench.artifact_path(spec).read_text(encoding="utf-8")
        for number, line in enumerate(text.splitlines(), start=1):
            if line.strip():
                owners = [b for b in blocks if b.locator.start_line <= number <= b.locator.end_line]
                assert len(owners) == 1 and line in owners[0].source_text, f"{spec.path}:{number}"


@pytest.mark.parametrize("benchmark_id", TAU2_BENCHMARKS)
def test_every_description_in_the_agent_visible_tool_schemas_is_covered(benchmark_id, analyzed):
    ir = analyzed(benchmark_id)
    env = get_benchmark(benchmark_id).build_environment()
    tools = list(env.get_tools()) + (list(env.get_user_tools()) if env.user_tools is not None else [])
    corpus = [_normalize(e.source_text) for e in ir.elements if e.locator.kind == "python_literal"]
    descriptions = []
    for tool in tools:
        stack = [tool.openai_schema]
        while stack:
            node = stack.pop()
            if isinstance(node, dict):
                if isinstance(node.get("description"), str):
                    descriptions.append(node["description"])
                stack.extend(node.values())
            elif isinstance(node, list):
                stack.extend(node)
    assert len(descriptions) > 5
    for description in descriptions:
        # docstring_parser joins short and long descriptions with a blank line; each piece is a part
        for piece in re.split(r"\n\s*\n", description):
            wanted = _normalize(piece)
            assert any(wanted in text for text in corpus), f"not in IR: {wanted!r}"


def _module_constants(relative: str) -> dict[str, str]:
    """Module- and class-level string constants, read with `ast` (importing may need an LLM stack)."""
    tree = ast.parse((tau2_package_root() / relative).read_text())
    found: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            value = node.value
            if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "strip":
                value = value.func.value
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                found[node.targets[0].id] = value.value.strip()
    return found


PROMPTS = {
    "agent/llm_agent.py": [
        "AGENT_INSTRUCTION",
        "SYSTEM_PROMPT",
        "AGENT_GT_INSTRUCTION",
        "SYSTEM_PROMPT_GT",
        "AGENT_SOLO_INSTRUCTION",
        "SYSTEM_PROMPT_SOLO",
        "STOP_TOKEN",
    ],
    "user/user_simulator.py": ["SYSTEM_PROMPT"],
    "user/base.py": ["STOP", "TRANSFER", "OUT_OF_SCOPE"],
}


@pytest.mark.parametrize("benchmark_id", TAU2_BENCHMARKS)
def test_every_hard_coded_prompt_sent_to_a_model_is_an_element(benchmark_id, analyzed):
    ir = analyzed(benchmark_id)
    texts = {(e.artifact, e.source_text.strip()) for e in ir.elements}
    for module, names in PROMPTS.items():
        constants = _module_constants(module)
        for name in names:
            assert (module, constants[name]) in texts, f"{module}:{name}"
    from tau2.orchestrator.orchestrator import DEFAULT_FIRST_AGENT_MESSAGE

    assert ("orchestrator/orchestrator.py", DEFAULT_FIRST_AGENT_MESSAGE.content) in texts
    judge = [e for e in ir.elements if e.artifact == "evaluator/evaluator_nl_assertions.py"]
    source = (tau2_package_root() / "evaluator/evaluator_nl_assertions.py").read_text()
    assert len(judge) == 2 and all(
        e.source_text in source and e.translation_type.value == "translate_free" for e in judge
    )


def test_telecom_policy_wrappers_and_user_tool_outputs_are_inventoried(analyzed):
    ir = analyzed("tau2-telecom")
    wrappers = {e.source_text for e in ir.elements if e.artifact == "domains/telecom/environment.py"}
    assert {"<main_policy>\n", "\n</main_policy>\n", "<tech_support_policy>\n", "\n</tech_support_policy>"} <= wrappers
    outputs = [
        e
        for e in ir.elements
        if e.artifact == "domains/telecom/user_tools.py" and e.locator.role in ("tool_output", "constant")
    ]
    assert len(outputs) > 50
    assert any(e.source_text == "Excellent" and e.translation_type.value == "preserve" for e in outputs)
