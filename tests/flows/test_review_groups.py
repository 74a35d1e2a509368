"""Review by groups: a round with 1,000 findings is a handful of form rows, one decision covers a
group, and an `open`ed group comes back one finding a row. Runs the real pause/resume protocol."""

from __future__ import annotations

import threading
import time

import pytest

from tests.validators.findings_by_hand import a_finding
from validators.findings import FailureSet, Layer, Severity, group_findings


def _thousand_findings() -> FailureSet:
    findings = []
    for task in range(600):  # one repeated pattern: the same field of 600 tasks
        findings.append(
            a_finding(
                "probes",
                Layer.FIDELITY,
                "added_commentary",
                Severity.MAJOR,
                "data/tasks.json",
                f"tasks.json[{task}].description.purpose",
                "translator commentary added",
                element_id=f"e{task}",
            )
        )
    for task in range(390):
        findings.append(
            a_finding(
                "probes",
                Layer.CONSISTENCY,
                "preserved_value_changed",
                Severity.CRITICAL,
                "data/tasks.json",
                f"tasks.json[*].user_scenario.instructions.known_info @ $[{task}]['x']",
                "Preserve field (identifier) changed",
                element_id=f"p{task}",
            )
        )
    for index in range(10):  # ten one-offs
        findings.append(
            a_finding(
                "probes",
                Layer.BEHAVIOR,
                "golden_reward_changed",
                Severity.CRITICAL,
                "data/tasks.json",
                f"task_{index}",
                "golden reward differs",
                task_id=f"task_{index}",
                pattern=f"reward 1.0 -> 0.{index}",
            )
        )
    return FailureSet(benchmark="b", language="en-XA", findings=findings, validators=["probes"])


def test_groups_collapse_repeats_and_rank_by_impact() -> None:
    failures = _thousand_findings()
    groups = group_findings(failures.findings)
    assert len(groups) == 12
    assert sum(len(g.finding_ids) for g in groups) == 1000
    assert (
        groups[0].severity is Severity.CRITICAL and len(groups[0].finding_ids) == 390
    )  # critical before major, large before small
    assert groups[-1].severity is Severity.MAJOR and len(groups[-1].finding_ids) == 600
    assert groups[0].pattern == "tasks.json[*].user_scenario.instructions.known_info"
    assert "600×" in groups[-1].summary
    assert len({g.id for g in groups}) == len(groups)
    assert [g.id for g in group_findings(list(reversed(failures.findings)))] == [g.id for g in groups]  # stable ids


def test_one_cause_over_several_values_and_files_is_one_group_led_by_its_worst() -> None:
    """Statuses renamed in the policy and in the tasks: one translator habit, one decision, one fix
    (a reviewer does not decide 'pending' and 'delivered' apart); the critical one speaks for the group."""
    cause = "values the tools hold, named another way in the text"
    rows = [
        ("data/policy.md", "'pending'", Severity.MAJOR),
        ("data/policy.md", "'delivered'", Severity.MAJOR),
        ("data/tasks.json", "'delivered'", Severity.MAJOR),
        ("data/policy.md", "'ordered by mistake'", Severity.CRITICAL),
    ]
    findings = [
        a_finding(
            "probes",
            Layer.CONSISTENCY,
            "reference_lost",
            severity,
            artifact,
            f"x @ {n}",
            f"{value} no longer appears",
            element_id=f"e{n}",
            pattern=value,
            cause=cause,
        )
        for n, (artifact, value, severity) in enumerate(rows)
    ]
    lone = a_finding(  # the same kind without a cause: grouped by its file and value, as before
        "probes", Layer.CONSISTENCY, "reference_lost", Severity.MAJOR, "data/policy.md", "y", "m", pattern="'x'"
    )
    groups = group_findings([*findings, lone])
    assert len(groups) == 2
    shared = groups[0]
    assert shared.severity is Severity.CRITICAL and len(shared.finding_ids) == 4
    assert shared.finding_ids[0] == findings[3].id  # the worst first: its message is the example's
    assert shared.artifact == "2 files" and shared.pattern == cause
    assert "'delivered' ×2" in shared.example and "policy.md ×3" in shared.example
    assert "ordered by mistake" in shared.example.split("First: ")[1]


@pytest.fixture(scope="module")
def prefect_env(tmp_path_factory, prefect_harness):
    # task results stay in this module's temp folder, and the variable is restored afterwards
    with pytest.MonkeyPatch.context() as env:
        env.setenv("PREFECT_LOCAL_STORAGE_PATH", str(tmp_path_factory.mktemp("storage")))
        with prefect_harness():  # the session's Prefect test server (tests/conftest.py)
            yield


