"""The import direction: flows → analyzers/translators/validators → source_benchmarks → babelflow.

Every import statement counts, including those inside functions (a lazy import is still an
arrow). Stages never import one another; what two stages share lives in the core.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
STAGES = ("analyzers", "translators", "validators")
ALLOWED: dict[str, set[str]] = {
    "babelflow": {"babelflow"},
    "source_benchmarks": {"source_benchmarks", "babelflow"},
    **{stage: {stage, "source_benchmarks", "babelflow"} for stage in STAGES},
    "flows": {"flows", *STAGES, "source_benchmarks", "babelflow"},
}
PACKAGES = tuple(ALLOWED)


def imported_modules(path: Path) -> list[tuple[int, str]]:
    """(line, dotted module) of every absolute import in the file."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module))
    return found


def violations(package: str) -> list[str]:
    out = []
    for path in sorted((ROOT / package).rglob("*.py")):
        if "benchmark" in path.relative_to(ROOT / package).parts[:2] and package == "source_benchmarks":
            continue  # the fixture benchmark's own code is data, not ours
        for line, module in imported_modules(path):
            top = module.split(".")[0]
            if top in PACKAGES and top not in ALLOWED[package]:
                out.append(f"{path.relative_to(ROOT)}:{line} imports {module}")
    return out


@pytest.mark.parametrize("package", PACKAGES)
def test_imports_flow_one_way(package):
    assert violations(package) == []


def test_the_check_sees_lazy_imports(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("def f():\n    from validators.findings import Finding\n    import flows.cli\n")
    assert [name for _, name in imported_modules(module)] == ["validators.findings", "flows.cli"]


def test_flows_modules_do_not_import_each_other_in_a_cycle():
    """flows/cli.py registers the commands; command modules must not import it back."""
    graph: dict[str, set[str]] = {}
    for path in (ROOT / "flows").glob("*.py"):
        name = f"flows.{path.stem}"
        graph[name] = {m for _, m in imported_modules(path) if m.startswith("flows.") and m != name}
    cycles = sorted(
        f"{a} <-> {b}" for a, targets in graph.items() for b in targets if a in graph.get(b, set()) and a < b
    )
    assert cycles == []
