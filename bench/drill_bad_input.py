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
from dataclasses import dataclass
from pathlib import Path
from unittest import mock

from rich.console import Console
from rich.table import Table
from typer.testing import CliRunner

ROOT = Path(__file__).resolve().parent.parent


@dataclass
class Case:
    name: str
    prepare: Callable[[Path], list[str]]  # returns CLI args; may create broken files under the project
    must_name: str  # a string the message must contain (file name or field)


def _tau2_data() -> Path:
    import tau2

    return Path(tau2.__file__).parent / "data"


def _copy_domain(project: Path, domain: str) -> Path:
    dest = project / "src" / "tau2" / "domains" / domain
    shutil.copytree(_tau2_data() / "tau2" / "domains" / domain, dest)
    return project / "src"


def _broken_source(domain: str, filename: str, mutate: Callable[[str], str], benchmark: str | None = None) -> Callable[[Path], list[str]]:
    def prepare(project: Path) -> list[str]:
        src = _copy_domain(project, domain)
        path = src / "tau2" / "domains" / domain / filename
        path.write_text(mutate(path.read_text(encoding="utf-8")), encoding="utf-8")
        return ["analyze", benchmark or f"tau2-{domain}", "--out", str(project / "ir.json"), "--source-dir", str(src)]

    return prepare


def _write(relative: str, content: bytes | str, args: list[str]) -> Callable[[Path], list[str]]:
    def prepare(project: Path) -> list[str]:
        path = project / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content if isinstance(content, bytes) else content.encode())
        return [a.replace("{p}", str(project)) for a in args]

    return prepare


def _read_only_out(project: Path) -> list[str]:
    # /sys is mounted read-only here; chmod alone does not stop root, which runs CI
    return ["adapt", "tau2-mock", "--lang", "en-XA", "--out", "/sys/babelflow-variant"]


