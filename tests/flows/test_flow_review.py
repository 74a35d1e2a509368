"""End to end through Prefect: planted defect → paused review form → confirm via the API → fix
round retranslates one segment and revalidates only affected tasks → empty → signed.
A dismissed false alarm is not raised again. Unchanged reruns execute no stage."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import orjson
import pytest

from babelflow.adapt_request import AdaptRequest, ReviewPolicy
from babelflow.settings import BabelflowSettings
from validators.findings import group_findings

pytestmark = pytest.mark.slow  # every test here runs the Prefect flow through a test server


@pytest.fixture(scope="module")
def prefect_env(tmp_path_factory, prefect_harness):
    home = tmp_path_factory.mktemp("prefect")

    # task results stay in this module's temp folder, and the variable is restored afterwards
    with pytest.MonkeyPatch.context() as env:
        env.setenv("PREFECT_LOCAL_STORAGE_PATH", str(home / "storage"))
        with prefect_harness():  # the session's Prefect test server (tests/conftest.py)
            yield home


def _plant(project: Path, benchmark: str, mutate) -> str:
    """Adapt once offline, then corrupt one stored translation (as a bad earlier model run would)."""
    from flows.pipeline.adapt import adapt

    result = adapt(AdaptRequest.of_options(benchmark, "en-XA"), settings=BabelflowSettings(project_root=project))
    memory = result.paths.memory
    lines = memory.read_bytes().splitlines()
    records = [orjson.loads(line) for line in lines]
    index = next(i for i, r in enumerate(records) if "⟦" in r["target"] and len(r["target"]) > 40)
    records[index]["target"] = mutate(records[index]["target"])
    memory.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))
    return records[index]["target"]


def _wait_paused(store, deadline: float) -> str:
    from prefect.client.orchestration import get_client

    with get_client(sync_client=True) as client:
        while time.time() < deadline:
            run_id = store.flow_run_id()
            state = client.read_flow_run(run_id).state if run_id else None
            if state is not None and state.is_paused():
                assert state.name in ("AwaitingReview", "AwaitingSignoff"), state.name  # what it waits for
                return run_id
            time.sleep(0.5)
    raise AssertionError("flow never paused")


def _run_in_thread(request: AdaptRequest):
    """The run's AdaptFlowResult in box["result"], whatever its final state (a Failed-type one included)."""
    from flows.pipeline.prefect_flows import adapt_language, outcome

    box: dict = {}

    def run() -> None:
        box["result"] = outcome(adapt_language(request, return_state=True))

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, box


def _store(project: Path, benchmark: str):
    from flows.review.store import ReviewStore

    return ReviewStore(BabelflowSettings(project_root=project).layout.review_dir(benchmark, "en-XA"))


