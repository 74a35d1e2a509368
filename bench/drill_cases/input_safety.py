"""The bad-input drill's cases for issue 28's items 8, 9, 10 and 12 (glossary half): inputs that
cannot hang or run code. A note built to make the placeholder patterns backtrack, pickles planted
where babelflow once kept its caches, a `--source-dir` file linked to /etc/passwd, glossaries over
the limit."""

from __future__ import annotations

import base64
import json
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


def planted_result_record(project: Path) -> CheckResult:
    """Issue 44: a pickle record planted at a stage's cache key in the project's result folder. Prefect's
    default store runs it on its existence check; babelflow's stage store reads it as absent."""
    from prefect.filesystems import LocalFileSystem
    from prefect.results import ResultStore

    from flows.pipeline.result_store import RecordSerializer, TrustedResultStorage

    folder = project / ".babelflow" / "prefect" / "storage"
    folder.mkdir(parents=True, exist_ok=True)
    marker, key = project / "EXECUTED", "translate-2-planted"
    payload = base64.b64encode(pickle.dumps(_Poison(marker))).decode()
    pickled = {"type": "pickle", "picklelib": "cloudpickle"}
    record = {"metadata": {"storage_key": key, "expiration": None, "serializer": pickled}, "result": payload}
    (folder / key).write_bytes(json.dumps(record).encode())
    ours = ResultStore(result_storage=TrustedResultStorage(basepath=str(folder)), serializer=RecordSerializer())
    found = ours.exists(key)
    by_babelflow = marker.exists()
    ResultStore(result_storage=LocalFileSystem(basepath=str(folder))).exists(key)  # what the flow used before
    by_default = marker.exists()
    return CheckResult(
        not found and not by_babelflow,
        f"babelflow's store: {'ran it' if by_babelflow else 'read as absent'}; Prefect's default store:"
        f" {'ran it' if by_default else 'did not run it'}",
    )


# ---- item 10: a link to /etc/passwd in --source-dir ---------------------------------------------
def linked_policy(project: Path) -> list[str]:
    source = _mock_source(project)
    policy = source / MOCK / "policy.md"
    policy.unlink()
    policy.symlink_to("/etc/passwd")
    return ["analyze", "tau2-mock", "--out", str(project / "ir.json"), "--source-dir", str(source)]


# ---- issue 44: a variant file linked to a file outside it (another user's secret) ------------------
SECRET = "TOP-SECRET-DRILL-0600"


def linked_variant_file(command: list[str]) -> Callable[[Path], list[str]]:
    """The good variant's policy replaced by a link to an owner-only file outside the project: the
    hand-edit pickup (adapt, flow) and `validate --variant` must refuse it unread, never copy it in."""

    def prepare(project: Path) -> list[str]:
        secret = project.parent / f"{project.name}-secret.txt"
        secret.write_text(SECRET)
        secret.chmod(0o600)
        policy = project / "adapted" / "tau2-mock" / "en-XA" / "data" / MOCK / "policy.md"
        policy.unlink()
        policy.symlink_to(secret)
        return [a.replace("{p}", str(project)) for a in command]

    return prepare


def linked_variant_file_never_reported(project: Path) -> CheckResult:
    """`validate --variant COPY --review` on a variant whose policy links to an owner-only file outside
    it: the file is reported as a refused link, its text is in no output, report or review queue."""
    copy = project / "elsewhere"
    shutil.copytree(project / "adapted" / "tau2-mock" / "en-XA", copy)
    linked_variant_file([])(project)  # links the project's own variant; link the copy the same way
    policy = copy / "data" / MOCK / "policy.md"
    policy.unlink()
    policy.symlink_to(project.parent / f"{project.name}-secret.txt")
    done, seconds = _cli(project, "validate", "tau2-mock", "--lang", "en-XA", "--variant", str(copy), "--review")
    if done is None:
        return CheckResult(False, "validate did not finish")
    state = project / ".babelflow"
    leaked = SECRET in done.stdout + done.stderr or any(
        SECRET in path.read_text(errors="replace") for path in state.rglob("*") if path.is_file()
    )
    named = "policy.md" in done.stdout and "outside" in done.stdout
    return CheckResult(
        not leaked and named and done.returncode in (0, 1),
        f"exit {done.returncode} in {seconds:.1f} s; link named as refused: {named}; secret leaked: {leaked}",
    )