def _paused(client, run_id, key: str, deadline: float):
    while time.time() < deadline:
        run = client.read_flow_run(run_id)
        if run.state.is_paused() and key in (run.state.state_details.pause_key or ""):
            return run
        time.sleep(0.3)
    raise AssertionError(f"flow never paused at {key}")


@pytest.mark.slow  # a paused flow run answered through the Prefect API
def test_group_decisions_and_opened_groups_through_the_paused_form(prefect_env) -> None:
    from prefect import flow
    from prefect.client.orchestration import get_client
    from prefect.flow_runs import resume_flow_run
    from prefect.runtime import flow_run

    from flows.review.forms import OPENED_PAGE, ask_for_review, finding_field, group_field

    failures = _thousand_findings()
    groups = group_findings(failures.findings)
    box: dict = {}

    @flow(name="review-groups-test")
    def review_round():
        box["run_id"] = flow_run.id
        return ask_for_review(failures, 1, review_timeout=120)

    thread = threading.Thread(target=lambda: box.setdefault("decisions", review_round()), daemon=True)
    thread.start()
    deadline = time.time() + 120
    while "run_id" not in box and time.time() < deadline:
        time.sleep(0.2)
    with get_client(sync_client=True) as client:
        _paused(client, box["run_id"], "review-1", deadline)
        critical, *_, commentary = groups
        # the form holds one set of fields per group, numbered as the review material numbers them
        answer = {"reviewer": "ana"}
        answer |= {
            group_field(1): "confirm",
            f"{group_field(1)}_note": "ids must stay",
            f"{group_field(1)}_route": "analysis",
            f"{group_field(1)}_keep_as": "identifier",
            group_field(len(groups)): "open",
        }
        resume_flow_run(box["run_id"], run_input=answer)
        # the opened group's 600 findings come in pages of OPENED_PAGE
        pages = range(0, len(commentary.finding_ids), OPENED_PAGE)
        for page_no, start in enumerate(pages, start=1):
            _paused(client, box["run_id"], "review-1-opened" + (f"-{page_no}" if page_no > 1 else ""), deadline)
            opened: dict = {"reviewer": "ana"}
            for number in range(1, len(commentary.finding_ids[start : start + OPENED_PAGE]) + 1):
                opened[finding_field(number)] = "dismiss" if (start + number - 1) % 2 else "confirm"
                opened[f"{finding_field(number)}_note"] = "checked"
            resume_flow_run(box["run_id"], run_input=opened)
    thread.join(120)
    decisions = box["decisions"]
    assert len(decisions) == 390 + 600
    by_finding = {d.finding_id: d for d in decisions}
    assert all(
        by_finding[f].decision == "confirm" and by_finding[f].route == "analysis" and by_finding[f].reviewer == "ana"
        for f in critical.finding_ids
    )
    assert sum(by_finding[f].decision == "dismiss" for f in commentary.finding_ids) == 300
    assert not any(g.finding_ids[0] in by_finding for g in groups[1:-1])  # skipped groups stay open


def test_one_write_for_a_group_decision(tmp_path) -> None:
    from flows.review.store import ReviewDecision, ReviewStore

    failures = _thousand_findings()
    store = ReviewStore(tmp_path)
    store.save_queue(failures)
    written = store.append_many(
        [ReviewDecision(finding_id=f.id, decision="dismiss", reviewer="bo") for f in failures.findings[:600]]
    )
    assert len(written) == 600 and len(store.decisions()) == 600
    from babelflow.errors import BabelflowError

    with pytest.raises(BabelflowError) as bad:
        store.append_many(
            [
                ReviewDecision(finding_id=failures.findings[0].id, decision="confirm", reviewer="bo"),
                ReviewDecision(finding_id="F-missing", decision="confirm", reviewer="bo"),
            ]
        )
    assert "F-missing" in str(bad.value)
    assert len(store.decisions()) == 600  # a bad batch writes nothing


