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
    module.write_text("def f():\n    from validators.findings import Finding\n    import flows.cli.app\n")
    assert [name for _, name in imported_modules(module)] == ["validators.findings", "flows.cli.app"]


# flows/ in wings, one way: cli → pipeline → {review, evaluation} → server → the base modules at
# flows/ top level (run setup and components every wing shares); a wing may import itself.
WINGS: dict[str, set[str]] = {
    "cli": {"cli", "pipeline", "review", "evaluation", "server", ""},
    "pipeline": {"pipeline", "review", "evaluation", "server", ""},
    "review": {"review", "server", ""},
    "evaluation": {"evaluation", ""},
    "server": {"server", ""},
    "": {""},
}


def wing_of(module: str) -> str:
    """'flows.review.store' -> 'review'; a base module 'flows.run_setup' -> ''."""
    parts = module.split(".")
    return parts[1] if len(parts) > 2 and parts[1] in WINGS else ""


def wing_violations() -> list[str]:
    out = []
    for path in sorted((ROOT / "flows").rglob("*.py")):
        here = wing_of(".".join(path.relative_to(ROOT).with_suffix("").parts))
        for line, module in imported_modules(path):
            if module.startswith("flows.") and wing_of(module) not in WINGS[here]:
                out.append(f"{path.relative_to(ROOT)}:{line} ({here or 'base'}) imports {module}")
    return out


def test_flows_wings_import_one_way():
    assert wing_violations() == []


def test_the_wing_check_sees_a_wrong_arrow(tmp_path, monkeypatch):
    assert wing_of("flows.review.store") == "review" and wing_of("flows.run_setup") == ""
    assert "review" not in WINGS["server"] and "cli" not in WINGS["pipeline"]


def test_every_flows_module_is_in_a_wing_or_the_base():
    base = sorted(p.stem for p in (ROOT / "flows").glob("*.py") if p.stem != "__init__")
    wings = sorted(p.name for p in (ROOT / "flows").iterdir() if p.is_dir() and (p / "__init__.py").exists())
    assert wings == sorted(w for w in WINGS if w)
    assert len(base) <= 6, f"flows/ top level holds only what every wing shares: {base}"