@pytest.mark.parametrize("benchmark", ["fixture-library", "tau2-mock"])
def test_confirmed_finding_is_fixed_and_the_variant_signed(benchmark, prefect_env, tmp_path):
    from prefect.flow_runs import resume_flow_run

    from flows.pipeline.prefect_flows import adapt_language
    from flows.review.forms import answer_for

    _plant(tmp_path, benchmark, lambda text: "Sure! Here is the translation you asked for: " + text)
    store = _store(tmp_path, benchmark)
    thread, box = _run_in_thread(
        AdaptRequest(benchmark=benchmark, language="en-XA", project_root=tmp_path, review=ReviewPolicy(timeout=120))
    )
    run_id = _wait_paused(store, time.time() + 120)
    queue = store.queue()
    tasks_file = next((tmp_path / "adapted" / benchmark / "en-XA").rglob("tasks.json"))
    round_one_tasks = {t["id"]: t for t in orjson.loads(tasks_file.read_bytes())}
    answered = [f for f in queue.findings if f.kind == "answered_not_translated"]
    assert answered and answered[0].element_id, [f.kind for f in queue.findings]
    groups = group_findings(queue.findings)  # the form asks one decision per group of findings
    confirmed = {g.id: "confirm" for g in groups if g.kind == "answered_not_translated"}
    answer = answer_for(groups, "ana", confirmed, note="the model answered instead of translating")
    resume_flow_run(run_id, run_input=answer)
    _wait_paused(store, time.time() + 120)  # the sign-off form, after a clean fix round
    resume_flow_run(
        store.flow_run_id(),
        run_input={"reviewer": "ana", "read": True, "note": "spot-checked"},
    )
    thread.join(180)
    result = box["result"]
    assert result.status == "signed"
    first, second = result.rounds
    assert first.findings >= 1 and second.findings == 0
    assert second.segments_sent == 1  # only the confirmed text went back to the translator (for its units)
    assert 1 <= second.retranslated_units <= 2
    changed = [t["id"] for t in orjson.loads(tasks_file.read_bytes()) if t != round_one_tasks[t["id"]]]
    assert second.tasks_replayed == len(changed) < len(round_one_tasks)  # only the affected tasks were revalidated
    assert {s.stage: s.cached for s in second.stages}["analyze"] is True
    decisions_logged = store.decisions()
    assert [(d.finding_id, d.decision, d.reviewer) for d in decisions_logged] == [
        (answered[0].id, "confirm", "ana")
    ] + [(f.id, "confirm", "ana") for f in answered[1:]]
    assert all(d.at and d.note for d in decisions_logged)
    signoff = orjson.loads((result.variant_dir / "babelflow_signoff.json").read_bytes())
    assert signoff["reviewer"] == "ana" and signoff["decisions"] == len(decisions_logged) and signoff["variant_files"]
    # the flow's sign-off records the sample and the translator's tier, as `babelflow review --sign` does
    assert signoff["tier"] == "pseudo" and signoff["sample"]["sample_size"] >= 1 and signoff["sample"]["units"]

    assert signoff["outcome"]["accepted"] and signoff["outcome"]["failing"] == 0
    assert len(signoff["verdicts"]) == len(signoff["sample"]["units"])

    # an unchanged rerun executes no stage and stays signed
    again = adapt_language(AdaptRequest(benchmark=benchmark, language="en-XA", project_root=tmp_path))
    assert all(stage.cached for stage in again.rounds[0].stages), again.rounds[0].stages
    assert again.status == "signed"


def test_dismissed_false_alarm_is_not_raised_again(prefect_env, tmp_path):
    from prefect.flow_runs import resume_flow_run

    from flows.pipeline.prefect_flows import adapt_language
    from flows.review.forms import answer_for

    benchmark = "fixture-library"
    # a verbose but correct translation: the length-ratio check flags it, the reviewer disagrees
    _plant(tmp_path, benchmark, lambda text: text.rstrip("]") + " " + " ".join(["ŵéļļ"] * 60) + "]")
    store = _store(tmp_path, benchmark)
    thread, box = _run_in_thread(
        AdaptRequest(benchmark=benchmark, language="en-XA", project_root=tmp_path, review=ReviewPolicy(timeout=120))
    )
    run_id = _wait_paused(store, time.time() + 120)
    queue = store.queue()
    assert [f.kind for f in queue.findings] == ["length_ratio_outlier"]
    (group,) = group_findings(queue.findings)
    resume_flow_run(
        run_id,
        run_input=answer_for([group], "bo", {group.id: "dismiss"}, note="verbose but faithful"),
    )
    _wait_paused(store, time.time() + 120)
    resume_flow_run(store.flow_run_id(), run_input={"reviewer": "bo", "read": False, "note": "tomorrow"})
    thread.join(180)
    assert box["result"].status == "awaiting_signoff" and box["result"].rounds[-1].findings == 0
    from flows.review.signoff_log import SignoffLog

    logged = SignoffLog(store.folder).entries()  # not deciding is babelflow's record too, with its note
    assert [(e.decision, e.reviewer, e.note) for e in logged] == [("deferred", "bo", "tomorrow")]
    # a fresh run (no pause) does not raise it again, and the dismissal is in the log
    again = adapt_language(AdaptRequest(benchmark=benchmark, language="en-XA", project_root=tmp_path))
    assert again.open_findings == [] and again.status == "awaiting_signoff"
    assert [(d.decision, d.reviewer, d.note) for d in store.decisions()] == [("dismiss", "bo", "verbose but faithful")]


