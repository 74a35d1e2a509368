"""Engines reach benchmark families through the registry only (issue 26).

Outside a family's own package (`source_benchmarks/<family>/`), no module of the project imports
that package, and no code branches on a family's id prefix (`startswith("tau2-")`). Families are
the subpackages of source_benchmarks that declare a `family.py`; the other subpackages with code
(`tau_common/`: what τ² and τ³ share) are the families' shared code: families may import them,
nothing else does, and they import no family.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.test_architecture import PACKAGES, ROOT, imported_modules

FAMILY_PACKAGES = sorted(p.parent.name for p in (ROOT / "source_benchmarks").glob("*/family.py"))
SHARED_PACKAGES = sorted(
    p.parent.name for p in (ROOT / "source_benchmarks").glob("*/__init__.py") if p.parent.name not in FAMILY_PACKAGES
)
PREFIX_METHODS = {"startswith", "removeprefix", "endswith", "partition"}


def _prefixes() -> set[str]:
    """Every family's id prefixes (`tau2-`, `tau2-pkg:`, `agentdojo-` …), from the registry's own ids."""
    from source_benchmarks import families

    found = set()
    for family in families().values():
        for benchmark_id in family.benchmark_ids():
            found.add(benchmark_id.split("-")[0] + "-")
    return found | {"tau2-pkg:"}


def _owner(path: Path) -> str | None:
    parts = path.relative_to(ROOT).parts
    inside = parts[0] == "source_benchmarks" and len(parts) > 2
    return parts[1] if inside and parts[1] in FAMILY_PACKAGES + SHARED_PACKAGES else None


def _project_modules() -> list[Path]:
    return [
        p
        for package in PACKAGES
        for p in sorted((ROOT / package).rglob("*.py"))
        if "benchmark" not in p.relative_to(ROOT).parts[2:3]
    ]


def _shown(path: Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else path.name


def family_import_violations(paths: list[Path]) -> list[str]:
    out = []
    for path in paths:
        owner = _owner(path) if path.is_relative_to(ROOT) else None
        for line, module in imported_modules(path):
            parts = module.split(".")
            if parts[0] != "source_benchmarks" or len(parts) < 2 or parts[1] == owner:
                continue
            shared_by_a_family = parts[1] in SHARED_PACKAGES and owner in FAMILY_PACKAGES
            if parts[1] in FAMILY_PACKAGES or (parts[1] in SHARED_PACKAGES and not shared_by_a_family):
                out.append(f"{_shown(path)}:{line} imports {module}")
    return out


def prefix_branch_violations(paths: list[Path], prefixes: set[str]) -> list[str]:
    out = []
    for path in paths:
        if path.is_relative_to(ROOT) and _owner(path) is not None:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in PREFIX_METHODS:
                for arg in node.args:
                    values = [
                        e.value
                        for e in (arg.elts if isinstance(arg, ast.Tuple) else [arg])
                        if isinstance(e, ast.Constant)
                    ]
                    hits = [v for v in values if isinstance(v, str) and v in prefixes]
                    if hits:
                        out.append(f"{_shown(path)}:{node.lineno} {node.func.attr}({hits[0]!r})")
    return out


def test_the_families_are_found():
    assert {"tau2", "tau3", "agentdojo", "fixture"} <= set(FAMILY_PACKAGES)
    assert SHARED_PACKAGES == ["tau_common"]


def test_no_module_outside_a_family_imports_it():
    assert family_import_violations(_project_modules()) == []


def test_no_id_prefix_branches_outside_a_family():
    assert prefix_branch_violations(_project_modules(), _prefixes()) == []


@pytest.mark.parametrize(
    "code, expected",
    [
        ('if benchmark.startswith("tau2-"):\n    pass\n', 1),
        ('name = bench.id.removeprefix("agentdojo-")\n', 1),
        ('ok = x.startswith(("a", "tau2-"))\n', 1),
        ('ok = text.startswith("tau")\n', 0),
    ],
)
def test_the_prefix_check_can_fail(tmp_path, code, expected):
    """The check sees the branch shapes it bans (and not a word that merely begins the same)."""
    module = tmp_path / "probe.py"
    module.write_text(code, encoding="utf-8")
    assert len(prefix_branch_violations([module], {"tau2-", "agentdojo-"})) == expected


def test_the_import_check_can_fail(tmp_path):
    module = tmp_path / "probe.py"
    module.write_text(
        "from source_benchmarks.tau2.family import FAMILY\n"
        "def f():\n    from source_benchmarks.tau_common.adapter import Tau2Benchmark\n",
        encoding="utf-8",
    )
    assert family_import_violations([module]) == [
        "probe.py:1 imports source_benchmarks.tau2.family",
        "probe.py:3 imports source_benchmarks.tau_common.adapter",
    ]


def test_a_family_may_import_the_shared_code_but_no_other_family():
    tau3 = ROOT / "source_benchmarks" / "tau3" / "family.py"
    shared = ROOT / "source_benchmarks" / "tau_common" / "adapter.py"
    assert family_import_violations([tau3, shared]) == []
    assert any("tau_common" in module for _, module in imported_modules(tau3)) or any(
        "tau_common" in module for path in tau3.parent.glob("*.py") for _, module in imported_modules(path)
    )