def test_terminal_review_decides_a_whole_group_and_refuses_a_bad_route(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from babelflow.settings import BabelflowSettings
    from flows.cli.app import app
    from flows.review.store import ReviewStore

    monkeypatch.setenv("BABELFLOW_PROJECT_ROOT", str(tmp_path))
    store = ReviewStore(BabelflowSettings().layout.review_dir("tau2-mock", "en-XA"))
    queue = store.open_findings(_thousand_findings())
    store.save_queue(queue)
    group = next(g for g in group_findings(queue.findings) if len(g.finding_ids) == 390)
    runner = CliRunner()

    bad = runner.invoke(
        app, ["review", "tau2-mock", "--lang", "en-XA", "--decide", f"{group.id}=confirm", "--route", "elsewhere"]
    )
    assert bad.exit_code == 2 and store.decisions() == []

    done = runner.invoke(
        app,
        [
            "review",
            "tau2-mock",
            "--lang",
            "en-XA",
            "--decide",
            f"{group.id}=confirm",
            "--route",
            "analysis",
            "--reviewer",
            "ana",
        ],
    )
    assert done.exit_code == 0, done.output
    decisions = store.decisions()
    assert {d.finding_id for d in decisions} == set(group.finding_ids)
    assert {(d.decision, d.route, d.reviewer) for d in decisions} == {("confirm", "analysis", "ana")}


def test_review_preselects_the_route_each_kind_suggests(tmp_path, monkeypatch):
    """A profile that contradicts the run is a typing problem: without --route, confirming it goes to analysis."""
    from typer.testing import CliRunner

    from babelflow.settings import BabelflowSettings
    from flows.cli.app import app
    from flows.review.store import ReviewStore
    from validators.finding_kinds import suggested_route

    assert suggested_route(Layer.CONSISTENCY, "profile_contradicts_evidence") == "analysis"
    assert suggested_route(Layer.FIDELITY, "added_commentary") == "translation"
    monkeypatch.setenv("BABELFLOW_PROJECT_ROOT", str(tmp_path))
    store = ReviewStore(BabelflowSettings().layout.review_dir("tau2-mock", "en-XA"))
    typed = a_finding(
        "probes",
        Layer.CONSISTENCY,
        "profile_contradicts_evidence",
        Severity.MAJOR,
        "data/tasks.json",
        "tasks.json[0].title",
        "the profile translates it but the run shows a DB write",
        element_id="t0",
    )
    worded = a_finding(
        "probes",
        Layer.FIDELITY,
        "added_commentary",
        Severity.MAJOR,
        "data/tasks.json",
        "tasks.json[0].purpose",
        "translator commentary added",
        element_id="w0",
    )
    queue = store.open_findings(
        FailureSet(benchmark="tau2-mock", language="en-XA", findings=[typed, worded], validators=["probes"])
    )
    store.save_queue(queue)
    decide = [arg for g in group_findings(queue.findings) for arg in ("--decide", f"{g.id}=confirm")]
    done = CliRunner().invoke(app, ["review", "tau2-mock", "--lang", "en-XA", *decide, "--reviewer", "ana"])
    assert done.exit_code == 0, done.output
    assert {d.element_id: d.route for d in store.decisions()} == {"t0": "analysis", "w0": "translation"}


@pytest.mark.parametrize(
    "benchmark, language, key",
    [
        ("tau2-retail", "en-XA", "tau2-retail-en-xa"),
        ("tau2-pkg:acme_tasks", "pt_BR", "tau2-pkg-acme-tasks-pt-br"),
        ("agentdojo-travel@v1.1.1", "es", "agentdojo-travel-v1-1-1-es"),
    ],
)
def test_report_artifact_keys_are_what_prefect_accepts(benchmark, language, key):
    """A domain package's id has a colon; Prefect refuses artifact keys other than [a-z0-9-]
    (the flow crashed at its first report)."""
    from prefect.artifacts import MarkdownArtifact

    from flows.pipeline.rounds import artifact_key

    assert artifact_key(benchmark, language) == key
    MarkdownArtifact(key=f"{key}-failure-report", markdown="ok")  # Prefect's own validation


@pytest.mark.slow  # a Prefect server
def test_a_killed_run_is_marked_crashed_and_a_finished_one_is_left_alone(prefect_env):
    """A killed flow run keeps reading Running; the next run of the same (benchmark, language) takes the
    lock, learns the old run's id from it and marks it Crashed."""
    from prefect import flow
    from prefect.client.orchestration import get_client
    from prefect.states import Completed, Running

    from flows.pipeline.prefect_flows import mark_killed_run_crashed

    @flow(name="adapt-language-killed-test")
    def stand_in():
        return None

    with get_client(sync_client=True) as client:
        killed = client.create_flow_run(stand_in, state=Running())
        finished = client.create_flow_run(stand_in, state=Completed())
        assert mark_killed_run_crashed(f"4242 {killed.id}", "new-run") == str(killed.id)
        assert mark_killed_run_crashed(f"4242 {finished.id}", "new-run") is None
        assert mark_killed_run_crashed("4242", "new-run") is None  # written by `babelflow adapt` (no flow run)
        crashed = client.read_flow_run(killed.id).state
        assert crashed.is_crashed() and "lock taken over by flow run new-run" in crashed.message
        assert client.read_flow_run(finished.id).state.is_completed()