def test_a_sample_the_form_fails_ends_signoff_rejected_and_queues_its_units(prefect_env, tmp_path):
    from prefect.client.orchestration import get_client
    from prefect.flow_runs import resume_flow_run

    from flows.pipeline.prefect_flows import adapt_language, outcome
    from flows.review.signoff_log import SignoffLog

    benchmark = "fixture-library"
    store = _store(tmp_path, benchmark)
    thread, box = _run_in_thread(
        AdaptRequest(benchmark=benchmark, language="en-XA", project_root=tmp_path, review=ReviewPolicy(timeout=120))
    )
    run_id = _wait_paused(store, time.time() + 120)  # clean: straight to the sign-off form
    # the paused run keeps the run lock, yet a correction may write while the form waits
    from typer.testing import CliRunner

    from flows.cli.app import app
    from flows.review.signoff_sample import sign_sample
    from flows.review.workbench import Workbench

    settings = BabelflowSettings(project_root=tmp_path)
    first = sign_sample(Workbench.of_variant(settings, benchmark, "en-XA")).units[0]
    args = ["correct", benchmark, "--lang", "en-XA", "--id", first.unit_key, "--text", first.target + " ŕéṽîšéð"]
    corrected = CliRunner().invoke(app, [*args, "--force"], env={"BABELFLOW_PROJECT_ROOT": str(tmp_path)})
    assert corrected.exit_code == 0 and "waits at its sign-off form" in " ".join(corrected.output.split())
    answer = {"reviewer": "cy", "read": True, "note": "six wrong"}
    answer |= {f"unit_{n}": "fail" for n in range(1, 7)}  # lot 140 at AQL 10 (pseudo): n 20, Ac 5, Re 6
    answer |= {"unit_1_category": "accuracy", "unit_1_severity": "major"}
    resume_flow_run(run_id, run_input=answer)
    thread.join(180)
    result = box["result"]
    # six failed; the one corrected during the pause is applied by a second round, then counted: five stay queued
    assert result.status == "signoff_rejected" and len(result.open_findings) == 5 and len(result.rounds) == 2
    assert first.target + " ŕéṽîšéð" in {r.target for r in Workbench.of_variant(settings, benchmark, "en-XA").records}
    with get_client(sync_client=True) as client:
        state = client.read_flow_run(run_id).state
    assert state is not None and state.name == "SignoffRejected" and state.is_failed()
    rejection = SignoffLog(store.folder).last_rejection()
    assert rejection is not None and rejection.outcome is not None and not rejection.outcome.accepted
    # the form left the others' category and severity out: read as major accuracy, said in the note
    assert [(u.category.value, u.severity.value) for u in rejection.rejected_units] == [("accuracy", "major")] * 6
    assert "read as major accuracy" in rejection.rejected_units[1].note
    assert not (result.variant_dir / "babelflow_signoff.json").exists()
    # a rerun holds the failing units open until their text changes
    request = AdaptRequest(benchmark=benchmark, language="en-XA", project_root=tmp_path)
    again = outcome(adapt_language(request, return_state=True))
    assert again.status == "awaiting_review" and len(again.open_findings) == 5
    assert {f.kind for f in store.queue().findings} == {"sample_unit_failed"}


