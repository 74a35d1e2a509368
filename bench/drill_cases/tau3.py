"""Bad-input drill cases for τ³ (tau3-* benchmarks, issue 26): τ³ missing or half-installed, and
broken τ³ data. Each is a Check because the installed τ³ is chosen by an environment variable
(BABELFLOW_TAU3_ENV) the call must see; like a Case it must exit 2 with the file or field named,
the fix, no traceback, and nothing written under adapted/.

The data cases need τ³ installed (they reach its loader); without it they check the refusal
instead, which is what a user without τ³ gets."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

from bench.drill_cases import Check, CheckResult

ROOT = Path(__file__).resolve().parents[2]
INSTALL_COMMAND = "bash scripts/install.sh --tau3"
ENV_VARIABLE = "BABELFLOW_TAU3_ENV"


def _tree(folder: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(folder.rglob("*")) if folder.exists() else []:
        if path.is_file() and not path.is_symlink() and not (path.suffix == ".lock" and path.parent.name == "locks"):
            digest.update(str(path.relative_to(folder)).encode() + path.read_bytes())
    return digest.hexdigest()


def _refused(project: Path, args: list[str], must_name: str, tau3_env: Path | None = None) -> CheckResult:
    """Run the CLI in `project`: exit 2, `must_name` in the message, a fix, no traceback, adapted/ unchanged."""
    from typer.testing import CliRunner

    from flows.cli.app import app

    env = {"BABELFLOW_PROJECT_ROOT": str(project), "COLUMNS": "300"}
    if tau3_env is not None:
        env[ENV_VARIABLE] = str(tau3_env)
    before = _tree(project / "adapted")
    cwd = os.getcwd()
    os.chdir(project)
    try:
        result = CliRunner().invoke(app, args, env=env)
    finally:
        os.chdir(cwd)
    text = result.output
    checks = {
        "exit 2": result.exit_code == 2,
        f"names {must_name!r}": must_name in text,
        "has a fix": "fix:" in text,
        "no traceback": "Traceback" not in text,
        "nothing written": _tree(project / "adapted") == before,
    }
    failed = [label for label, ok in checks.items() if not ok]
    first = next((line.strip() for line in text.splitlines() if line.strip().startswith("error")), text.strip()[:120])
    return CheckResult(
        not failed,
        f"{first[:110]}" if not failed else f"failed {failed} (exit {result.exit_code}): {text.strip()[-300:]}",
    )


def _installed() -> Path | None:
    """The τ³ environment the project would use, when its install completed."""
    configured = os.environ.get(ENV_VARIABLE)
    env = Path(configured) if configured else ROOT / ".venv-tau3"
    return env if (env / "babelflow-tau3.json").is_file() and (env / "bin" / "python").exists() else None


def _not_installed(project: Path) -> CheckResult:
    """Every tau3-* command without τ³ is refused with the install command (nothing else changes)."""
    missing = project / "no-tau3-here"
    for args in (
        ["analyze", "tau3-banking_knowledge", "--out", str(project / "ir.json")],
        ["adapt", "tau3-retail", "--lang", "en-XA"],
        ["validate", "tau3-airline", "--lang", "es", "--variant", str(project / "adapted")],
    ):
        outcome = _refused(project, args, INSTALL_COMMAND, tau3_env=missing)
        if not outcome.passed:
            return CheckResult(False, f"{args[0]}: {outcome.message}")
    return outcome


def _fake_install(project: Path, record: str) -> Path:
    """A τ³ environment folder whose install record is `record` (its interpreter is never started)."""
    env = project / "tau3-env"
    (env / "bin").mkdir(parents=True)
    (env / "bin" / "python").write_text("#!/bin/sh\nexit 1\n")
    (env / "babelflow-tau3.json").write_text(record, encoding="utf-8")
    return env


def _data_folder_gone(project: Path) -> CheckResult:
    record = json.dumps({"data_dir": str(project / "moved-away" / "data"), "source": "drill", "tau2_version": "1.0.1"})
    return _refused(
        project,
        ["analyze", "tau3-retail", "--out", str(project / "ir.json")],
        "data folder",
        _fake_install(project, record),
    )


def _install_record_garbage(project: Path) -> CheckResult:
    return _refused(
        project,
        ["analyze", "tau3-mock", "--out", str(project / "ir.json")],
        "babelflow-tau3.json",
        _fake_install(project, "{half a record"),
    )


def _broken_source(
    domain: str, relative: str, mutate: Callable[[Path], None], must_name: str
) -> Callable[[Path], CheckResult]:
    """A copy of τ³'s data/ folder under the project, one file broken, analysed as --source-dir."""

    def run(project: Path) -> CheckResult:
        env = _installed()
        if env is None:
            refused = _refused(
                project, ["analyze", f"tau3-{domain}", "--out", str(project / "ir.json")], INSTALL_COMMAND
            )
            return CheckResult(refused.passed, f"τ³ not installed, refusal checked instead: {refused.message}")
        record = json.loads((env / "babelflow-tau3.json").read_text(encoding="utf-8"))
        source = Path(os.environ.get("TAU2_DATA_DIR") or record["data_dir"])
        data = project / "tau3-src" / "data"
        shutil.copytree(source / "tau2" / "domains" / domain, data / "tau2" / "domains" / domain)
        mutate(data / "tau2" / "domains" / domain / relative)
        return _refused(
            project,
            ["analyze", f"tau3-{domain}", "--out", str(project / "ir.json"), "--source-dir", str(data)],
            must_name,
        )

    return run


def _edit_json(change: Callable[[dict], None]) -> Callable[[Path], None]:
    def mutate(path: Path) -> None:
        value = json.loads(path.read_text(encoding="utf-8"))
        change(value)
        path.write_text(json.dumps(value, indent=1), encoding="utf-8")

    return mutate


def _truncate(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    path.write_text(text[: len(text) // 2], encoding="utf-8")


def _reward_basis(task: dict) -> None:
    task["evaluation_criteria"]["reward_basis"] = ["DATABASE"]


CHECKS: list[Check] = [
    Check(
        "tau3 benchmark without τ³ installed (analyze, adapt, validate)",
        _not_installed,
        covered_by="tests/source_benchmarks/tau3/test_tau3_refusal.py::test_the_cli_refuses_with_the_install_command",
    ),
    Check("τ³ installed but its data folder gone", _data_folder_gone),
    Check("τ³ install record that is not JSON", _install_record_garbage),
    Check(
        "τ³ mock task file cut in half (--source-dir)", _broken_source("mock", "tasks.json", _truncate, "tasks.json")
    ),
    Check(
        "τ³ banking task outside τ³'s Task model (--source-dir)",
        _broken_source("banking_knowledge", "tasks/task_001.json", _edit_json(_reward_basis), "task_001.json"),
    ),
    Check(
        "τ³ banking document without its content (--source-dir)",
        _broken_source(
            "banking_knowledge",
            "documents/doc_bank_accounts_bank_accounts_(general)_001.json",
            _edit_json(lambda doc: doc.pop("content")),
            "doc_bank_accounts_bank_accounts_(general)_001",
        ),
    ),
]
