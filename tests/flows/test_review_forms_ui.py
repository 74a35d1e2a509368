"""The review forms hold decisions only and the review material holds the texts (issue 25 items 1 and 3):
no list (deletable rows), no nullable field ('Property is type "None"'), no id as an editable value;
source and target side by side in a table that wraps; run names and final states say what waits."""

from __future__ import annotations

import json

from flows.pipeline.flow_results import FINAL_STATES, AdaptFlowResult, final_state
from flows.pipeline.stage_tasks import stage_run_name
from flows.review.forms import answer_for, group_field, read_row, review_form, signoff_form
from flows.review.material import review_material_markdown, side_by_side
from tests.validators.findings_by_hand import a_finding
from validators.findings import FailureSet, Layer, Severity, group_findings


def _failures() -> FailureSet:
    long_target = "Sure! Here is the translation you asked for: " + "palabra " * 200
    findings = [
        a_finding(
            "probes",
            Layer.FIDELITY,
            "answered_not_translated",
            Severity.MAJOR,
            "data/tasks.json",
            "tasks[3].description.purpose",
            "the model answered instead of translating",
            element_id="e1",
        ),
        a_finding(
            "probes",
            Layer.CONSISTENCY,
            "preserved_value_changed",
            Severity.CRITICAL,
            "data/db.json",
            "users.*.zip",
            "Preserve field (identifier) changed",
            element_id="e2",
        ),
    ]
    findings[0].evidence[0].source = "Find the order " + "x" * 300
    findings[0].evidence[0].target = long_target
    return FailureSet(benchmark="b", language="es", findings=findings, validators=["probes"])


def _sample():
    from flows.review.signoff import SampledUnit, SignOffSample

    unit = SampledUnit(
        unit_key="u1", stratum="task", role="r", source="Make sure", target="Marca seguro", origin="draft", risk=1.0
    )
    return SignOffSample(lot_size=1, code_letter="A", sample_size=1, strata={"task": 1}, units=[unit])


def _walk(schema: dict, seen: list) -> None:
    for value in schema.values() if isinstance(schema, dict) else schema:
        if isinstance(value, (dict, list)):
            _walk(value, seen)
    if isinstance(schema, dict):
        seen.append(schema)


def test_review_form_has_decisions_only_and_reads_back_by_group() -> None:
    failures = _failures()
    groups = group_findings(failures.findings)
    form = review_form(groups, "read the material")
    schema = form.model_json_schema()
    nodes: list = []
    _walk(schema, nodes)
    assert not any(node.get("type") == "array" for node in nodes)  # no rows to delete
    assert not any(node.get("type") == "null" for node in nodes)  # no 'Property is type "None"'
    assert not any(
        g.id in json.dumps(schema.get("properties", {}).get(group_field(1), {}).get("default")) for g in groups
    )
    titles = [schema["properties"][group_field(n)]["title"] for n in (1, 2)]
    assert titles[0].startswith("1. consistency/preserved_value_changed")  # most severe first, as the material
    answer = form(**answer_for(groups, "ana", {groups[1].id: "confirm"}, note="n"))
    row = read_row(answer, group_field(2))
    assert (answer.reviewer, row.decision, row.note, row.replacement) == ("ana", "confirm", "n", None)
    assert read_row(answer, group_field(1)).decision == "skip"
    signoff = signoff_form("read the sample", _sample()).model_json_schema()
    assert set(signoff["properties"]) == {"reviewer", "read", "note", "unit_1", "unit_1_category", "unit_1_severity"}
    assert "Marca seguro" in signoff["properties"]["unit_1"]["description"]  # side by side in the form
    assert signoff["properties"]["reviewer"]["title"] == "Your name"  # titles kept (with_initial_data drops them)


def test_the_summary_is_the_first_field_s_description_where_the_resume_modal_shows_it() -> None:
    """Prefect's Resume modal shrinks a form's own description to 0 px once the form is taller than the modal
    (a helper measured it at 1,280 x 900 with Chromium: 96 px of summary in a 0 px box, a blank strip)."""
    groups = group_findings(_failures().findings)
    summary = "**Round 1: 2 open findings in 2 groups.** Read the [review material](http://127.0.0.1/a) first."
    for form in (review_form(groups, summary), signoff_form(summary, _sample())):
        schema = form.model_json_schema()
        first = next(iter(schema["properties"]))
        assert first == "reviewer" and schema["properties"][first]["description"].startswith(summary)
        assert not isinstance(form._description, str)  # Prefect saves none: no blank strip


def test_review_material_puts_source_and_target_side_by_side_in_a_wrapping_table() -> None:
    markdown = review_material_markdown(_failures(), 2, None)
    assert markdown.startswith("# Review b → es, round 2")
    assert (
        "## 1. consistency/preserved_value_changed" in markdown and "## 2. fidelity/answered_not_translated" in markdown
    )
    table = next(line for line in markdown.splitlines() if line.startswith("<table") and "palabra" in line)
    assert '<col width="50%"><col width="50%">' in table and "palabra" in table and "target (es)" in table
    assert "\u200b" in table  # the 300-character token can wrap
    assert side_by_side([("a<b", "c\nd")], "es")[0].count("<tr>") == 2
    assert "a&lt;b" in side_by_side([("a<b", "c\nd")], "es")[0]


def test_final_states_name_what_the_run_waits_for() -> None:
    result = AdaptFlowResult(
        benchmark="tau2-retail",
        language="es",
        status="awaiting_review",
        rounds=[],
        open_findings=["F-1"],
        variant_dir="v",
    )
    state = final_state(result)
    assert state.name == "AwaitingReview" and state.is_failed() and "tau2-retail es" in state.message
    timed_out = final_state(result.model_copy(update={"timed_out": True}))
    assert timed_out.name == "ReviewTimedOut" and timed_out.is_failed()
    signoff = final_state(result.model_copy(update={"status": "awaiting_signoff", "open_findings": []}))
    assert signoff.name == "AwaitingSignoff" and signoff.is_completed() and "--sign" in signoff.message
    assert {name for _, name in FINAL_STATES.values()} == {
        "Signed",
        "AwaitingSignoff",
        "AwaitingReview",
        "RoundsExhausted",
        "SignoffRejected",
    }
    rejected = final_state(result.model_copy(update={"status": "signoff_rejected"}))
    assert rejected.name == "SignoffRejected" and rejected.is_failed() and "--failing" in rejected.message
    assert all(
        make.__name__ != "Completed" or status in ("signed", "awaiting_signoff")
        for status, (make, _) in FINAL_STATES.items()
    )


def test_task_run_names_carry_stage_and_layer() -> None:
    from validators.findings import Layer as L

    assert stage_run_name("validate")({"layer": L.FIDELITY}) == "validate:fidelity"
    assert stage_run_name("validate", "integrity")({}) == "validate:integrity"
    assert stage_run_name("translate")({}) == "translate"
