"""Reliability drill: bad input. Each case must exit 2 with a message naming the file or field and
the fix, and leave earlier good outputs byte-identical. Prints `N passed, N failed`.

Usage: python -m bench.drill_bad_input
"""

from __future__ import annotations

import errno
import hashlib
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from unittest import mock

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from typer.testing import CliRunner

from bench.drill_cases import Case, Check, area_modules
from bench.drill_cases import write_file as _write

ROOT = Path(__file__).resolve().parent.parent


def _tau2_data() -> Path:
    import tau2

    return Path(tau2.__file__).parent / "data"


def _copy_domain(project: Path, domain: str) -> Path:
    dest = project / "src" / "tau2" / "domains" / domain
    shutil.copytree(_tau2_data() / "tau2" / "domains" / domain, dest)
    return project / "src"


def _broken_source(
    domain: str, filename: str, mutate: Callable[[str], str], benchmark: str | None = None
) -> Callable[[Path], list[str]]:
    def prepare(project: Path) -> list[str]:
        src = _copy_domain(project, domain)
        path = src / "tau2" / "domains" / domain / filename
        path.write_text(mutate(path.read_text(encoding="utf-8")), encoding="utf-8")
        return ["analyze", benchmark or f"tau2-{domain}", "--out", str(project / "ir.json"), "--source-dir", str(src)]

    return prepare


def _read_only_out(project: Path) -> list[str]:
    # /sys is mounted read-only here; chmod alone does not stop root, which runs CI
    return ["adapt", "tau2-mock", "--lang", "en-XA", "--out", "/sys/babelflow-variant"]


