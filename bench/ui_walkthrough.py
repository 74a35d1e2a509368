"""Issue 25's browser walk-through: a reviewer works in the Prefect UI of the project's own server.

In a fresh temporary project, with the `babelflow` CLI as a user runs it:
1. ar-XB, unattended: no findings -> the run ends AwaitingSignoff;
2. en-XA with one planted bad translation (a model that answered instead of translating), unattended:
   the run ends AwaitingReview;
3. en-XA again with `--review-timeout`: the run pauses at the review form. In Chromium at 1,280 px the
   script reads the review material (asserts the page does not scroll sideways), opens the form through
   the UI's Resume button, confirms the group and types a replacement text, and submits it;
4. the next round applies the replacement (asserted in the variant's files) and pauses at sign-off: the
   sample artifact shows the sampled units side by side (asserted: no sideways scroll); in the sign-off
   form every unit passes, the run ends Signed;
5. ar-XB is signed in the CLI (`review --sign --yes`): its run, ended AwaitingSignoff, reads Signed, and an
   unchanged rerun stays Signed;
6. tau2-retail es (Apertium drafts, the main job's variant) first pauses at its doubtful terms
   (AwaitingTermReview): the terms table is read at 1,280 px (no sideways scroll) and two renderings are
   approved in the form; then at its findings (the English words Apertium had no entry for, one group),
   which the reviewer dismisses with a note; then it pauses at sign-off; in the UI 30% of its
   sample (rounded up) is failed, two units with an MQM category and severity: the run ends
   SignoffRejected, and the failed units are `babelflow units --failing`'s work list. Every link of the
   sample artifact and the sign-off form is asserted visible at 1,280 px;
7. the runs list shows each run's name (benchmark · language) and named state.

Screenshots go to docs/ui/ (names below); the server is stopped at the end. Prints one JSON line:
the duration and what each screenshot shows.

Needs Debian's chromium (/usr/bin/chromium) and Playwright (`pip install -e ".[ui]"`).
Usage: python bench/ui_walkthrough.py [--out docs/ui]
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import orjson

from babelflow.adapt_request import AdaptRequest
from source_benchmarks.yaml_io import string_leaves

ROOT = Path(__file__).resolve().parent.parent
BABELFLOW = [sys.executable, "-m", "flows.cli.app"]
BENCHMARK = "fixture-library"
WIDTH = 1280
PLANTED = "Sure! Here is the translation you asked for: "
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
    return {**env, "PYTHONPATH": str(ROOT), "COLUMNS": "200", "DO_NOT_TRACK": "1"}


def _plant(project: Path) -> None:
    """Adapt offline, then leave one 'answered instead of translated' entry in the memory."""
    from babelflow.settings import BabelflowSettings
    from flows.pipeline.adapt import adapt

    planted = adapt(AdaptRequest.of_options(BENCHMARK, "en-XA"), settings=BabelflowSettings(project_root=project))
    records = [orjson.loads(line) for line in planted.paths.memory.read_bytes().splitlines()]
    index = next(i for i, r in enumerate(records) if "⟦" in r["target"] and len(r["target"]) > 40)
    records[index]["target"] = PLANTED + records[index]["target"]
    planted.paths.memory.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))


class Api:
    def __init__(self, project: Path):
        server = json.loads((project / ".babelflow" / "prefect" / "server.json").read_text())
        self.ui, self.api = server["ui_url"], server["api_url"]
        self.secret = (project / ".babelflow" / "prefect" / "auth" / "api-auth-string").read_bytes().strip()
        self.auth = {"Authorization": "Basic " + base64.b64encode(self.secret).decode()}

    def call(self, path: str, body: dict | None = None) -> object:
        headers = {"Content-Type": "application/json", **self.auth}
        if body is not None:  # Prefect's CSRF protection is on: a POST carries a token the server issued
            csrf = self.call("csrf-token?client=ui-walkthrough")["token"]  # type: ignore[index]
            headers |= {"Prefect-Csrf-Token": csrf, "Prefect-Csrf-Client": "ui-walkthrough"}
        request = urllib.request.Request(
            f"{self.api}/{path}",
            data=json.dumps(body).encode() if body is not None else None,
            headers=headers,
            method="POST" if body is not None else "GET",
        )
        with urllib.request.urlopen(request, timeout=10) as reply:
            return json.loads(reply.read())

    def paused_run(self, key: str, seconds: float = 300) -> str:
        """The id of the flow run paused at a pause key starting with `key`."""
        return self.paused_at((key,), seconds)[0]

    def paused_at(
        self, keys: tuple[str, ...], seconds: float = 300, seen: frozenset[str] = frozenset()
    ) -> tuple[str, str]:
        """(run id, pause key) of the flow run paused at a key starting with one of `keys`, not in `seen`."""
        deadline = time.time() + seconds
        while time.time() < deadline:
            runs = self.call("flow_runs/filter", {"flow_runs": {"state": {"type": {"any_": ["PAUSED"]}}}, "limit": 5})
            for run in runs:  # type: ignore[union-attr]
                key = (run["state"].get("state_details") or {}).get("pause_key", "")
                if key.startswith(keys) and key not in seen:
                    return run["id"], key
            time.sleep(0.5)
        raise SystemExit(f"no flow run paused at {' or '.join(keys)}")

    def states_of(self, name: str) -> list[str]:
        """The state names of the flow runs called `name`, oldest first."""
        runs = self.call("flow_runs/filter", {"sort": "START_TIME_ASC", "limit": 50})
        return [r["state"]["name"] for r in runs if r["name"] == name]  # type: ignore[union-attr,index]

    def artifact_id(self, key: str) -> str:
        """The latest version's id (the collection's own id opens no artifact page: 404)."""
        query = {"artifacts": {"key": {"any_": [key]}}, "sort": "CREATED_DESC", "limit": 1}
        found = self.call("artifacts/filter", query)
        return found[0]["id"]  # type: ignore[index]


def _flow(project: Path, language: str, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*BABELFLOW, "flow", BENCHMARK, "--lang", language, *extra],
        cwd=project,
        env=_user_env(),
        capture_output=True,
        text=True,
        timeout=600,
    )


def _open_artifact(page, url: str, heading: str) -> None:
    """An artifact page, once its Markdown is drawn (an empty page would pass the width check)."""
    page.goto(url, wait_until="networkidle")
    page.get_by_text(heading).first.wait_for(timeout=30_000)
    page.wait_for_timeout(1000)


def logged_in_page(pw, api: Api):
    """(browser, page): Chromium at 1,280 px, logged in as a user is: the UI keeps the auth string (base64)
    where its login form puts it."""
    browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
    page = browser.new_page(viewport={"width": WIDTH, "height": 900})
    page.add_init_script(
        f"localStorage.setItem('prefect-password', {json.dumps(base64.b64encode(api.secret).decode())})"
    )
    return browser, page


def _no_sideways_scroll(page) -> dict:
    sizes = page.evaluate(
        "() => ({scrollWidth: document.documentElement.scrollWidth, clientWidth: document.documentElement.clientWidth})"
    )
    if sizes["scrollWidth"] > sizes["clientWidth"]:
        raise SystemExit(f"{page.url} scrolls sideways at {WIDTH} px: {sizes}")
    return sizes


def _no_table_scroll(page) -> None:
    """No table of the page is wider than the space it is drawn in (a table can scroll inside its box while
    the page itself does not)."""
    wide = page.evaluate(
        """() => [...document.querySelectorAll('table')]
          .filter(t => t.getBoundingClientRect().width > 0)
          .map(t => {
            let box = t.parentElement;  // the nearest block around it (an inline parent measures 0)
            while (box && box.clientWidth === 0) box = box.parentElement;
            return {width: t.scrollWidth, room: box ? box.clientWidth : 0, inside: box ? box.scrollWidth : 0,
                    right: t.getBoundingClientRect().right, view: window.innerWidth};
          })
          .filter(t => t.width > t.room + 1 || t.inside > t.room + 1 || t.right > t.view)"""
    )
    if wide:
        cells = page.evaluate(
            """() => [...document.querySelectorAll('td')]
              .map(c => ({width: c.scrollWidth, text: c.innerText.slice(0, 120)}))
              .sort((a, b) => b.width - a.width).slice(0, 3)"""
        )
        raise SystemExit(f"{page.url}: a table is wider than its box at {WIDTH} px: {wide[:3]}; widest cells: {cells}")


def _shot(page, out: Path, name: str, shown: dict[str, str], what: str, full: bool = True) -> None:
    page.screenshot(path=str(out / name), full_page=full)
    shown[name] = what


def walk(out: Path) -> dict:
    started = time.perf_counter()
    out.mkdir(parents=True, exist_ok=True)
    project = Path(tempfile.mkdtemp(prefix="babelflow-walk-")) / "project"
    project.mkdir()
    os.environ["BABELFLOW_PROJECT_ROOT"] = str(project)
    shown: dict[str, str] = {}
    checks: dict[str, object] = {}
    waiting: subprocess.Popen | None = None
    try:
        clean = _flow(project, "ar-XB")  # starts the project's server; no findings
        if clean.returncode != 0:
            raise SystemExit(f"ar-XB: expected awaiting sign-off (exit 0), got {clean.returncode}\n{clean.stderr}")
        _plant(project)
        unattended = _flow(project, "en-XA")
        if unattended.returncode != 1:
            raise SystemExit(f"en-XA: expected awaiting review (exit 1), got {unattended.returncode}")
        api = Api(project)
        waiting = subprocess.Popen(
            [*BABELFLOW, "flow", BENCHMARK, "--lang", "en-XA", "--review-timeout", "600"],
            cwd=project,
            env=_user_env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        run_id = api.paused_run("review-1")
        checks["review_paused_s"] = round(time.perf_counter() - started, 1)
        from playwright.sync_api import sync_playwright

        with sync_playwright() as pw:
            browser, page = logged_in_page(pw, api)
            page.set_viewport_size({"width": WIDTH, "height": 1100})  # the runs list: every run in view
            page.goto(f"{api.ui}/runs", wait_until="networkidle")
            page.wait_for_timeout(2500)
            # the paused run names what it waits for (PAUSED type, grey), the ended one too (FAILED, red)
            named = page.get_by_text("AwaitingReview", exact=True).count()
            assert named == 2, f"{named} runs read AwaitingReview (expected the paused and the ended one)"
            _shot(
                page,
                out,
                "walk-1-runs-paused.png",
                shown,
                "runs list: en-XA AwaitingReview (paused at the form), en-XA AwaitingReview (ended), ar-XB"
                " AwaitingSignoff",
            )

            page.set_viewport_size({"width": WIDTH, "height": 900})
            material = api.artifact_id("fixture-library-en-xa-review")
            _open_artifact(page, f"{api.ui}/artifacts/artifact/{material}", "Review fixture-library")
            checks["review_material"] = {**_no_sideways_scroll(page), "links_visible": _links_visible(page)}
            report = api.artifact_id("fixture-library-en-xa-failure-report")
            _open_artifact(page, f"{api.ui}/artifacts/artifact/{report}", "open findings in")
            # the report links the variant folder
            checks["failure_report"] = {**_no_sideways_scroll(page), "links_visible": _links_visible(page, at_least=1)}
            _open_artifact(page, f"{api.ui}/artifacts/artifact/{material}", "Review fixture-library")
            # the reviewer's text: the draft without the model's chatter, one word post-edited ("novel" ->
            # "book"); it keeps the canonical term, so it passes the same checks as any translation
            draft = page.locator("td").filter(has_text=PLANTED).first.inner_text().replace("\u200b", "")
            replacement = draft.removeprefix(PLANTED).replace("ñöṽéļ", "ƀööķ")
            checks["replacement"] = replacement
            _shot(
                page,
                out,
                "walk-2-review-material.png",
                shown,
                "review material: group 1, source | target wrapped side by side, context, checks",
            )

            page.goto(f"{api.ui}/runs/flow-run/{run_id}", wait_until="networkidle")
            page.wait_for_timeout(2500)
            _shot(
                page,
                out,
                "walk-3-paused-run.png",
                shown,
                "the paused run: task runs named '<stage>[:<layer>] · en-XA'",
                full=False,
            )
            page.get_by_role("button", name="Resume").first.click()
            page.wait_for_timeout(2500)
            try:
                _fill_review_form(page, replacement)
            except Exception:  # any failure filling the form: keep the page for the report, then re-raise
                Path("/tmp/ui_walk_form.html").write_text(page.content())
                page.screenshot(path="/tmp/ui_walk_form.png", full_page=True)
                print("the review form failed: its page is kept in /tmp/ui_walk_form.html and .png", file=sys.stderr)
                raise
            _shot(page, out, "walk-4-review-form.png", shown, "review form: decisions only, a replacement typed")
            _submit(page)

            signoff_run = api.paused_run("signoff")
            variant = project / "adapted" / BENCHMARK / "en-XA"
            applied = [
                str(p.relative_to(variant))
                for p in variant.rglob("*.json")
                if any(replacement in text for _, text in string_leaves(orjson.loads(p.read_bytes())))
            ]
            if not applied:
                raise SystemExit("the replacement typed in the review form is in no file of the variant")
            checks["replacement_applied_in"] = applied
            sample = api.artifact_id("fixture-library-en-xa-signoff-sample")
            _open_artifact(page, f"{api.ui}/artifacts/artifact/{sample}", "Sign-off sample")
            checks["signoff_sample"] = {**_no_sideways_scroll(page), "links_visible": _links_visible(page)}
            _shot(page, out, "walk-5-signoff-sample.png", shown, "sign-off sample: units side by side by stratum")

            _open_form(page, api, signoff_run)
            _tick(page, "I read every sampled unit")
            _shot(page, out, "walk-6-signoff-form.png", shown, "sign-off form: the sample's link, every unit passes")
            _submit(page)
            output, _ = waiting.communicate(timeout=300)
            if waiting.returncode != 0:
                raise SystemExit(f"the reviewed run did not end signed:\n{output[-2000:]}")

            # ar-XB signed in the CLI: its run (ended AwaitingSignoff) reads Signed; an unchanged rerun stays Signed
            signed = _cli(project, "review", BENCHMARK, "--lang", "ar-XB", "--sign", "--reviewer", "ana", "--yes")
            if signed.returncode != 0:
                raise SystemExit(f"ar-XB: the CLI sign-off failed ({signed.returncode}):\n{signed.stdout[-1500:]}")
            rerun = _flow(project, "ar-XB")
            if rerun.returncode != 0:
                raise SystemExit(f"ar-XB: the unchanged rerun did not stay signed ({rerun.returncode})")
            states = api.states_of(f"{BENCHMARK} · ar-XB")
            if states != ["Signed", "Signed"]:  # the run that waited, marked by the CLI; the unchanged rerun
                raise SystemExit(f"ar-XB runs read {states} after the CLI sign-off and the rerun")
            checks["ar_xb_after_cli_signoff"] = states

            # es retail (Apertium drafts), as the main job makes it: a careful reviewer fails >= 30% of the sample
            rejected, failed_units = _reject_es_retail(project, api, page, out, shown)
            checks["es_retail_rejected"] = {"failed": len(failed_units), **rejected}

            page.set_viewport_size({"width": WIDTH, "height": 1100})
            page.goto(f"{api.ui}/runs", wait_until="networkidle")
            page.wait_for_timeout(3000)
            for state in ("Signed", "SignoffRejected"):
                if not page.get_by_text(state, exact=True).count():
                    raise SystemExit(f"the runs list shows no run in state {state}")
            _shot(
                page,
                out,
                "walk-9-runs-states.png",
                shown,
                "runs list: tau2-retail es SignoffRejected; en-XA Signed (form); ar-XB Signed (CLI sign-off, then an"
                " unchanged rerun); en-XA AwaitingReview",
            )
            browser.close()
        runs = api.call("flow_runs/filter", {"sort": "START_TIME_ASC", "limit": 10})
        checks["runs"] = [f"{r['name']}: {r['state']['name']}" for r in runs]  # type: ignore[union-attr]
    finally:
        if waiting is not None and waiting.poll() is None:
            waiting.kill()  # only when the walk failed before the run ended
        subprocess.run([*BABELFLOW, "server", "--stop"], cwd=project, env=_user_env(), timeout=60)
    return {"seconds": round(time.perf_counter() - started, 1), "screenshots": shown, **checks}


def _cli(project: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*BABELFLOW, *args], cwd=project, env=_user_env(), capture_output=True, text=True, timeout=600
    )


def _reject_es_retail(project: Path, api: Api, page, out: Path, shown: dict[str, str]) -> tuple[dict, list[str]]:
    """tau2-retail es paused at its sign-off form; in the UI, 30% of the sampled units (rounded up) are
    failed, two with an MQM category and severity; the run must end SignoffRejected (exit 1) and the failed
    units must be the work list (`babelflow units --failing`)."""
    waiting = subprocess.Popen(
        [*BABELFLOW, "flow", "tau2-retail", "--lang", "es", "--review-timeout", "900"],
        cwd=project,
        env=_user_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        _review_es_terms(project, api, page, out, shown)
        dismissed = _review_es_findings(api, page, out, shown)
        later_terms: list[str] = []
        try:
            # the next round may ask terms its retranslation made doubtful anew: the walk's reviewer skips them
            while (paused := api.paused_at(("signoff", "terms-"), 900, frozenset(later_terms)))[1].startswith("terms-"):
                later_terms.append(paused[1])
                _skip_terms_form(api, page, paused[0])
            run_id = paused[0]
        except SystemExit as exc:  # the run's own words say where it went instead
            waiting.kill()
            raise SystemExit(f"{exc}; the es retail run printed:\n{waiting.communicate()[0][-3000:]}") from None
        page.set_viewport_size({"width": WIDTH, "height": 900})
        sample = api.artifact_id("tau2-retail-es-signoff-sample")
        _open_artifact(page, f"{api.ui}/artifacts/artifact/{sample}", "Sign-off sample")
        _no_sideways_scroll(page)
        _links_visible(page)
        page.goto(f"{api.ui}/runs/flow-run/{run_id}", wait_until="networkidle")
        page.wait_for_timeout(2500)
        page.get_by_role("button", name="Resume").first.click()
        # the form's description (the plan and the sample's link) loads after the dialog opens
        page.locator(".p-modal a[href*='/artifacts/artifact/']").first.wait_for(timeout=30_000)
        links = _links_visible(page, at_least=1)  # the form's description links the sample
        _property(page, "Your name").locator("textarea").fill("walkthrough")
        numbered = (
            re.match(r"^\d+\. [0-9a-f]{12}", t.strip())
            for t in page.locator(".schema-form-property__label").all_inner_texts()
        )
        titles = [m.group() for m in numbered if m]  # "12. 0c35c682fd0e (Optional)": the unit's own title
        failing = titles[: -(-len(titles) * 3 // 10)]  # ceil(30%)
        labelled = {0: ("fluency", "minor"), 1: ("terminology", "major")}  # the rest: read as major accuracy
        for number, title in enumerate(failing):
            _choose(page, title, "fail")
            if number in labelled:
                category, severity = labelled[number]
                unit = titles.index(title)
                _choose_field(page, _properties(page, "MQM category if it fails").nth(unit), category)
                _choose_field(page, _properties(page, "severity if it fails").nth(unit), severity)
        _tick(page, "I read every sampled unit")
        _shot(
            page,
            out,
            "walk-8-signoff-rejecting.png",
            shown,
            f"sign-off form, es retail: {len(failing)} of {len(titles)} units failed",
        )
        _submit(page)
        output, _ = waiting.communicate(timeout=600)
    finally:
        if waiting.poll() is None:
            waiting.kill()
    if waiting.returncode != 1 or "SignoffRejected" not in output and "signoff_rejected" not in output:
        raise SystemExit(f"es retail: expected SignoffRejected (exit 1), got {waiting.returncode}:\n{output[-2000:]}")
    work = _cli(project, "units", "tau2-retail", "--lang", "es", "--failing", "--limit", "0")
    keys = [t.split(". ", 1)[1] for t in failing]
    missing = [k for k in keys if k not in work.stdout]
    if missing:
        raise SystemExit(f"failed sample units missing from `units --failing`: {missing[:5]}\n{work.stdout[-1500:]}")
    return {
        "findings_dismissed": dismissed,
        "terms_forms_after_the_findings": later_terms,
        "sample": len(titles),
        "links_in_form": links,
        "runs": api.states_of("tau2-retail · es"),
    }, keys


def _open_form(page, api: Api, run_id: str) -> None:
    """Open a paused run's form through the UI's Resume button and sign it with the walk's name."""
    page.goto(f"{api.ui}/runs/flow-run/{run_id}", wait_until="networkidle")
    page.wait_for_timeout(2500)
    page.get_by_role("button", name="Resume").first.click()
    page.wait_for_timeout(2500)
    _property(page, "Your name").locator("textarea").fill("walkthrough")


