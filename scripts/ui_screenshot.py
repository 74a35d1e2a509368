"""Screenshots of the Prefect UI after runs that the `babelflow` CLI started, as a user sees them.

In a fresh temporary project: plant one bad translation (an "answered instead of translated"
entry in the translation memory, as a careless model run would leave), then run
`babelflow flow fixture-library --lang en-XA` exactly as a user does. The CLI starts the project's
background Prefect server and ends awaiting review; the script then opens the UI that server
keeps serving (runs list, the run, its failure-report artifact). A second CLI run with
`--review-timeout` pauses at the grouped review form, which is captured open; the script answers
it and the sign-off form through the API, the CLI run ends signed, and the server is stopped.

Drives Debian's headless Chromium with Playwright (no browser download: executable_path=/usr/bin/chromium).
Needs: `apt-get install chromium` and `pip install -e ".[ui]"`. Not part of the test suite.
Usage: python scripts/ui_screenshot.py [--out docs/ui]
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import orjson

from babelflow.adapt_request import AdaptRequest

ROOT = Path(__file__).resolve().parent.parent
BABELFLOW = [sys.executable, "-m", "flows.cli.app"]
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def _user_env() -> dict[str, str]:
    """A user's shell: no Prefect or babelflow variables, the checkout's packages importable."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PREFECT_", "BABELFLOW_"))}
    return {**env, "PYTHONPATH": str(ROOT), "COLUMNS": "200"}


def _plant(project: Path) -> None:
    os.environ["BABELFLOW_PROJECT_ROOT"] = str(project)
    from babelflow.settings import BabelflowSettings
    from flows.pipeline.adapt import adapt

    planted = adapt(
        AdaptRequest.of_options("fixture-library", "en-XA"), settings=BabelflowSettings(project_root=project)
    )
    records = [orjson.loads(line) for line in planted.paths.memory.read_bytes().splitlines()]
    index = next(i for i, r in enumerate(records) if "⟦" in r["target"] and len(r["target"]) > 40)
    records[index]["target"] = "Sure! Here is the translation you asked for: " + records[index]["target"]
    planted.paths.memory.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))


AUTH: dict[str, str] = {}  # the project server's Basic credentials (its auth string), set in main()


def _api(api: str, path: str, body: dict | None = None) -> object:
    headers = {"Content-Type": "application/json", **AUTH}
    if body is not None:  # Prefect's CSRF protection is on: a POST carries a token the server issued
        csrf = _api(api, "csrf-token?client=ui-screenshot")["token"]
        headers |= {"Prefect-Csrf-Token": csrf, "Prefect-Csrf-Client": "ui-screenshot"}
    request = urllib.request.Request(
        f"{api}/{path}",
        data=json.dumps(body).encode() if body is not None else None,
        headers=headers,
        method="POST" if body is not None else "GET",
    )
    with urllib.request.urlopen(request, timeout=10) as reply:
        return json.loads(reply.read())


def _wait_paused(api: str, run_id: str, key: str, seconds: float = 300) -> None:
    deadline = time.time() + seconds
    while time.time() < deadline:
        state = _api(api, f"flow_runs/{run_id}")["state"]
        if state["type"] == "PAUSED" and key in (state.get("state_details") or {}).get("pause_key", ""):
            return
        time.sleep(0.5)
    raise SystemExit(f"flow run {run_id} did not pause at {key}")


