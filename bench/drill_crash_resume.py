"""Reliability drills: crash and resume over the whole run (adapt and the Prefect flow), and concurrency.

Prints one line per kill (time, the stage it was aimed at, the stage it landed in, the writes
seen), then `N passed, N failed`.

Crash/resume: an uninterrupted `babelflow adapt` and an uninterrupted `babelflow flow` (each in its
own temporary project; the flow against the project's own background Prefect server, started on
first use) are watched to measure each stage's time: the flow's stages from its Prefect log lines
(`Task run 'translate-…' - Finished …`), the adapt's from the files it writes (IR, translation
memory appends, canonical map, adapted/ files, manifest), polled every 50 ms. Kill points are then
drawn (seeded) from that timeline: one or more per stage, each "when stage S starts in this run,
wait u × S's measured duration" (u uniform in [0.1, 0.9]), so a kill lands in its stage even when
the resumed run skips what earlier runs finished. Each killed run is the rerun of the previous
one; after the last kill one more run must complete. Checked:
  - every killed run got as far as its kill (a killed run never blocks the next: run lock, Prefect);
  - at least 3 kills landed during translation, rebuild or validation;
  - final files stay whole after each kill (every .json under adapted/ and the state folder parses);
  - the final variant is byte-identical to the uninterrupted run's; the flow ends awaiting
    sign-off with 0 findings;
  - no stored translation was requested twice (each translation-memory key appears once);
  - no temp file is left behind (adapted/, the state folder; Prefect's own folder reported apart);
  - a review decision appended before the drill survives;
  - no Prefect server is left running once `babelflow server --stop` has run.
Concurrency: two languages at once finish with the same bytes as run alone; the same language
started twice is refused (exit 2) while the first is running, never interleaved.

Usage: python -m bench.drill_crash_resume [--adapt-kills 3] [--flow-kills 7] [--benchmark tau2-retail] [--seed 7]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

BABELFLOW = [sys.executable, "-m", "flows.cli.app"]
ROOT = Path(__file__).resolve().parent.parent
LANGUAGE = "en-XA"
DECISION = (
    '{"finding_id":"F-drill","decision":"dismiss","reviewer":"drill","note":"kept","at":"2026-01-01T00:00:00+00:00"}\n'
)
WRITE_STAGES = ("translation", "rebuild", "validation")  # a kill here counts toward the "≥ 3 during writes" check


def _env(project: Path) -> dict[str, str]:
    env = {
        **os.environ,
        "BABELFLOW_PROJECT_ROOT": str(project),
        "COLUMNS": "200",
        "PYTHONUNBUFFERED": "1",
        "DO_NOT_TRACK": "1",
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
    }
    for key in ("PREFECT_API_URL", "PREFECT_HOME", "PREFECT_LOCAL_STORAGE_PATH"):
        env.pop(key, None)  # each drill project has its own background server and state
    return env


def _tree(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def _adapt(project: Path, benchmark: str, language: str) -> subprocess.Popen:
    return subprocess.Popen(
        [*BABELFLOW, "adapt", benchmark, "--lang", language],
        cwd=ROOT,
        env=_env(project),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


# ---- watching one run ------------------------------------------------------------------------
class Watched:
    """One `babelflow adapt|flow` process: its output lines and the files it writes, timestamped."""

    def __init__(self, project: Path, command: list[str]):
        self.project = project
        self.lines: list[tuple[float, str]] = []
        self.events: list[tuple[float, str]] = []  # (t, relative path) of a file created or changed
        self.before = self._snapshot()
        self.started = time.perf_counter()
        self.process = subprocess.Popen(
            command, cwd=ROOT, env=_env(project), stdout=subprocess.PIPE, stderr=subprocess.STDOUT
        )
        self._done = threading.Event()
        self._threads = [
            threading.Thread(target=self._read, daemon=True),
            threading.Thread(target=self._watch, daemon=True),
        ]
        for thread in self._threads:
            thread.start()

    def now(self) -> float:
        return time.perf_counter() - self.started

    def _read(self) -> None:
        for raw in self.process.stdout:
            self.lines.append((self.now(), raw.decode(errors="replace").rstrip()))

    def _snapshot(self) -> dict[str, tuple[int, int]]:
        seen = {}
        for folder, dirs, files in os.walk(self.project):
            if Path(folder) == self.project / ".babelflow":
                dirs[:] = [d for d in dirs if d not in ("prefect", "locks")]
            for name in files:
                path = Path(folder) / name
                try:
                    stat = path.stat()
                except FileNotFoundError:
                    continue  # a temp file renamed away between listing and stat
                seen[str(path.relative_to(self.project))] = (stat.st_mtime_ns, stat.st_size)
        return seen

    def _watch(self) -> None:
        last = dict(self.before)
        while not self._done.is_set():
            current = self._snapshot()
            t = self.now()
            for path, stamp in current.items():
                if last.get(path) != stamp:
                    self.events.append((t, path))
            last = current
            if self.process.poll() is not None:
                self._done.set()
            time.sleep(0.05)

    def wait(self) -> int:
        code = self.process.wait()
        self._done.set()
        for thread in self._threads:
            thread.join(10)
        return code

    def kill(self) -> bool:
        """SIGKILL now; True if the process was still running."""
        alive = self.process.poll() is None
        if alive:
            self.process.send_signal(signal.SIGKILL)
        self.wait()
        return alive

    def tail(self, n: int = 8) -> str:
        return " | ".join(line for _, line in self.lines[-n:])[-600:]


# ---- stage models: where a run is, from what it printed and wrote ------------------------------
_TASK_DONE = re.compile(r"Task run '([a-z]+)-[0-9a-f]+' - Finished in state (\w+)")


def flow_marks(run: Watched, until: float) -> dict[str, float]:
    """First time of each flow milestone seen up to `until` (seconds since the run started)."""
    marks: dict[str, float] = {}
    validated = 0
    for t, line in list(run.lines):
        if t > until:
            break
        if "Beginning flow run" in line:
            marks.setdefault("begun", t)
        done = _TASK_DONE.search(line)
        if done:
            name = done.group(1)
            if name == "validate":
                validated += 1
                marks.setdefault("integrity", t)
                if validated == 4:
                    marks.setdefault("layers", t)
            else:
                marks.setdefault(name, t)
        if "Flow run" in line and "Finished in state" in line:
            marks.setdefault("flow", t)
    return marks


FLOW_STAGES = [  # (stage, milestone that starts it, milestone that ends it)
    ("start-up (Prefect server and client)", None, "begun"),
    ("analysis", "begun", "analyze"),
    ("translation", "analyze", "translate"),
    ("rebuild", "translate", "rebuild"),
    ("validation: integrity", "rebuild", "integrity"),
    ("validation: consistency/fidelity/behaviour", "integrity", "layers"),
    ("merge, review queue and artifacts", "layers", "flow"),
]


def _adapt_kind(path: str, benchmark: str) -> str | None:
    if path.startswith(f".babelflow/ir/{benchmark}.json"):
        return "ir"
    if path.startswith(".babelflow/tm/") and path.endswith(".jsonl"):
        return "tm"
    if path.startswith("canonical_maps/") and not Path(path).name.startswith("."):
        return "cmap"
    if path.startswith("adapted/"):
        return "manifest" if path.endswith("babelflow_manifest.json") else "adapted"
    return None


def adapt_marks(run: Watched, until: float, benchmark: str) -> dict[str, float]:
    marks: dict[str, float] = {}
    for t, path in list(run.events):
        if t > until:
            break
        kind = _adapt_kind(path, benchmark)
        if kind:
            marks.setdefault(kind, t)
    if "ir" in marks or "tm" in marks:
        marks.setdefault("analysed", min(marks.get("ir", 1e9), marks.get("tm", 1e9)))
    return marks


ADAPT_STAGES = [
    ("start-up + analysis", None, "analysed"),
    ("translation", "tm", "cmap"),
    ("release checks", "cmap", "adapted"),
    ("rebuild", "adapted", "manifest"),
]


def stage_at(stages: list, marks: dict[str, float]) -> str:
    """The stage a run is in: the last one whose start milestone was seen, or the next one once its
    end was seen (a cached flow task starts and ends at once)."""
    index = max(i for i, (_, start, _) in enumerate(stages) if start is None or start in marks)
    name, _, end = stages[index]
    if end in marks:
        return stages[index + 1][0] if index + 1 < len(stages) else "exiting"
    return name


def timeline(stages: list, marks: dict[str, float], total: float) -> list[tuple[str, float, float]]:
    rows = []
    for name, start, end in stages:
        begin = 0.0 if start is None else marks.get(start)
        finish = marks.get(end, total)
        if begin is not None:
            rows.append((name, begin, max(begin, finish)))
    return rows


def writes_between(run: Watched, start: float, end: float) -> str:
    touched = sorted({path for t, path in run.events if start <= t <= end})
    if not touched:
        return "no file writes seen"
    top = {}
    for path in touched:
        head = "/".join(Path(path).parts[:2] if not path.startswith("adapted/") else Path(path).parts[:1])
        top[head] = top.get(head, 0) + 1
    return "writes: " + ", ".join(f"{k} {v}" for k, v in sorted(top.items()))


# ---- checks ------------------------------------------------------------------------------------
def whole_json(project: Path) -> list[str]:
    """Final-named .json files that do not parse (a half-written file at its final path)."""
    bad = []
    for path in (
        list((project / "adapted").rglob("*.json"))
        + list((project / ".babelflow").rglob("*.json"))
        + list((project / "canonical_maps").rglob("*.json"))
    ):
        if path.name.startswith(".") or "prefect" in path.relative_to(project).parts:
            continue
        try:
            json.loads(path.read_bytes())
        except (ValueError, OSError):
            bad.append(str(path.relative_to(project)))
    return bad


def temp_files(project: Path) -> tuple[list[str], list[str]]:
    ours, prefect = [], []
    for path in project.rglob("*.tmp"):
        rel = path.relative_to(project)
        (prefect if "prefect" in rel.parts else ours).append(str(rel))
    return ours, prefect


def memory_keys(project: Path) -> tuple[int, int, int]:
    """(keys, duplicate keys, torn lines) over the translation memory files."""
    keys, torn = [], 0
    for memory in (project / ".babelflow/tm").rglob("*.jsonl"):
        for line in memory.read_bytes().splitlines():
            try:
                keys.append(json.loads(line)["key"])
            except (ValueError, KeyError):
                torn += 1
    return len(keys), len(keys) - len(set(keys)), torn


def prefect_servers(project: Path) -> list[int]:
    """Pids of Prefect servers whose PREFECT_HOME lies in `project` (started by this drill's runs)."""
    pids = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmdline = (proc / "cmdline").read_bytes()
            if b"server" not in cmdline or (b"prefect" not in cmdline and b"server_launcher" not in cmdline):
                continue  # `prefect server start`, or the project's launcher (flows/server/launcher.py)
            environ = (proc / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        if any(e.startswith(b"PREFECT_HOME=") and str(project).encode() in e for e in environ):
            pids.append(int(proc.name))
    return pids


def _group(pid: int) -> int | None:
    try:
        return os.getpgid(pid)
    except ProcessLookupError:
        return None


def flow_runs_by_state(project: Path) -> dict[str, int]:
    """Flow runs of the project's background server by state name (what a killed run left behind)."""
    import urllib.request

    record = project / ".babelflow/prefect/server.json"
    if not record.exists():
        return {}
    api = json.loads(record.read_text())["api_url"]
    from babelflow.settings import BabelflowSettings
    from flows.server.auth import basic_authorization, read_auth_string

    auth = {
        "Authorization": basic_authorization(read_auth_string(BabelflowSettings(project_root=project)))
    }  # the server wants it
    try:
        with urllib.request.urlopen(
            urllib.request.Request(f"{api}/csrf-token?client=crash-drill", headers=auth), timeout=10
        ) as reply:
            csrf = {"Prefect-Csrf-Token": json.loads(reply.read())["token"], "Prefect-Csrf-Client": "crash-drill"}
        headers = {"Content-Type": "application/json", **auth, **csrf}
        request = urllib.request.Request(
            f"{api}/flow_runs/filter", data=json.dumps({"limit": 200}).encode(), headers=headers, method="POST"
        )
        with urllib.request.urlopen(request, timeout=10) as reply:
            runs = json.loads(reply.read())
    except OSError:
        return {}
    counts: dict[str, int] = {}
    for run in runs:
        counts[run.get("state_name") or "?"] = counts.get(run.get("state_name") or "?", 0) + 1
    return counts


# ---- the drill ---------------------------------------------------------------------------------
def plan(stages: list[tuple[str, float, float]], kills: int, rng: random.Random) -> list[tuple[str, float]]:
    """(stage, u) per kill in pipeline order: every stage once while kills last (translation,
    rebuild and validation first), the rest spread by stage duration."""
    order = sorted(range(len(stages)), key=lambda i: (not stages[i][0].startswith(WRITE_STAGES), i))
    chosen = order[:kills]
    weights = [max(0.05, end - start) for _, start, end in stages]
    while len(chosen) < kills:
        chosen.append(rng.choices(range(len(stages)), weights=weights)[0])
    return [(stages[i][0], rng.uniform(0.1, 0.9)) for i in sorted(chosen)]


def drill(kind: str, benchmark: str, kills: int, seed: int, tmp: Path, results: list) -> int:
    """Returns how many kills landed during translation, rebuild or validation."""
    command = [*BABELFLOW, kind, benchmark, "--lang", LANGUAGE]
    stages_model = FLOW_STAGES if kind == "flow" else ADAPT_STAGES

    def marks_of(run: Watched, until: float) -> dict[str, float]:
        return flow_marks(run, until) if kind == "flow" else adapt_marks(run, until, benchmark)

    reference, drilled = tmp / f"{kind}-reference", tmp / f"{kind}-drilled"
    for project in (reference, drilled):
        decisions = project / ".babelflow/review" / benchmark / LANGUAGE / "decisions.jsonl"
        decisions.parent.mkdir(parents=True)
        decisions.write_text(DECISION)
    try:
        ref = Watched(reference, command)
        code = ref.wait()
        total = ref.now()
        if code != 0:
            results.append((f"{kind}: uninterrupted run succeeds", False, ref.tail()))
            return 0
        measured = timeline(stages_model, marks_of(ref, total), total)
        print(
            f"{kind} {benchmark} {LANGUAGE}, uninterrupted: {total:.1f} s — "
            + ", ".join(f"{name} {start:.1f}–{end:.1f} s" for name, start, end in measured),
            flush=True,
        )
        durations = {name: end - start for name, start, end in measured}
        rng = random.Random(f"{seed}/{kind}")
        landed_in_writes = 0
        for number, (target, u) in enumerate(plan(measured, kills, rng), 1):
            run = Watched(drilled, command)
            start_name = next(start for name, start, _ in stages_model if name == target)
            began = None
            while run.process.poll() is None:  # wait for the target stage to begin in *this* run
                marks = marks_of(run, run.now())
                if start_name is None or start_name in marks:
                    began = 0.0 if start_name is None else marks[start_name]
                    break
                time.sleep(0.02)
            if began is not None:
                time.sleep(max(0.0, began + u * durations[target] - run.now()))
            at = run.now()
            killed = run.kill()
            marks = marks_of(run, at)
            landed = stage_at(stages_model, marks)
            landed_in_writes += killed and landed.startswith(WRITE_STAGES)
            stage_start = max([0.0] + [t for t in marks.values() if t <= at])
            line = (
                f"{kind} kill {number}: at {at:5.1f} s, aimed at {target} (+{u:.2f}×{durations[target]:.1f} s), "
                f"landed in {landed}; {writes_between(run, stage_start, at)}"
            )
            print(line, flush=True)
            if kind == "flow":
                servers = prefect_servers(drilled)
                record = drilled / ".babelflow/prefect/server.json"
                recorded = json.loads(record.read_text())["pid"] if record.exists() else None
                unrecorded = [pid for pid in servers if pid != recorded and _group(pid) != recorded]
                print(
                    f"    Prefect servers of the drilled project: {servers}, recorded in server.json: {recorded}"
                    + (f"; NOT recorded: {unrecorded}" if unrecorded else ""),
                    flush=True,
                )
            broken = whole_json(drilled)
            results.append(
                (
                    f"{kind} kill {number} at {at:.1f} s in {landed}: run got there, final files whole",
                    killed and not broken,
                    ""
                    if killed and not broken
                    else f"exit {run.process.returncode} before the kill: {run.tail()}; unparsable: {broken[:3]}",
                )
            )
        final = Watched(drilled, command)
        code = final.wait()
        results.append(
            (
                f"{kind}: resumed run completes after {kills} kills",
                code == 0,
                f"{final.now():.1f} s" if code == 0 else final.tail(),
            )
        )
        if kind == "flow":
            queue = drilled / ".babelflow/review" / benchmark / LANGUAGE / "queue.json"
            findings = len(json.loads(queue.read_bytes())["findings"]) if queue.exists() else -1
            results.append(
                (
                    "flow: resumed run awaits sign-off with 0 findings",
                    findings == 0 and "awaiting_signoff" in " ".join(text for _, text in final.lines),
                    f"{findings} findings",
                )
            )
        ref_tree, got_tree = _tree(reference / "adapted"), _tree(drilled / "adapted")
        differing = sorted(k for k in set(ref_tree) | set(got_tree) if ref_tree.get(k) != got_tree.get(k))
        results.append(
            (
                f"{kind}: variant byte-identical to the uninterrupted run",
                not differing,
                f"{len(ref_tree)} files" + (f"; differ: {differing[:5]}" if differing else ""),
            )
        )
        keys, duplicates, torn = memory_keys(drilled)
        results.append(
            (
                f"{kind}: no stored translation requested twice",
                keys > 0 and duplicates == 0,
                f"{keys} keys, {duplicates} duplicates, {torn} torn lines",
            )
        )
        ours, prefect_tmp = temp_files(drilled)
        results.append((f"{kind}: no temp file left behind (adapted/, state folder)", not ours, ", ".join(ours[:5])))
        if prefect_tmp:
            print(f"note: {len(prefect_tmp)} temp files in Prefect's own folder: {prefect_tmp[:3]}")
        decisions = drilled / ".babelflow/review" / benchmark / LANGUAGE / "decisions.jsonl"
        results.append(
            (f"{kind}: review decision appended before the drill survived", "F-drill" in decisions.read_text(), "")
        )
        if kind == "flow":
            print(
                f"flow runs in the drilled project's Prefect server by state: {flow_runs_by_state(drilled)} (killed "
                "runs stay as Prefect last saw them)"
            )
        return landed_in_writes
    finally:
        if kind == "flow":
            for project in (reference, drilled):
                subprocess.run(
                    [*BABELFLOW, "server", "--stop"], cwd=ROOT, env=_env(project), capture_output=True, timeout=120
                )
                left = prefect_servers(project)
                for pid in left:  # only servers of this drill's own temp projects
                    os.kill(pid, signal.SIGKILL)
                results.append(
                    (
                        f"flow: no Prefect server left running after `babelflow server --stop` ({project.name})",
                        not left,
                        f"pids {left} killed" if left else "",
                    )
                )


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
        two = subprocess.run(
            [*BABELFLOW, "adapt", benchmark, "--lang", "en-XA"],
            cwd=ROOT,
            env=_env(together),
            capture_output=True,
            text=True,
        )
        one.wait()
        refused = two.returncode == 2 and "Another babelflow run" in two.stdout + two.stderr
        results.append(
            (
                "same language twice: second refused",
                refused or (two.returncode == 0 and one.returncode == 0),
                f"exit {two.returncode}",
            )
        )
        results.append(("same language twice: first completes", one.returncode == 0, ""))
    return results


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--adapt-kills", type=int, default=3, help="kills of `babelflow adapt` (one per stage first)")
    parser.add_argument("--flow-kills", type=int, default=7, help="kills of `babelflow flow` (one per stage first)")
    parser.add_argument("--benchmark", default="tau2-retail")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--skip-concurrency", action="store_true")
    args = parser.parse_args()
    started = time.perf_counter()
    rows: list[tuple[str, bool, str]] = []
    with tempfile.TemporaryDirectory(prefix="babelflow-drill-") as tmp:
        in_writes = 0
        if args.adapt_kills:
            in_writes += drill("adapt", args.benchmark, args.adapt_kills, args.seed, Path(tmp), rows)
        if args.flow_kills:
            in_writes += drill("flow", args.benchmark, args.flow_kills, args.seed, Path(tmp), rows)
        rows.append(
            (
                "≥ 3 kills landed during translation, rebuild or validation",
                in_writes >= 3,
                f"{in_writes} of {args.adapt_kills + args.flow_kills}",
            )
        )
    if not args.skip_concurrency:
        rows += concurrency(args.benchmark)
    for name, ok, detail in rows:
        print(f"{'PASS' if ok else 'FAIL'}  {name}  {detail}")
    passed = sum(ok for _, ok, _ in rows)
    print(f"{passed} passed, {len(rows) - passed} failed  ({time.perf_counter() - started:.0f} s)")
    raise SystemExit(0 if passed == len(rows) else 1)


if __name__ == "__main__":
    main()