def _skip_terms_form(api: Api, page, run_id: str) -> None:
    """A later round's terms form, submitted as it opens: every term skipped (asked again by `babelflow terms`)."""
    _open_form(page, api, run_id)
    _no_sideways_scroll(page)
    _submit(page)


def _review_es_findings(api: Api, page, out: Path, shown: dict[str, str]) -> str:
    """After its terms, es retail pauses at the findings review: one group, the English words Apertium had no
    entry for ('outgoing', 'messy'). The material is read at 1,280 px; in the form the reviewer dismisses the
    group with a note (they are the sign-off's work: its failed units are the list to correct), so the run
    goes on to the sign-off. Returns the group's title as the form shows it."""
    run_id = api.paused_run("review-1", seconds=900)
    page.set_viewport_size({"width": WIDTH, "height": 900})
    material = api.artifact_id("tau2-retail-es-review")
    _open_artifact(page, f"{api.ui}/artifacts/artifact/{material}", "Review tau2-retail")
    _no_sideways_scroll(page)
    _links_visible(page)
    _open_form(page, api, run_id)
    groups = [
        t.strip() for t in page.locator(".schema-form-property__label").all_inner_texts() if re.match(r"^\d+\. ", t)
    ]
    english = [t for t in groups if "source_words_left" in t]
    if not english:
        raise SystemExit(f"es retail's review form has no group of English words left: {groups}")
    title = english[0].split(" (Optional)")[0]
    _choose(page, title, "dismiss")
    _property(page, "note").first.locator("textarea").fill("Apertium drafts: corrected with the sign-off's work list")
    _no_sideways_scroll(page)
    _shot(page, out, "walk-7c-findings-form.png", shown, f"findings form, es retail: '{title}' dismissed with a note")
    _submit(page)
    return title


