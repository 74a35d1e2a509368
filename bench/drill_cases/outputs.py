"""Bad-input drill cases: outputs that own only what they write (issue 28, items 3, 4 and 11's
`--out` on a symlink loop). `--out` is refused when it is or contains a source or a folder that is
not babelflow's; the output folder is locked for the whole run; the writer deletes only its own
temp files, refuses non-regular targets and keeps modes."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import orjson

from bench.drill_cases import Case, Check, CheckResult

ADAPT = ["adapt", "tau2-mock", "--lang", "en-XA"]
EXPORT = ["export", "tau2-mock", "--lang", "en-XA", "--format", "xliff"]
CLI_ENV = {
    "COLUMNS": "300",
    "DO_NOT_TRACK": "1",
    "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
    "LITELLM_LOCAL_MODEL_COST_MAP": "True",
}


def _tau2_root() -> Path:
    import tau2

    return Path(tau2.__file__).resolve().parent


def _mock_source() -> Path:
    return _tau2_root() / "data" / "tau2" / "domains" / "mock"


def _out_is_tau2_package(project: Path) -> list[str]:
    return [*ADAPT, "--out", str(_tau2_root())]


def _out_is_parent_of_source_dir(project: Path) -> list[str]:
    source = project / "work" / "src"
    shutil.copytree(_mock_source(), source / "tau2" / "domains" / "mock")
    return [*ADAPT, "--source-dir", str(source), "--out", str(project / "work")]


def _out_is_foreign_folder(project: Path) -> list[str]:
    mine = project / "mine"
    (mine / "data").mkdir(parents=True)
    (mine / "notes.txt").write_text("my notes\n")
    (mine / "data" / "db.json").write_text('{"mine": true}\n')
    return [*ADAPT, "--out", str(mine)]


def _out_is_other_benchmark_variant(project: Path) -> list[str]:
    other = project / "other"
    other.mkdir()
    manifest = orjson.loads((project / "adapted" / "tau2-mock" / "en-XA" / "babelflow_manifest.json").read_bytes())
    manifest["benchmark"] = "fixture-library"
    (other / "babelflow_manifest.json").write_bytes(orjson.dumps(manifest))
    return ["adapt", "tau2-mock", "--lang", "ar-XB", "--out", str(other)]


def _out_is_symlink_loop(project: Path) -> list[str]:
    os.symlink(project / "loop-b", project / "loop-a")
    os.symlink(project / "loop-a", project / "loop-b")
    return [*ADAPT, "--out", str(project / "loop-a")]


def _export_into_tau2_package(project: Path) -> list[str]:
    # a new name: a regression adds a stray file rather than overwriting tau2's data
    return [*EXPORT, "--out", str(_tau2_root() / "data" / "babelflow-drill-export.xlf")]


def _export_onto_symlink(project: Path) -> list[str]:
    (project / "keep").mkdir()
    (project / "keep" / "target.xlf").write_text("not babelflow's\n")
    os.symlink(project / "keep" / "target.xlf", project / "link.xlf")
    return [*EXPORT, "--out", str(project / "link.xlf")]


CASES: list[Case] = [
    Case("--out is the installed tau2 package", _out_is_tau2_package, "tau2", watch=("adapted", str(_mock_source()))),
    Case("--out is the parent of --source-dir", _out_is_parent_of_source_dir, "src", watch=("adapted", "work")),
    Case(
        "--out is a non-empty folder that is not a variant", _out_is_foreign_folder, "mine", watch=("adapted", "mine")
    ),
    Case(
        "--out holds another benchmark's variant",
        _out_is_other_benchmark_variant,
        "fixture-library",
        watch=("adapted", "other"),
    ),
    Case("--out is a symlink loop", _out_is_symlink_loop, "loop-a"),
    Case("export --out onto a symlink", _export_onto_symlink, "link.xlf", watch=("adapted", "keep")),
    Case(
        "export --out into the installed tau2 package",
        _export_into_tau2_package,
        "babelflow-drill-export.xlf",
        watch=("adapted", str(_tau2_root() / "data")),
    ),
]


# ---- checks -------------------------------------------------------------------------------------


def _cli(project: Path, args: list[str]):
    from typer.testing import CliRunner

    from flows.cli.app import app

    cwd = os.getcwd()
    os.chdir(project)
    try:
        return CliRunner().invoke(app, args, env={**CLI_ENV, "BABELFLOW_PROJECT_ROOT": str(project)})
    finally:
        os.chdir(cwd)


def _refused(result, *names: str) -> str:
    """'' when the result is a clean exit-2 refusal naming every one of `names`, else what is wrong."""
    text = result.output
    problems = [f"exit {result.exit_code}"] if result.exit_code != 2 else []
    problems += [f"{name!r} not named" for name in names if name not in text]
    problems += ["no fix"] if "fix:" not in text else []
    problems += ["traceback"] if "Traceback" in text else []
    return "; ".join(problems)


def _first_error(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if "error" in line), text.strip()[:100])


def _export_to_dev_null(project: Path) -> CheckResult:
    """`export --out /dev/null` (the drill runs as root, like CI): refused, /dev/null stays a device."""
    before = os.stat("/dev/null")
    result = _cli(project, [*EXPORT, "--out", "/dev/null"])
    after = os.lstat("/dev/null")
    if not stat.S_ISCHR(after.st_mode):  # repair the machine before reporting the failure
        os.unlink("/dev/null")
        os.mknod("/dev/null", 0o666 | stat.S_IFCHR, before.st_rdev)
        return CheckResult(False, "/dev/null was replaced by a regular file (restored)")
    problem = _refused(result, "/dev/null")
    return CheckResult(not problem, problem or _first_error(result.output))


def _export_to_fifo(project: Path) -> CheckResult:
    fifo = project / "pipe.xlf"
    os.mkfifo(fifo)
    result = _cli(project, [*EXPORT, "--out", str(fifo)])
    if not stat.S_ISFIFO(os.lstat(fifo).st_mode):
        return CheckResult(False, "the FIFO was replaced")
    problem = _refused(result, "pipe.xlf")
    return CheckResult(not problem, problem or _first_error(result.output))


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def _user_temp_files_survive(project: Path) -> CheckResult:
    """A rebuild into an existing variant deletes a killed writer's temp file, never a user's."""
    variant = project / "adapted" / "tau2-mock" / "en-XA"
    data = variant / "data" / "tau2" / "domains" / "mock"
    users = {
        variant / "notes.tmp": b"mine",
        variant / ".x.tmp": b"mine too",
        data / ".db.json.ABC123.tmp": b"mkstemp-like, mine",
    }
    for path, content in users.items():
        path.write_bytes(content)
    stale = data / f".db.json.babelflow-{_dead_pid()}-0123abcd.tmp"
    stale.write_bytes(b"half")
    result = _cli(project, ADAPT)
    if result.exit_code != 0:
        return CheckResult(False, f"adapt exit {result.exit_code}: {_first_error(result.output)}")
    lost = [p.name for p, content in users.items() if not p.exists() or p.read_bytes() != content]
    if lost:
        return CheckResult(False, f"user files deleted or changed: {lost}")
    if stale.exists():
        return CheckResult(False, f"a dead writer's temp file was left: {stale.name}")
    return CheckResult(True, f"{len(users)} user .tmp files kept, the dead writer's {stale.name} removed")


_HOLDER = textwrap.dedent(
    """
    import pathlib, sys, time
    import flows.pipeline.adapt as adapt
    run = adapt._adapt_locked
    def paused(*args, **kwargs):  # the run holds its locks here until the drill says go
        pathlib.Path(sys.argv[1]).write_text("locked")
        while not pathlib.Path(sys.argv[2]).exists():
            time.sleep(0.05)
        return run(*args, **kwargs)
    adapt._adapt_locked = paused
    from flows.cli.app import app
    app(["adapt", "tau2-mock", "--lang", "en-XA", "--out", sys.argv[3]])
    """
)


def _two_languages_one_out(project: Path) -> CheckResult:
    """en-XA and ar-XB into one --out at once: the second is refused (exit 2, folder and holder
    named) and the first finishes a variant of its own language only."""
    shared = project / "shared"
    locked, go = project / "a.locked", project / "a.go"
    env = {**os.environ, **CLI_ENV, "BABELFLOW_PROJECT_ROOT": str(project)}
    first = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, str(locked), str(go), str(shared)],
        cwd=project,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 120
        while not locked.exists() and first.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        if not locked.exists():
            return CheckResult(False, f"the first run never took its locks: {first.communicate()[0].decode()[-300:]}")
        second = _cli(project, ["adapt", "tau2-mock", "--lang", "ar-XB", "--out", str(shared)])
        go.write_text("go")
        output = first.communicate(timeout=300)[0].decode()
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()
    problem = _refused(second, "shared", "tau2-mock en-XA")
    if problem:
        return CheckResult(False, f"second run: {problem}: {second.output[-300:]}")
    if first.returncode != 0:
        return CheckResult(False, f"first run exit {first.returncode}: {output[-300:]}")
    manifest = orjson.loads((shared / "babelflow_manifest.json").read_bytes())
    overlay = orjson.loads((shared / "babelflow_code_overlay.json").read_bytes())
    if (manifest["language"], overlay["language"]) != ("en-XA", "en-XA"):
        return CheckResult(False, f"mixed variant: manifest {manifest['language']}, overlay {overlay['language']}")
    return CheckResult(True, f"second refused ({_first_error(second.output)[:60]}), first finished en-XA only")


def _modes(project: Path) -> CheckResult:
    """A rewrite keeps the mode (0644 stays 0644, 0640 stays 0640); new files get 0o666 & ~umask
    (mode bits, not access failures: the drill runs as root, which ignores permissions)."""
    from babelflow.atomic_io import write_bytes_atomic

    folder = project / "modes"
    folder.mkdir()
    problems = []
    for mode in (0o644, 0o640, 0o600):
        target = folder / f"kept-{mode:o}.json"
        target.write_bytes(b"{}")
        target.chmod(mode)
        write_bytes_atomic(target, b'{"new": 1}')
        got = stat.S_IMODE(target.stat().st_mode)
        problems += [f"{target.name} became {got:o}"] if got != mode else []
    for mask in (0o022, 0o027, 0o077):
        previous = os.umask(mask)
        try:
            target = folder / f"new-{mask:03o}.json"
            write_bytes_atomic(target, b"{}")
        finally:
            os.umask(previous)
        got = stat.S_IMODE(target.stat().st_mode)
        problems += [f"{target.name} is {got:o}, not {0o666 & ~mask:o}"] if got != 0o666 & ~mask else []
    kept = "0644/0640/0600 kept on rewrite; new files 644/640/600 under umask 022/027/077"
    return CheckResult(not problems, "; ".join(problems) or kept)


CHECKS: list[Check] = [
    Check("export --out /dev/null is refused, /dev/null stays a device", _export_to_dev_null),
    Check("export --out a FIFO is refused, the FIFO stays", _export_to_fifo),
    Check("a user's notes.tmp/.x.tmp under --out survive a rebuild", _user_temp_files_survive),
    Check("two languages into one --out at once: the second is refused", _two_languages_one_out),
    Check("writer keeps modes on rewrite, 0o666 & ~umask for new files", _modes),
]
