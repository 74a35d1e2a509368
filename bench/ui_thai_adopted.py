"""What a reviewer sees of an adopted Thai variant in the Prefect UI, at 1,280 px (issue 40).

In a fresh temporary project, as a user runs it:
`babelflow flow tau2-retail --source-dir CORPUS/en --lang th --adopt CORPUS/th --review-timeout 600`
pauses at the review form. In Chromium at 1,280 px the script opens the review material and the failure
report and asserts that neither the page nor any table scrolls sideways, and that the Thai texts are on
the page as text (shaped by the browser, not escaped). It screenshots both and the paused run, then stops
the run and the project's server.

Needs Debian's chromium (/usr/bin/chromium) and Playwright (`pip install -e ".[ui]"`).
Usage: python -m bench.ui_thai_adopted [CORPUS_DIR] [--out docs/ui]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import tempfile
import time
from pathlib import Path

from bench.ui_walkthrough import (
    BABELFLOW,
    ROOT,
    WIDTH,
    Api,
    _no_sideways_scroll,
    _no_table_scroll,
    _open_artifact,
    _shot,
    _user_env,
    logged_in_page,
)

THAI = range(0x0E00, 0x0E80)


def _thai_characters(page) -> int:
    text = page.inner_text("body")
    return sum(ord(c) in THAI for c in text)


def walk(corpus: Path, out: Path) -> dict:
    started = time.perf_counter()
    out.mkdir(parents=True, exist_ok=True)
    project = Path(tempfile.mkdtemp(prefix="babelflow-thai-")) / "project"
    project.mkdir()
    os.environ["BABELFLOW_PROJECT_ROOT"] = str(project)
    command = [
        *BABELFLOW,
        "flow",
        "tau2-retail",
        "--source-dir",
        str(corpus / "en"),
        "--lang",
        "th",
        "--adopt",
        str(corpus / "th"),
        "--adopt-origin",
        "SEATauBench",
        "--review-timeout",
        "600",
    ]
    waiting = subprocess.Popen(command, cwd=project, env=_user_env(), stdout=subprocess.PIPE, text=True)
    shown: dict[str, str] = {}
    checks: dict[str, object] = {}
    try:
        deadline = time.time() + 300
        while not (project / ".babelflow" / "prefect" / "server.json").is_file():
            if time.time() > deadline or waiting.poll() is not None:
                raise SystemExit("the flow never started the project's server")
            time.sleep(0.5)
        api = Api(project)
        while True:  # the server writes its record before it answers
            try:
                api.call("health")
                break
            except OSError:
                if time.time() > deadline or waiting.poll() is not None:
                    raise SystemExit("the project's server never answered") from None
                time.sleep(0.5)
        run_id = api.paused_run("review-1")
        checks["review_paused_s"] = round(time.perf_counter() - started, 1)
        from playwright.sync_api import sync_playwright

        with sync_playwright() as pw:
            browser, page = logged_in_page(pw, api)
            for key, heading, name, what in (
                ("tau2-retail-th-review", "Review tau2-retail", "thai-1-review-material.png", "review material"),
                ("tau2-retail-th-failure-report", "open findings in", "thai-2-failure-report.png", "failure report"),
            ):
                _open_artifact(page, f"{api.ui}/artifacts/artifact/{api.artifact_id(key)}", heading)
                sizes = _no_sideways_scroll(page)
                _no_table_scroll(page)
                thai = _thai_characters(page)
                if thai < 200:
                    raise SystemExit(f"{what}: only {thai} Thai characters shown as text")
                checks[what] = {**sizes, "thai_characters": thai}
                _shot(page, out, name, shown, f"{what} of the adopted Thai variant at {WIDTH} px")
            page.goto(f"{api.ui}/runs/flow-run/{run_id}", wait_until="networkidle")
            page.wait_for_timeout(2000)
            _shot(page, out, "thai-3-paused-run.png", shown, "the run paused at the review form", full=False)
            browser.close()
    finally:
        waiting.terminate()
        waiting.wait(timeout=60)
        subprocess.run([*BABELFLOW, "server", "--stop"], cwd=project, env=_user_env(), capture_output=True)
    return {"seconds": round(time.perf_counter() - started, 1), "checks": checks, "screenshots": shown}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpus", nargs="?", type=Path, default=ROOT.parent / "shared/corpora/seatau-retail")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "ui")
    args = parser.parse_args()
    print(json.dumps(walk(args.corpus.resolve(), args.out), ensure_ascii=False))


if __name__ == "__main__":
    main()