def _review_es_terms(project: Path, api: Api, page, out: Path, shown: dict[str, str]) -> None:
    """es retail first pauses at its terms (AwaitingTermReview): the doubtful renderings' table is read at
    1,280 px (no sideways scroll), and the form approves the two most doubtful option values."""
    from flows.review.terms_review import form_pages, in_form_order  # noqa: PLC0415
    from translators.terms.term_base import load_term_base  # noqa: PLC0415

    run_id = api.paused_run("terms-1", seconds=900)
    doubtful = in_form_order(load_term_base(project / ".babelflow" / "terms" / "tau2-retail" / "es.json").doubtful())
    page.set_viewport_size({"width": WIDTH, "height": 900})
    table = api.artifact_id("tau2-retail-es-terms")
    _open_artifact(page, f"{api.ui}/artifacts/artifact/{table}", "Terms of tau2-retail")
    _no_sideways_scroll(page)
    _no_table_scroll(page)
    _shot(
        page, out, "walk-7-terms-table.png", shown, f"es retail terms: {len(doubtful)} doubtful renderings, why, where"
    )
    first = 1
    for page_no, entries in enumerate(form_pages(doubtful), start=1):  # one form per class
        if page_no > 1:
            run_id = api.paused_run(f"terms-1-{page_no}", seconds=300)
        _open_form(page, api, run_id)
        for number, entry in enumerate(entries[:2], start=first):  # the class's two most doubtful
            _choose(page, f"{number}. {entry.group}: {entry.source} →", "approve")
        first += len(entries)
        _no_sideways_scroll(page)
        if page_no == 1:
            _shot(page, out, "walk-7b-terms-form.png", shown, f"terms form, {entries[0].group}: two approved")
        _submit(page)


