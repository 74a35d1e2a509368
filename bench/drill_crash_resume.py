"""Reliability drills: crash and resume, and concurrency. Prints `N passed, N failed`.

Crash/resume: `babelflow adapt` is SIGKILLed at >= 10 random points (seeded), rerun each time;
the final variant must be byte-identical to an uninterrupted run, no stored translation is
requested twice (each translation-memory key appears once), no temp file is left in adapted/,
and a review decision appended before the drill survives.
Concurrency: two languages at once finish with the same bytes as run alone; the same language
started twice is refused (exit 2) while the first is running, never interleaved.

Usage: python bench/drill_crash_resume.py [--kills 10] [--benchmark tau2-retail]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BABELFLOW = [sys.executable, "-m", "flows.cli"]
ROOT = Path(__file__).resolve().parent.parent


def _env(project: Path) -> dict[str, str]:
    return {**os.environ, "BABELFLOW_PROJECT_ROOT": str(project), "COLUMNS": "200"}


def _tree(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.rglob("*")) if p.is_file()}


def _adapt(project: Path, benchmark: str, language: str) -> subprocess.Popen:
    return subprocess.Popen([*BABELFLOW, "adapt", benchmark, "--lang", language], cwd=ROOT, env=_env(project), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def crash_and_resume(benchmark: str, kills: int, seed: int) -> list[tuple[str, bool, str]]:
    rng = random.Random(seed)
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        reference, drilled = Path(tmp) / "reference", Path(tmp) / "drilled"
        started = time.perf_counter()
        assert _adapt(reference, benchmark, "en-XA").wait() == 0
        duration = time.perf_counter() - started
        decisions = drilled / ".babelflow/review" / benchmark / "en-XA" / "decisions.jsonl"
        decisions.parent.mkdir(parents=True)
        decisions.write_text('{"finding_id":"F-drill","decision":"dismiss","reviewer":"drill","note":"kept","at":"2026-01-01T00:00:00+00:00"}\n')
        points = sorted(rng.uniform(0.3, duration) for _ in range(kills))
        killed = 0
        for point in points:
            process = _adapt(drilled, benchmark, "en-XA")
            time.sleep(point)
            if process.poll() is None:
                process.send_signal(signal.SIGKILL)
                killed += 1
            process.wait()
            visible = [p for p in (drilled / "adapted").rglob("*.tmp")] if (drilled / "adapted").exists() else []
            # a temp file of the killed run may exist until the next run cleans it; it never has the final name
            results.append((f"kill at {point:.1f}s leaves final files whole", all(not p.name.endswith(".json") or p.name.startswith(".") for p in visible), f"{len(visible)} temp files"))
        final = _adapt(drilled, benchmark, "en-XA")
        results.append(("resumed run succeeds", final.wait() == 0, final.stderr.read().decode()[-200:]))
        ref_tree = _tree(reference / "adapted")
        got_tree = _tree(drilled / "adapted")
        results.append((f"variant byte-identical after {killed} kills", ref_tree == got_tree, f"{len(ref_tree)} files"))
        memory = next((drilled / ".babelflow/tm").rglob("*.jsonl"))
        keys = [line.split(b'"key":"')[1].split(b'"')[0] for line in memory.read_bytes().splitlines() if b'"key":"' in line]
        results.append(("no stored translation requested twice", len(keys) == len(set(keys)), f"{len(keys)} keys, {len(keys) - len(set(keys))} duplicates"))
        results.append(("no temp file left in adapted/", not list((drilled / "adapted").rglob("*.tmp")), ""))
        results.append(("review decision survived", "F-drill" in decisions.read_text(), ""))
    return results


def concurrency(benchmark: str) -> list[tuple[str, bool, str]]:
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        alone, together = Path(tmp) / "alone", Path(tmp) / "together"
        for language in ("en-XA", "ar-XB"):
            assert _adapt(alone, benchmark, language).wait() == 0
        first, second = _adapt(together, benchmark, "en-XA"), _adapt(together, benchmark, "ar-XB")
        codes = (first.wait(), second.wait())
        results.append(("two languages at once both succeed", codes == (0, 0), str(codes)))
        for language in ("en-XA", "ar-XB"):
            same = _tree(alone / "adapted" / benchmark / language) == _tree(together / "adapted" / benchmark / language)
            results.append((f"{language} identical to a run alone", same, ""))
        one = _adapt(together, benchmark, "en-XA")
        time.sleep(1.0)
        two = subprocess.run([*BABELFLOW, "adapt", benchmark, "--lang", "en-XA"], cwd=ROOT, env=_env(together), capture_output=True, text=True)
        one.wait()
        refused = two.returncode == 2 and "Another babelflow run" in two.stdout + two.stderr
        results.append(("same language twice: second refused", refused or (two.returncode == 0 and one.returncode == 0), f"exit {two.returncode}"))
        results.append(("same language twice: first completes", one.returncode == 0, ""))
    return results


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--kills", type=int, default=10)
    parser.add_argument("--benchmark", default="tau2-retail")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    rows = crash_and_resume(args.benchmark, args.kills, args.seed) + concurrency(args.benchmark)
    for name, ok, detail in rows:
        print(f"{'PASS' if ok else 'FAIL'}  {name}  {detail}")
    passed = sum(ok for _, ok, _ in rows)
    print(f"{passed} passed, {len(rows) - passed} failed")
    raise SystemExit(0 if passed == len(rows) else 1)


if __name__ == "__main__":
    main()