CASES = [
    Case("malformed JSON task file", _broken_source("mock", "tasks.json", lambda t: t[: len(t) // 2]), "tasks.json"),
    Case("malformed JSON DB", _broken_source("retail", "db.json", lambda t: t.replace('"products"', '"products',1)), "db.json"),
    Case("malformed TOML DB", _broken_source("telecom", "db.toml", lambda t: t.replace("[[plans]]", "[[plans]", 1)), "db.toml"),
    Case("Markdown policy that is not UTF-8", lambda p: _latin1_policy(p), "policy.md"),
    Case("DB with a translated enum code", _broken_source("airline", "db.json", lambda t: t.replace('"cabin": "economy"', '"cabin": "económica"')), "cabin"),
    Case("task that does not fit tau2's Task model", _broken_source("mock", "tasks.json", lambda t: t.replace('"DB"', '"DATABASE"', 1)), "reward_basis"),
    Case("source dir that does not exist", lambda p: ["analyze", "tau2-mock", "--out", str(p / "ir.json"), "--source-dir", str(p / "nope")], "nope"),
    Case("unknown benchmark", lambda p: ["analyze", "tau2-shop", "--out", str(p / "ir.json")], "benchmark"),
    Case("invalid language tag", lambda p: ["adapt", "tau2-mock", "--lang", "english!"], "--lang"),
    Case("misspelled pseudo-locale", lambda p: ["adapt", "tau2-mock", "--lang", "en-AX"], "en-AX"),
    Case("unknown translator", lambda p: ["adapt", "tau2-mock", "--lang", "en-XA", "--translator", "babelfish"], "--translator"),
    Case("corrupted canonical map", _write("canonical_maps/tau2-mock/en-XA.json", b"{not json", ["adapt", "tau2-mock", "--lang", "en-XA"]), "en-XA.json"),
    Case("foreign canonical map", _write("canonical_maps/tau2-mock/en-XA.json", '{"benchmark": "tau2-retail", "language": "en-XA", "entries": []}', ["adapt", "tau2-mock", "--lang", "en-XA"]), "en-XA.json"),
    Case("corrupted review queue", _write(".babelflow/review/tau2-mock/en-XA/queue.json", b"\x00garbage", ["review", "tau2-mock", "--lang", "en-XA", "--decide", "F-1=confirm"]), "queue.json"),
    Case("decision for a finding that does not exist", _write(".babelflow/review/tau2-mock/en-XA/queue.json", '{"benchmark":"tau2-mock","language":"en-XA","findings":[],"validators":[]}', ["review", "tau2-mock", "--lang", "en-XA", "--decide", "F-404=confirm"]), "F-404"),
    Case("decision with bad syntax", _write(".babelflow/review/tau2-mock/en-XA/queue.json", '{"benchmark":"tau2-mock","language":"en-XA","findings":[],"validators":[]}', ["review", "tau2-mock", "--lang", "en-XA", "--decide", "F-1:yes"]), "--decide"),
    Case("profile override naming an unknown field", _write("profile.toml", 'benchmark = "tau2-mock"\nversion = 1\nextends = "tau2-common"\n[[overrides]]\nelement = "deadbeef"\ntype = "preserve"\nreason = "identifier"\n', ["analyze", "tau2-mock", "--out", "{p}/ir.json", "--profile", "{p}/profile.toml"]), "overrides.element"),
    Case("profile with a bad JSONPath", _write("profile.toml", 'benchmark = "tau2-mock"\nversion = 1\n[[rules]]\nartifact = "*"\nselect = "$[[["\ntype = "translate_free"\n', ["analyze", "tau2-mock", "--out", "{p}/ir.json", "--profile", "{p}/profile.toml"]), "select"),
    Case("profile with an unknown key", _write("profile.toml", 'benchmark = "tau2-mock"\nversion = 1\nsurprise = true\n', ["analyze", "tau2-mock", "--out", "{p}/ir.json", "--profile", "{p}/profile.toml"]), "surprise"),
    Case("profile file missing", lambda p: ["analyze", "tau2-mock", "--out", str(p / "ir.json"), "--profile", str(p / "none.toml")], "none.toml"),
    Case("output directory is a file", _write("variant-file", b"x", ["adapt", "tau2-mock", "--lang", "en-XA", "--out", "{p}/variant-file"]), "variant-file"),
    Case("read-only output directory", _read_only_out, "/sys"),
    Case("language pack with malformed TOML", _write("language_packs/en-XA.toml", "tag = 'en-XA", ["adapt", "tau2-mock", "--lang", "en-XA"]), "en-XA.toml"),
    Case("language pack not matching the schema", _write("language_packs/en-XA.toml", 'tag = "en-XA"\nversion = "1.0"\n', ["adapt", "tau2-mock", "--lang", "en-XA"]), "en-XA.toml"),
    Case("unknown export format", lambda p: ["export", "tau2-mock", "--lang", "en-XA", "--format", "xliff2", "--out", str(p / "x.xlf")], "--format"),
    Case("import of a file that is not XLIFF/PO", _write("notes.xlf", b"<html>nope", ["import", "tau2-mock", "{p}/notes.xlf", "--lang", "en-XA"]), "notes.xlf"),
    Case("validate a variant folder that does not exist", lambda p: ["validate", "tau2-mock", "--lang", "en-XA", "--variant", str(p / "missing-variant")], "missing-variant"),
    Case("unknown task split", lambda p: ["replay", "tau2-mock", "--split", "holdout"], "holdout"),
    Case("IR schema written over a directory", lambda p: ["ir-schema", "--out", str(p)], str(Path("x")).strip("x") or "directory"),
]


def _latin1_policy(project: Path) -> list[str]:
    src = _copy_domain(project, "retail")
    path = src / "tau2" / "domains" / "retail" / "policy.md"
    path.write_bytes(path.read_bytes() + "\nCafé ordering policy\n".encode("latin-1"))
    return ["analyze", "tau2-retail", "--out", str(project / "ir.json"), "--source-dir", str(src)]


def _tree_hash(folder: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            digest.update(str(path.relative_to(folder)).encode() + path.read_bytes())
    return digest.hexdigest()


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
            return intact and exc.exit_code == 2 and "good.json" in exc.render() and "fix:" in exc.render(), exc.render().splitlines()[0]


def main() -> None:
    from flows.cli import app

    runner = CliRunner()
    table = Table(title="bad-input drill")
    for column in ("case", "exit", "names file/field", "has fix", "good output intact", "message"):
        table.add_column(column, overflow="fold")
    passed = failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        good = base / "good-project"
        good.mkdir()
        env = {"BABELFLOW_PROJECT_ROOT": str(good), "COLUMNS": "300"}
        runner.invoke(app, ["adapt", "tau2-mock", "--lang", "en-XA"], env=env)
        reference = _tree_hash(good / "adapted")
        for index, case in enumerate(CASES):
            project = base / f"case{index}"
            shutil.copytree(good, project)
            args = case.prepare(project)
            before = _tree_hash(project / "adapted")
            cwd = os.getcwd()
            os.chdir(project)
            try:
                result = runner.invoke(app, args, env={"BABELFLOW_PROJECT_ROOT": str(project), "COLUMNS": "300"})
            finally:
                os.chdir(cwd)
                for path in project.rglob("*"):
                    if path.is_dir():
                        path.chmod(0o755)
            text = result.output
            ok = [result.exit_code == 2, case.must_name in text, "fix:" in text, _tree_hash(project / "adapted") == before == reference]
            passed, failed = passed + all(ok), failed + (not all(ok))
            first = next((line for line in text.splitlines() if "error" in line), text.strip().splitlines()[0] if text.strip() else repr(result.exception))
            table.add_row(case.name, str(result.exit_code), *("yes" if flag else "NO" for flag in ok[1:]), first[:120])
        ok, message = disk_full_case(base / "disk")
        passed, failed = passed + ok, failed + (not ok)
        table.add_row("disk fills mid-write (ENOSPC at fsync)", "2" if ok else "?", "yes" if ok else "NO", "yes" if ok else "NO", "yes" if ok else "NO", message[:120])
    Console(width=200).print(table)
    print(f"{passed} passed, {failed} failed")
    raise SystemExit(0 if failed == 0 else 1)


if __name__ == "__main__":
    main()