def _latest_run_id(api: str) -> str:
    runs = _api(
        api,
        "flow_runs/filter",
        {"sort": "START_TIME_DESC", "limit": 1, "flow_runs": {"state": {"type": {"any_": ["PAUSED", "RUNNING"]}}}},
    )
    if not runs:
        raise SystemExit("no running or paused flow run found")
    return runs[0]["id"]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "ui")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    project = Path(tempfile.mkdtemp(prefix="babelflow-ui-")) / "project"
    project.mkdir()
    _plant(project)
    env = _user_env()
    try:
        first = subprocess.run(
            [*BABELFLOW, "flow", "fixture-library", "--lang", "en-XA"],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        print(first.stderr[-1500:])
        if first.returncode != 1:
            raise SystemExit(f"expected the first run to await review (exit 1), got {first.returncode}")
        server = json.loads((project / ".babelflow" / "prefect" / "server.json").read_text())
        ui, api = server["ui_url"], server["api_url"]
        secret = (project / ".babelflow" / "prefect" / "auth" / "api-auth-string").read_bytes().strip()
        AUTH["Authorization"] = "Basic " + base64.b64encode(secret).decode()
        printed = first.stdout + first.stderr
        run_url = printed[printed.index(f"{ui}/runs/flow-run/") :].split()[0]
        report_url = printed[printed.index(f"{ui}/artifacts/key/") :].split()[0]

        from playwright.sync_api import sync_playwright

        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(f"{ui}/runs", wait_until="networkidle")  # the login page the UI shows without the auth string
            page.wait_for_timeout(2000)
            page.screenshot(path=str(args.out / "login-required.png"), full_page=True)
            # logged in as a user is: the UI keeps the auth string (base64) where its login form puts it
            page.add_init_script(
                f"localStorage.setItem('prefect-password', {json.dumps(base64.b64encode(secret).decode())})"
            )
            for url, name in (
                (f"{ui}/runs", "runs-after-cli.png"),
                (run_url, "flow-run-after-cli.png"),
                (report_url, "failure-report-artifact.png"),
            ):
                page.goto(url, wait_until="networkidle")
                page.wait_for_timeout(3000)
                page.screenshot(path=str(args.out / name), full_page=True)

            # a second run that waits in the review form, as `--review-timeout` makes it do
            waiting = subprocess.Popen(
                [*BABELFLOW, "flow", "fixture-library", "--lang", "en-XA", "--review-timeout", "600"],
                cwd=project,
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
            )
            time.sleep(3)
            deadline = time.time() + 300
            run_id = None
            while run_id is None and time.time() < deadline:
                try:
                    run_id = _latest_run_id(api)
                except SystemExit:
                    time.sleep(1)
            _wait_paused(api, run_id, "review-1")
            page.goto(f"{ui}/runs/flow-run/{run_id}", wait_until="networkidle")
            page.wait_for_timeout(3000)
            page.get_by_role("button", name="Resume").first.click()
            page.wait_for_timeout(3000)
            page.screenshot(path=str(args.out / "paused-review-form.png"), full_page=True)

            from flows.review.forms import answer_for
            from flows.review.store import ReviewStore
            from validators.findings import group_findings

            queue = ReviewStore(project / ".babelflow" / "review" / "fixture-library" / "en-XA").queue()
            groups = group_findings(queue.findings)
            answer = answer_for(
                groups, "screenshot", {g.id: "confirm" for g in groups}, "answered instead of translating"
            )
            # answered through the REST API, as the UI's Resume button does
            _api(api, f"flow_runs/{run_id}/resume", {"run_input": answer})
            _wait_paused(api, run_id, "signoff")
            _api(
                api,
                f"flow_runs/{run_id}/resume",
                {
                    "run_input": {
                        "reviewer": "screenshot",
                        "read": True,
                        "note": "spot-checked",
                    }
                },
            )
            out, _ = waiting.communicate(timeout=300)
            if waiting.returncode != 0:
                raise SystemExit(f"the reviewed run did not end signed:\n{out[-2000:]}")
            page.goto(f"{ui}/runs/flow-run/{run_id}", wait_until="networkidle")
            page.wait_for_timeout(3000)
            page.screenshot(path=str(args.out / "signed-run-after-review.png"), full_page=True)
            browser.close()
        print(f"wrote {', '.join(sorted(p.name for p in args.out.glob('*.png')))} to {args.out}")
    finally:
        subprocess.run([*BABELFLOW, "server", "--stop"], cwd=project, env=env, timeout=60)


if __name__ == "__main__":
    main()