def _links_visible(page, at_least: int = 0) -> int:
    """Every link of the page's Markdown (artifacts, form descriptions) and of an open form is drawn,
    inside the 1,280 px, visible, and not in its background's colour; returns how many there are."""
    links = page.evaluate(
        """() => [...document.querySelectorAll('a.markdown-renderer__link[href], .p-modal a[href]')]
          .filter(a => a.textContent.trim())
          .map(a => {
            const r = a.getBoundingClientRect(), s = getComputedStyle(a);
            let el = a, bg = 'rgba(0, 0, 0, 0)';
            while (el && (bg === 'rgba(0, 0, 0, 0)' || bg === 'transparent')) {
              bg = getComputedStyle(el).backgroundColor; el = el.parentElement;
            }
            return {text: a.textContent.trim().slice(0, 40), width: r.width, right: r.right,
                    color: s.color, background: bg, visibility: s.visibility, opacity: s.opacity};
          })"""
    )
    hidden = [
        link
        for link in links
        if link["width"] == 0
        or link["right"] > WIDTH
        or link["color"] == link["background"]
        or link["visibility"] != "visible"
        or float(link["opacity"]) < 0.5
    ]
    if hidden:
        raise SystemExit(f"{page.url}: links not visible at {WIDTH} px: {hidden[:3]}")
    if len(links) < at_least:
        raise SystemExit(f"{page.url}: {len(links)} links drawn, expected at least {at_least}")
    return len(links)


