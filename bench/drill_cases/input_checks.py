"""The bad-input drill's checks for issue 28's items 11 (a damaged translation-memory line), 13
(the code-trial child after its parent's SIGKILL) and 14 (a provider endpoint that redirects):
cases that are not "one CLI call exits 2"."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

from babelflow.child_lifetime import GRACE_SECONDS
from bench.drill_cases import Case, CheckResult

ROOT = Path(__file__).resolve().parents[2]
TM = ".babelflow/tm/tau2-mock/en-XA/pseudo_en-XA_v1.jsonl"


def _tree(folder: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            digest.update(str(path.relative_to(folder)).encode() + path.read_bytes())
    return digest.hexdigest()


def damaged_memory_line(project: Path) -> CheckResult:
    """A TM line that is JSON but not {key, target}: dropped with a warning naming the file and
    line, and the run succeeds with the same variant (the memory is a cache the tool writes)."""
    memory = project / TM
    if not memory.exists():
        return CheckResult(False, f"the good project has no translation memory at {TM}")
    line = memory.read_bytes().count(b"\n") + 1
    with memory.open("ab") as handle:
        handle.write(b'{"a": 1}\n')
    before = _tree(project / "adapted")
    env = {**os.environ, "BABELFLOW_PROJECT_ROOT": str(project), "COLUMNS": "300", "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "flows.cli.app", "adapt", "tau2-mock", "--lang", "en-XA"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    warning = next((text for text in done.stderr.splitlines() if "translation memory" in text), "")
    ok = [
        done.returncode == 0,
        str(memory) in warning and f"line {line}" in warning and "fix:" in warning,
        "Traceback" not in done.stdout + done.stderr,
        _tree(project / "adapted") == before,
    ]
    if all(ok):
        return CheckResult(True, f"exit 0, same variant; warned: {warning[:90]}")
    return CheckResult(False, f"exit {done.returncode}, checks {ok}: {(done.stderr or done.stdout)[-300:]}")


def code_trial_child_after_parent_sigkill(project: Path) -> CheckResult:
    """A process running tau2-mock's code trials is SIGKILLed: its child must end (SIGTERM, exit 143)."""
    if not sys.platform.startswith("linux"):
        return CheckResult(True, "skipped: reading an orphan's exit status needs Linux")
    from bench.drill_cases.lifetime import kill_code_trial_parent

    fate = kill_code_trial_parent()
    passed = fate.gone and fate.exit_code == 143 and fate.seconds_after_kill < 1 + GRACE_SECONDS
    return CheckResult(
        passed,
        f"child ran {fate.ran_before_kill} s, ended {fate.seconds_after_kill} s after the kill, exit {fate.exit_code}",
    )


def redirecting_provider(project: Path) -> CheckResult:
    """`adapt --translator openai:MODEL@URL` where URL answers 307 to another host: exit 2 with
    error/fix, nothing written, and the other host receives nothing (no prompt, no org/project)."""
    from bench.drill_bad_input import run_case
    from bench.drill_cases.redirects import RedirectPair

    saved = {
        name: os.environ.get(name)
        for name in ("OPENAI_API_KEY", "OPENAI_ORG_ID", "OPENAI_PROJECT_ID", "NO_PROXY", "no_proxy")
    }
    os.environ.update(
        OPENAI_API_KEY="sk-drill-not-a-key-000",
        OPENAI_ORG_ID="org-drill-private",
        OPENAI_PROJECT_ID="proj-drill-private",
        NO_PROXY="127.0.0.1,localhost",
        no_proxy="127.0.0.1,localhost",
    )
    try:
        with RedirectPair(307) as pair:
            spec = f"openai:gpt-5-mini@{pair.base_urls()['openai']}?backoff=0.01&max_retries=1"
            case = Case(
                "redirect",
                lambda p: ["adapt", "tau2-mock", "--lang", "zh-Hans", "--translator", spec],
                "OPENAI_BASE_URL",
            )
            ok, code, text = run_case(case, project)
            ok.append(
                pair.arrivals == [] and len(pair.hits) >= 1
            )  # batches run concurrently: a few may reach the endpoint
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    labels = [
        "exit 2",
        "names OPENAI_BASE_URL",
        "has a fix",
        "no traceback",
        "nothing written",
        "other host got nothing",
    ]
    failed = [label for label, flag in zip(labels, ok, strict=True) if not flag]
    first = next((line for line in text.splitlines() if "error" in line.lower()), "")
    seen = f"endpoint asked {len(pair.hits)}x, other host got {len(pair.arrivals)}"
    return CheckResult(
        not failed, f"{seen}; {first[:80]}" if not failed else f"exit {code}, {seen}, failed {failed}: {text[-300:]}"
    )
