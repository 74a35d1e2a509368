"""Screenshots of the Prefect UI: a failure-report artifact and the paused review form.

Starts a local Prefect server (127.0.0.1, telemetry off), runs the fixture benchmark's flow with
a planted defect (an "answered instead of translated" entry in the translation memory) so it
pauses for review, then drives Debian's headless Chromium with Playwright (no browser download:
`executable_path=/usr/bin/chromium`) to capture docs/ui/*.png. Finally it resumes the run with a
confirm decision so the fix round completes.

Needs: `apt-get install chromium` and `pip install playwright` (not part of the test suite).
Usage: python scripts/ui_screenshot.py [--out docs/ui]
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parent.parent


def _port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait(url: str, seconds: float = 90) -> None:
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            urllib.request.urlopen(url, timeout=1)
            return
        except OSError:
            time.sleep(0.3)
    raise SystemExit(f"server did not answer at {url}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "ui")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix="babelflow-ui-"))
    port = _port()
    api = f"http://127.0.0.1:{port}/api"  # the UI must be told where the API is (default :4200)
    env = {
        **os.environ, "PREFECT_HOME": str(tmp / "home"), "DO_NOT_TRACK": "1", "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
        "PREFECT_SERVER_UI_V2_ENABLED": "false", "PREFECT_UI_API_URL": api, "PREFECT_API_URL": api,
    }
    server = subprocess.Popen([sys.executable, "-m", "prefect", "server", "start", "--host", "127.0.0.1", "--port", str(port)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait(f"{api}/health")
        os.environ.update(env, PREFECT_API_URL=api, PREFECT_LOCAL_STORAGE_PATH=str(tmp / "storage"))
        from babelflow.settings import BabelflowSettings
        from flows.adapt import adapt
        from flows.prefect_flows import adapt_language
        from flows.review_store import ReviewStore
        from flows.stages import run_paths

        project = tmp / "project"
        planted = adapt("fixture-library", "en-XA", settings=BabelflowSettings(project_root=project))
        records = [orjson.loads(line) for line in planted.paths.memory.read_bytes().splitlines()]
        index = next(i for i, r in enumerate(records) if "⟦" in r["target"] and len(r["target"]) > 40)
        records[index]["target"] = "Sure! Here is the translation you asked for: " + records[index]["target"]
        planted.paths.memory.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))

        store = ReviewStore(run_paths(BabelflowSettings(project_root=project), "fixture-library", "en-XA").review_dir)
        thread = threading.Thread(target=lambda: adapt_language("fixture-library", "en-XA", project_root=project, review_timeout=600), daemon=True)
        thread.start()
        from prefect.client.orchestration import get_client

        with get_client(sync_client=True) as client:
            for _ in range(300):
                run_id = store.flow_run_id()
                if run_id and client.read_flow_run(run_id).state.is_paused():
                    break
                time.sleep(0.5)
            artifacts = client.read_artifacts()
            report = next(a for a in artifacts if a.key and a.key.endswith("failure-report"))

        from playwright.sync_api import sync_playwright

        ui = f"http://127.0.0.1:{port}"
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync"])
            page = browser.new_page(viewport={"width": 1400, "height": 1100})
            page.goto(f"{ui}/artifacts/artifact/{report.id}", wait_until="networkidle")
            page.wait_for_timeout(2500)
            page.screenshot(path=str(args.out / "failure-report-artifact.png"), full_page=True)
            page.goto(f"{ui}/runs/flow-run/{run_id}", wait_until="networkidle")
            page.wait_for_timeout(2500)
            page.get_by_role("button", name="Resume").first.click()
            page.wait_for_timeout(2500)
            page.screenshot(path=str(args.out / "paused-review-form.png"), full_page=True)
            browser.close()

        from prefect.flow_runs import resume_flow_run

        queue = store.queue()
        resume_flow_run(run_id, run_input={"reviewer": "screenshot", "decisions": [{"finding_id": f.id, "decision": "confirm", "note": "answered instead of translating"} for f in queue.findings]})
        time.sleep(8)
        print(f"wrote {args.out / 'failure-report-artifact.png'} and {args.out / 'paused-review-form.png'}")
    finally:
        server.terminate()
        server.wait(30)


if __name__ == "__main__":
    main()