def _property(page, label: str):
    """A field of Prefect's run-input form, by the start of its title (the form's labels are not
    tied to their inputs, so Playwright's get_by_label finds nothing)."""
    title = page.locator(".schema-form-property__label").filter(has_text=label).first
    return page.locator(".schema-form-property").filter(has=title).first


def _properties(page, label: str):
    """Every field of the form whose title starts with `label` (the per-unit fields share titles)."""
    title = page.locator(".schema-form-property__label").filter(has_text=label)
    return page.locator(".schema-form-property").filter(has=title)


def _choose(page, label: str, option: str) -> None:
    """Pick a value of Prefect's select (a button that opens a pop-over of options)."""
    _choose_field(page, _property(page, label), option, label)


def _choose_field(page, field, option: str, label: str = "") -> None:
    field.scroll_into_view_if_needed()
    options = page.locator(".p-select-option").filter(has_text=re.compile(rf"^\s*{option}\s*$"))
    opens = (
        lambda: field.locator(".p-select-button").click(),
        lambda: field.locator("button.p-select-button__control").press("Enter"),
        lambda: field.locator("button.p-select-button__control").press("Space"),
        lambda: field.locator("button.p-select-button__control").press("ArrowDown"),
    )
    for open_it in opens:
        open_it()
        page.wait_for_timeout(700)
        if options.count():
            options.first.click()
            return
    Path("/tmp/ui_walk_select.html").write_text(page.content())
    raise SystemExit(f"the form's select {label!r} shows no option {option!r}")