def hand_edit_then_refused_run(project: Path) -> list[str]:
    """Issue 44: a hand edit in the variant, then a pack whose release checks refuse the drafts: the
    refused adapt must take back the hand edit it adopted (reviewed texts, correction log) as it says."""
    tasks = project / "adapted" / "tau2-mock" / "en-XA" / "data" / MOCK / "tasks.json"
    text = tasks.read_text(encoding="utf-8")
    start = text.index('"instructions": "') + len('"instructions": "')
    tasks.write_text(text[:start] + "Ĥåñð éðîţ. " + text[start:], encoding="utf-8")
    base = (ROOT / "language_packs" / "en-XA.toml").read_text(encoding="utf-8")
    pack = project / "language_packs" / "en-XA.toml"
    pack.parent.mkdir(parents=True, exist_ok=True)
    pack.write_text(base + '\n[[forbidden]]\ntarget = "ţĥé"\nnote = "drill: refuses the drafts"\n', encoding="utf-8")
    return ["adapt", "tau2-mock", "--lang", "en-XA"]


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


# ---- issue 44, low: a lock file planted as a link; markup planted in a variant ------------------------
def linked_run_lock(project: Path) -> list[str]:
    """The run lock's name made a link to another file: the holder's record was written over it."""
    victim = project / "victim" / "notes.txt"
    victim.parent.mkdir()
    victim.write_text("someone's notes\n")
    lock = project / ".babelflow" / "locks" / "tau2-mock--en-XA.lock"
    lock.parent.mkdir(parents=True, exist_ok=True)
    lock.unlink(missing_ok=True)
    lock.symlink_to(victim)
    return ["adapt", "tau2-mock", "--lang", "en-XA"]


MARKUP = "<img src=http://203.0.113.9/pixel.png> ![seen](http://203.0.113.9/seen.png)"


def markup_in_a_variant_renders_as_text(project: Path) -> CheckResult:
    """A variant made elsewhere holding an image tag and a Markdown image: the failure report and the
    review material must show them as text (rendered, they fetch from wherever they point when a reviewer
    opens the report in the UI)."""
    from markdown_it import MarkdownIt

    from flows.pipeline.reporting import failure_report_markdown
    from flows.review.material import review_material_markdown
    from validators.findings import FailureSet

    variant = project / "elsewhere"
    shutil.copytree(project / "adapted" / "tau2-mock" / "en-XA", variant)
    db = variant / "data" / MOCK / "db.json"
    data = json.loads(db.read_text(encoding="utf-8"))
    data["tasks"]["task_1"]["status"] = MARKUP  # a kept value changed: its finding quotes the variant's text
    db.write_text(json.dumps(data, ensure_ascii=False, indent=2), encoding="utf-8")
    report = project / "report.json"
    args = ("validate", "tau2-mock", "--lang", "en-XA", "--variant", str(variant), "--json", str(report))
    done, seconds = _cli(project, *args)
    if done is None or not report.exists():
        return CheckResult(False, f"validate did not write its report: {done.stdout[-300:] if done else 'timeout'}")
    failures = FailureSet.model_validate_json(report.read_bytes())
    carried = [f for f in failures.findings if "203.0.113.9" in f.model_dump_json()]
    pages = (failure_report_markdown(failures, 1, variant), review_material_markdown(failures, 1, None))
    rendered = [MarkdownIt("commonmark").render(page) for page in pages]
    images = sum(page.count("<img") for page in rendered)
    return CheckResult(
        bool(carried) and images == 0,
        f"exit {done.returncode} in {seconds:.1f} s; findings carrying the planted text: {len(carried)};"
        f" images in the rendered report and material: {images}",
    )