CASES = [
    Case("malformed JSON task file", _broken_source("mock", "tasks.json", lambda t: t[: len(t) // 2]), "tasks.json"),
    Case(
        "malformed JSON DB",
        _broken_source("retail", "db.json", lambda t: t.replace('"products"', '"products', 1)),
        "db.json",
    ),
    Case(
        "malformed TOML DB",
        _broken_source("telecom", "db.toml", lambda t: t.replace("[[plans]]", "[[plans]", 1)),
        "db.toml",
    ),
    Case("Markdown policy that is not UTF-8", lambda p: _latin1_policy(p), "policy.md"),
    Case(
        "DB with a translated enum code",
        _broken_source("airline", "db.json", lambda t: t.replace('"cabin": "economy"', '"cabin": "económica"')),
        "cabin",
    ),
    Case(
        "task that does not fit tau2's Task model",
        _broken_source("mock", "tasks.json", lambda t: t.replace('"DB"', '"DATABASE"', 1)),
        "reward_basis",
    ),
    Case(
        "source dir that does not exist",
        lambda p: ["analyze", "tau2-mock", "--out", str(p / "ir.json"), "--source-dir", str(p / "nope")],
        "nope",
    ),
    Case("unknown benchmark", lambda p: ["analyze", "tau2-shop", "--out", str(p / "ir.json")], "benchmark"),
    Case("invalid language tag", lambda p: ["adapt", "tau2-mock", "--lang", "english!"], "--lang"),
    Case("misspelled pseudo-locale", lambda p: ["adapt", "tau2-mock", "--lang", "en-AX"], "en-AX"),
    Case(
        "unknown translator",
        lambda p: ["adapt", "tau2-mock", "--lang", "en-XA", "--translator", "babelfish"],
        "--translator",
    ),
    Case(
        "corrupted canonical map",
        _write("canonical_maps/tau2-mock/en-XA.json", b"{not json", ["adapt", "tau2-mock", "--lang", "en-XA"]),
        "en-XA.json",
    ),
    Case(
        "foreign canonical map",
        _write(
            "canonical_maps/tau2-mock/en-XA.json",
            '{"benchmark": "tau2-retail", "language": "en-XA", "entries": []}',
            ["adapt", "tau2-mock", "--lang", "en-XA"],
        ),
        "en-XA.json",
    ),
    Case(
        "corrupted review queue",
        _write(
            ".babelflow/review/tau2-mock/en-XA/queue.json",
            b"\x00garbage",
            ["review", "tau2-mock", "--lang", "en-XA", "--decide", "F-1=confirm"],
        ),
        "queue.json",
    ),
    Case(
        "decision for a finding that does not exist",
        _write(
            ".babelflow/review/tau2-mock/en-XA/queue.json",
            '{"benchmark":"tau2-mock","language":"en-XA","findings":[],"validators":[]}',
            ["review", "tau2-mock", "--lang", "en-XA", "--decide", "F-404=confirm"],
        ),
        "F-404",
    ),
    Case(
        "decision with bad syntax",
        _write(
            ".babelflow/review/tau2-mock/en-XA/queue.json",
            '{"benchmark":"tau2-mock","language":"en-XA","findings":[],"validators":[]}',
            ["review", "tau2-mock", "--lang", "en-XA", "--decide", "F-1:yes"],
        ),
        "--decide",
    ),
    Case(
        "profile override naming an unknown field",
        _write(
            "profile.toml",
            'benchmark = "tau2-mock"\nversion = 1\nextends = "tau2-common"\n[[overrides]]\nelement = '
            '"deadbeef"\ntype = "preserve"\nreason = "identifier"\n',
            ["analyze", "tau2-mock", "--out", "{p}/ir.json", "--profile", "{p}/profile.toml"],
        ),
        "overrides.element",
    ),
    Case(
        "profile with a bad JSONPath",
        _write(
            "profile.toml",
            'benchmark = "tau2-mock"\nversion = 1\n[[rules]]\nartifact = "*"\nselect = "$[[["\ntype = '
            '"translate_free"\n',
            ["analyze", "tau2-mock", "--out", "{p}/ir.json", "--profile", "{p}/profile.toml"],
        ),
        "select",
    ),
    Case(
        "profile with an unknown key",
        _write(
            "profile.toml",
            'benchmark = "tau2-mock"\nversion = 1\nsurprise = true\n',
            ["analyze", "tau2-mock", "--out", "{p}/ir.json", "--profile", "{p}/profile.toml"],
        ),
        "surprise",
    ),
    Case(
        "profile file missing",
        lambda p: ["analyze", "tau2-mock", "--out", str(p / "ir.json"), "--profile", str(p / "none.toml")],
        "none.toml",
    ),
    Case(
        "output directory is a file",
        _write("variant-file", b"x", ["adapt", "tau2-mock", "--lang", "en-XA", "--out", "{p}/variant-file"]),
        "variant-file",
    ),
    Case("read-only output directory", _read_only_out, "/sys"),
    Case(
        "language pack with malformed TOML",
        _write("language_packs/en-XA.toml", "tag = 'en-XA", ["adapt", "tau2-mock", "--lang", "en-XA"]),
        "en-XA.toml",
    ),
    Case(
        "language pack not matching the schema",
        _write(
            "language_packs/en-XA.toml", 'tag = "en-XA"\nversion = "1.0"\n', ["adapt", "tau2-mock", "--lang", "en-XA"]
        ),
        "en-XA.toml",
    ),
    Case(
        "unknown export format",
        lambda p: ["export", "tau2-mock", "--lang", "en-XA", "--format", "xliff2", "--out", str(p / "x.xlf")],
        "--format",
    ),
    Case(
        "import of a file that is not XLIFF/PO",
        _write("notes.xlf", b"<html>nope", ["import", "tau2-mock", "{p}/notes.xlf", "--lang", "en-XA"]),
        "notes.xlf",
    ),
    Case(
        "validate a variant folder that does not exist",
        lambda p: ["validate", "tau2-mock", "--lang", "en-XA", "--variant", str(p / "missing-variant")],
        "missing-variant",
    ),
    Case("unknown task split", lambda p: ["replay", "tau2-mock", "--split", "holdout"], "holdout"),
    Case(
        "IR schema written over a directory",
        lambda p: ["ir-schema", "--out", str(p)],
        str(Path("x")).strip("x") or "directory",
    ),
]
AREAS = area_modules()  # issue 28's security and ownership cases, one module per area
ALL_CASES: list[Case] = CASES + [case for area in AREAS for case in getattr(area, "CASES", [])]
ALL_CHECKS: list[Check] = [check for area in AREAS for check in getattr(area, "CHECKS", [])]


def _latin1_policy(project: Path) -> list[str]:
    src = _copy_domain(project, "retail")
    path = src / "tau2" / "domains" / "retail" / "policy.md"
    path.write_bytes(path.read_bytes() + "\nCafé ordering policy\n".encode("latin-1"))
    return ["analyze", "tau2-retail", "--out", str(project / "ir.json"), "--source-dir", str(src)]


def _tree_hash(folder: Path) -> str:
    digest = hashlib.sha256()
    if folder.is_file():
        return hashlib.sha256(folder.read_bytes()).hexdigest()
    for path in sorted(folder.rglob("*")):
        # a run's lock files are not output: any refused run may create (and leave empty) its own
        if path.is_file() and not path.is_symlink() and not (path.suffix == ".lock" and path.parent.name == "locks"):
            digest.update(str(path.relative_to(folder)).encode() + path.read_bytes())
    return digest.hexdigest()


def _watched(project: Path, case: Case) -> list[str]:
    return [_tree_hash(project / relative) for relative in case.watch]


def run_case(case: Case, project: Path, runner: CliRunner | None = None) -> tuple[list[bool], int, str]:
    """Run one CLI case in `project`: ([exit 2, names it, has a fix, watched folders unchanged], exit, output)."""
    from flows.cli.app import app

    runner = runner or CliRunner()
    args = case.prepare(project)
    before = _watched(project, case)
    cwd = os.getcwd()
    os.chdir(project)
    try:
        result = runner.invoke(app, args, env={"BABELFLOW_PROJECT_ROOT": str(project), "COLUMNS": "300"})
    finally:
        os.chdir(cwd)
        for path in project.rglob("*"):
            if path.is_dir() and not path.is_symlink():
                path.chmod(0o755)
    text = result.output
    ok = [
        result.exit_code == 2,
        case.must_name in text,
        "fix:" in text,
        "Traceback" not in text,
        _watched(project, case) == before,
    ]
    return ok, result.exit_code, text


def good_project(base: Path) -> Path:
    """A project holding a good tau2-mock en-XA variant: every case starts from a copy of it."""
    from flows.cli.app import app

    good = base / "good-project"
    good.mkdir(exist_ok=True)  # a test may have seeded its analysis cache
    result = CliRunner().invoke(
        app, ["adapt", "tau2-mock", "--lang", "en-XA"], env={"BABELFLOW_PROJECT_ROOT": str(good), "COLUMNS": "300"}
    )
    if result.exit_code != 0:
        raise SystemExit(f"the drill's good project could not be built:\n{result.output}")
    return good


def disk_full_case(project: Path) -> tuple[bool, str]:
    """A write that fails mid-way (ENOSPC at fsync) leaves the earlier file intact, exit 2 message."""
    from babelflow.atomic_io import write_bytes_atomic
    from babelflow.errors import BabelflowError

    target = project / "adapted" / "good.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(b'{"good": true}')
    with mock.patch("babelflow.atomic_io.os.fsync", side_effect=OSError(errno.ENOSPC, "No space left on device")):
        try:
            write_bytes_atomic(target, b'{"half": ')
            return False, "no error raised"
        except BabelflowError as exc:
            intact = target.read_bytes() == b'{"good": true}' and not list(target.parent.glob(".*.tmp"))
            return (
                intact and exc.exit_code == 2 and "good.json" in exc.render() and "fix:" in exc.render(),
                exc.render().splitlines()[0],
            )


def main() -> None:
    import argparse

    parser = argparse.ArgumentParser(
        description="Reliability drill: bad input and security cases (exit 2, error/fix, nothing written)."
    )
    parser.add_argument("--only", default="", help="run only the cases whose name contains this text")
    args = parser.parse_args()
    runner = CliRunner()
    table = Table(title="bad-input drill")
    for column in ("case", "exit", "names file/field", "has fix", "no traceback", "nothing written", "message"):
        table.add_column(column, overflow="fold")
    passed = failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        good = good_project(base)
        reference = _tree_hash(good / "adapted")
        for index, case in enumerate(ALL_CASES):
            if args.only not in case.name:
                continue
            project = base / f"case{index}"
            shutil.copytree(good, project, symlinks=True)
            ok, code, text = run_case(case, project, runner)
            if "adapted" in case.watch:  # and equal to the good project's variant, not only to itself before
                ok[-1] = ok[-1] and _tree_hash(project / "adapted") == reference
            passed, failed = passed + all(ok), failed + (not all(ok))
            first = next(
                (line for line in text.splitlines() if "error" in line.lower()),
                text.strip().splitlines()[0] if text.strip() else "",
            )
            table.add_row(
                escape(case.name), str(code), *("yes" if flag else "NO" for flag in ok[1:]), escape(first[:120])
            )
        for index, check in enumerate(ALL_CHECKS):
            if args.only not in check.name:
                continue
            project = base / f"check{index}"
            shutil.copytree(good, project, symlinks=True)
            try:
                outcome = check.run(project)
                ok_check, message = outcome.passed, outcome.message
            except Exception as exc:  # a check that crashes has failed; the drill goes on
                ok_check, message = False, f"crashed: {type(exc).__name__}: {exc}"
            passed, failed = passed + ok_check, failed + (not ok_check)
            flag = "yes" if ok_check else "NO"
            table.add_row(escape(check.name), "-", flag, flag, flag, flag, escape(message[:120]))
        if args.only in "disk fills mid-write (ENOSPC at fsync)":
            disk_ok, message = disk_full_case(base / "disk")
            passed, failed = passed + disk_ok, failed + (not disk_ok)
            flag = "yes" if disk_ok else "NO"
            table.add_row(
                "disk fills mid-write (ENOSPC at fsync)", "2" if disk_ok else "?", flag, flag, flag, flag, message[:120]
            )
    Console(width=220).print(table)
    print(f"{passed} passed, {failed} failed")
    raise SystemExit(0 if failed == 0 else 1)


if __name__ == "__main__":
    main()
