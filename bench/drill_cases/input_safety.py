"""The bad-input drill's cases for issue 28's items 8, 9, 10 and 12 (glossary half): inputs that
cannot hang or run code. A note built to make the placeholder patterns backtrack, pickles planted
where babelflow once kept its caches, a `--source-dir` file linked to /etc/passwd, glossaries over
the limit."""

from __future__ import annotations

import os
import pickle
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from babelflow.glossary import MAX_GLOSSARY_TERMS
from bench.drill_cases import CheckResult

ROOT = Path(__file__).resolve().parents[2]
MOCK = Path("tau2") / "domains" / "mock"


def _mock_source(project: Path, name: str = "src") -> Path:
    """A copy of tau2's mock data folder under the project, laid out for --source-dir."""
    import tau2

    source = project / name
    shutil.copytree(Path(tau2.__file__).parent / "data" / MOCK, source / MOCK)
    return source


def _cli(project: Path, *args: str, timeout: float = 600) -> tuple[subprocess.CompletedProcess[str] | None, float]:
    """One `babelflow` call in its own process (a hang is killed at `timeout`): (result or None, seconds)."""
    env = {**os.environ, "BABELFLOW_PROJECT_ROOT": str(project), "COLUMNS": "300", "PYTHONPATH": str(ROOT)}
    started = time.perf_counter()
    try:
        done = subprocess.run(
            [sys.executable, "-m", "flows.cli.app", *args],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return None, time.perf_counter() - started
    return done, time.perf_counter() - started


# ---- item 8: a note of "<x" and 10,000 spaces ----------------------------------------------------
def unclosed_tag_note(project: Path) -> CheckResult:
    """Adapt from a source whose first task note is "<x" + 10,000 spaces (cubic before: ~20 min)
    takes about what the same source with a short note takes (both edited, so both analyses start
    cold)."""
    import orjson

    clean, noted = _mock_source(project, "src-clean"), _mock_source(project, "src-noted")
    for source, note in ((clean, "See <x> for details"), (noted, "See <x" + " " * 10_000 + "for details")):
        tasks = source / MOCK / "tasks.json"
        data = orjson.loads(tasks.read_bytes())
        data[0]["description"]["notes"] = note
        tasks.write_bytes(orjson.dumps(data))
    reference, clean_seconds = _cli(
        project, "adapt", "tau2-mock", "--lang", "en-XA", "--source-dir", str(clean), "--out", str(project / "v-clean")
    )
    if reference is None or reference.returncode != 0:
        return CheckResult(False, f"the clean run failed: {reference.stderr[-200:] if reference else 'timed out'}")
    bound = 2 * clean_seconds + 30
    done, seconds = _cli(
        project,
        "adapt",
        "tau2-mock",
        "--lang",
        "en-XA",
        "--source-dir",
        str(noted),
        "--out",
        str(project / "v-noted"),
        timeout=bound,
    )
    if done is None:
        return CheckResult(False, f"still running after {bound:.0f} s (clean run {clean_seconds:.1f} s): superlinear")
    variant_note = orjson.loads((project / "v-noted" / "data" / MOCK / "tasks.json").read_bytes())[0]["description"][
        "notes"
    ]
    ok = done.returncode == 0 and "Traceback" not in done.stderr and " " * 10_000 in variant_note
    kept = " " * 10_000 in variant_note
    timing = f"{seconds:.1f} s vs {clean_seconds:.1f} s clean (bound {bound:.0f} s)"
    return CheckResult(ok, f"exit {done.returncode} in {timing}; note kept: {kept}")


# ---- item 9: pickles where the caches were ----------------------------------------------------
class _Poison:
    """Unpickling this creates `marker`."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return (open, (str(self.marker), "w"))


def planted_cache_pickles(project: Path) -> CheckResult:
    """Pickles that would create a marker file when loaded, at the IR sidecar path and beside (and
    instead of) every analysis-cache entry: adapt runs, exits 0, and the marker never appears."""
    marker = project / "EXECUTED"
    poison = pickle.dumps(_Poison(marker))
    state = project / ".babelflow"
    planted = [state / "ir" / ".tau2-mock.json.pickle"]
    entries = sorted((state / "analysis_cache").glob("tau2-mock-*.json"))
    if not entries or not (state / "ir" / "tau2-mock.json").exists():
        return CheckResult(False, "the good project has no IR or analysis cache to plant beside")
    planted += [entry.with_suffix(".pickle") for entry in entries]
    for path in planted:
        path.write_bytes(poison)
    entries[0].write_bytes(poison)  # an entry under its current name holding a pickle: recomputed
    done, seconds = _cli(project, "adapt", "tau2-mock", "--lang", "en-XA")
    if done is None:
        return CheckResult(False, "adapt did not finish")
    executed, left = marker.exists(), planted[0].exists()
    ok = done.returncode == 0 and not executed and not left
    message = f"exit {done.returncode} in {seconds:.1f} s; marker created: {executed}; IR pickle left: {left}"
    return CheckResult(ok, message)


# ---- item 10: a link to /etc/passwd in --source-dir ---------------------------------------------
def linked_policy(project: Path) -> list[str]:
    source = _mock_source(project)
    policy = source / MOCK / "policy.md"
    policy.unlink()
    policy.symlink_to("/etc/passwd")
    return ["analyze", "tau2-mock", "--out", str(project / "ir.json"), "--source-dir", str(source)]


# ---- item 12: glossaries over the limit ----------------------------------------------------------
def pack_with_glossary(terms: int, padding: int = 0) -> Callable[[Path], list[str]]:
    def prepare(project: Path) -> list[str]:
        base = (ROOT / "language_packs" / "en-XA.toml").read_text(encoding="utf-8").split("[[glossary]]")[0]
        entries = "".join(
            f'\n[[glossary]]\nbenchmark = "*"\nsource = "zq{i}word"\ntarget = "žǫ{i}ŵöŕð"\n' for i in range(terms)
        )
        path = project / "language_packs" / "en-XA.toml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(base + entries + ("# " + "x" * padding + "\n" if padding else ""), encoding="utf-8")
        return ["adapt", "tau2-mock", "--lang", "en-XA"]

    return prepare


OVER_LIMIT = MAX_GLOSSARY_TERMS + 1