def test_unattended_run_stops_awaiting_review_and_resumes_after_terminal_review(prefect_env, tmp_path):
    from flows.pipeline.prefect_flows import adapt_language, outcome
    from flows.review.store import ReviewDecision

    benchmark = "fixture-library"
    _plant(tmp_path, benchmark, lambda text: text + " (Note: translated automatically)")
    state = adapt_language(
        AdaptRequest(benchmark=benchmark, language="en-XA", project_root=tmp_path), return_state=True
    )  # review_timeout=0: never hangs
    first = outcome(state)
    assert first.status == "awaiting_review" and first.open_findings
    # a named state a Prefect user filters on, never a green Completed with open findings
    assert state.name == "AwaitingReview" and state.is_failed() and "babelflow review" in state.message
    store = _store(tmp_path, benchmark)
    finding = next(f for f in store.queue().findings if f.kind == "added_commentary")
    store.append(ReviewDecision(finding_id=finding.id, decision="confirm", reviewer="cli", note="strip the note"))
    second_state = adapt_language(
        AdaptRequest(benchmark=benchmark, language="en-XA", project_root=tmp_path), return_state=True
    )
    second = outcome(second_state)
    assert second.status == "awaiting_signoff" and second.rounds[0].retranslated_units == 1
    assert second_state.name == "AwaitingSignoff" and second_state.is_completed()


def test_a_unit_the_translator_broke_becomes_a_finding_and_is_retranslated_on_confirm(prefect_env, tmp_path):
    from flows.pipeline.prefect_flows import adapt_language, outcome
    from flows.review.store import ReviewDecision

    benchmark = "fixture-library"
    _plant(tmp_path, benchmark, lambda text: text.replace("⟦0⟧", "", 1))  # a dropped placeholder
    first = outcome(
        adapt_language(AdaptRequest(benchmark=benchmark, language="en-XA", project_root=tmp_path), return_state=True)
    )
    store = _store(tmp_path, benchmark)
    failed = [f for f in store.queue().findings if f.kind == "translation_failed"]
    assert first.status == "awaiting_review" and failed and failed[0].element_id
    assert "missing" in failed[0].message
    store.append(ReviewDecision(finding_id=failed[0].id, decision="confirm", reviewer="cli", note="retranslate"))
    second = adapt_language(AdaptRequest(benchmark=benchmark, language="en-XA", project_root=tmp_path))
    assert second.status == "awaiting_signoff" and second.rounds[0].retranslated_units == 1


def test_a_cli_signoff_sets_the_waiting_runs_state_signed_and_an_unchanged_rerun_stays_signed(prefect_env, tmp_path):
    from prefect.client.orchestration import get_client
    from typer.testing import CliRunner

    from flows.cli.app import app
    from flows.pipeline.prefect_flows import adapt_language

    benchmark = "fixture-library"
    request = AdaptRequest(benchmark=benchmark, language="en-XA", project_root=tmp_path)
    unattended = adapt_language(request, return_state=True)  # clean: ends AwaitingSignoff (review_timeout=0)
    assert unattended.name == "AwaitingSignoff"
    run_id = _store(tmp_path, benchmark).flow_run_id()
    from prefect.settings import get_current_settings

    # a user's shell names the API the run used (other tests of the session may leave another one in it)
    api = {"PREFECT_API_URL": str(get_current_settings().api.url)}
    signed = CliRunner().invoke(
        app,
        ["review", benchmark, "--lang", "en-XA", "--sign", "--reviewer", "ana", "--yes"],
        env={"BABELFLOW_PROJECT_ROOT": str(tmp_path), **api},
    )
    assert signed.exit_code == 0 and "now reads Signed" in " ".join(signed.output.split()), signed.output
    with get_client(sync_client=True) as client:
        state = client.read_flow_run(run_id).state
    assert state is not None and state.name == "Signed" and state.is_completed() and "ana" in (state.message or "")
    rerun = adapt_language(request, return_state=True)  # nothing changed: the sign-off holds
    assert rerun.name == "Signed" and rerun.is_completed()
