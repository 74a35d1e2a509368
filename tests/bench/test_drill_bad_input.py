"""Every case of the bad-input drill (bench/drill_bad_input.py, the security and ownership cases
of bench/drill_cases/) as a test: exit 2, the file or field named, a fix, no traceback, nothing
written under the watched folders; checks that are not one CLI call pass."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bench.drill_bad_input import ALL_CASES, ALL_CHECKS, disk_full_case, good_project, run_case
from bench.drill_cases import Case, Check


@pytest.fixture(scope="module")
def good(tmp_path_factory, seed_analysis_cache) -> Path:
    base = tmp_path_factory.mktemp("drill")
    seed_analysis_cache(base / "good-project", "tau2-mock")
    return good_project(base)


def _copy(good: Path, tmp_path: Path) -> Path:
    project = tmp_path / "project"
    shutil.copytree(good, project, symlinks=True)
    return project


@pytest.mark.parametrize("case", ALL_CASES, ids=lambda case: case.name)
def test_bad_input_case(case: Case, good: Path, tmp_path: Path) -> None:
    ok, code, text = run_case(case, _copy(good, tmp_path))
    labels = ["exit 2", f"names {case.must_name!r}", "has a fix", "no traceback", f"nothing written under {case.watch}"]
    failed = [label for label, flag in zip(labels, ok, strict=True) if not flag]
    assert not failed, f"{case.name}: {failed} (exit {code})\n{text}"


def _param(check: Check):
    # the server area's checks boot real Prefect servers (~18 s a boot), τ³'s start its worker and load its
    # data (~20 s): slow by the marker's definition
    slow = check.run.__module__.endswith((".server", ".tau3"))
    return pytest.param(check, id=check.name, marks=[pytest.mark.slow] if slow else [])


@pytest.mark.parametrize("check", [_param(c) for c in ALL_CHECKS if not c.covered_by])
def test_security_check(check: Check, good: Path, tmp_path: Path) -> None:
    outcome = check.run(_copy(good, tmp_path))
    assert outcome.passed, f"{check.name}: {outcome.message}"


def test_checks_left_to_a_faster_test_name_one_that_exists() -> None:
    root = Path(__file__).resolve().parents[2]
    for check in (c for c in ALL_CHECKS if c.covered_by):
        file, _, name = check.covered_by.partition("::")
        assert f"def {name}(" in (root / file).read_text(encoding="utf-8"), f"{check.name}: no test {check.covered_by}"


def test_disk_full_mid_write(tmp_path: Path) -> None:
    ok, message = disk_full_case(tmp_path)
    assert ok, message