def _submit(page) -> None:
    """Submit the resume form and wait for it to close (a loaded machine once lost a click)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout  # noqa: PLC0415 - optional [ui] extra

    dialog = page.get_by_text("Resume Flow Run").first
    for _ in range(3):
        page.get_by_role("button", name="Submit").last.click()
        try:
            dialog.wait_for(state="hidden", timeout=15_000)
            return
        except PlaywrightTimeout:  # a click lost under load: click again
            continue
    raise SystemExit("the resume form did not close after Submit")


def _tick(page, label: str) -> None:
    """Switch a yes/no field on (Prefect draws a bool as a checkbox or a toggle)."""
    field = _property(page, label)
    box = field.locator("input[type=checkbox]").first
    if box.count():
        box.dispatch_event("click")  # Prefect's toggle hides the input under its own drawing
        if box.is_checked():
            return
    for selector in (".p-toggle", ".p-checkbox", "[role=switch]", "[role=checkbox]"):
        if field.locator(selector).count():
            field.locator(selector).first.click()
            return
    Path("/tmp/ui_walk_signoff.html").write_text(page.content())
    raise SystemExit(f"the form's field {label!r} has no checkbox or toggle")


def _fill_review_form(page, replacement: str) -> None:
    """Group 1 (the planted finding): confirm, with the reviewer's text as its replacement."""
    _property(page, "Your name").locator("textarea").fill("walkthrough")
    _choose(page, "1. fidelity/answered_not_translated", "confirm")
    _property(page, "note").locator("textarea").fill("the model answered; my translation instead")
    _property(page, "replacement").locator("textarea").fill(replacement)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "ui")
    args = parser.parse_args()
    print(json.dumps(walk(args.out), ensure_ascii=False))


if __name__ == "__main__":
    main()
