"""Analysis learns types by running the benchmark (issue 13), on tau2's mock domain and copies of it.

Real tau2 code and data throughout: copies of the mock data folder are edited the way a user's
own data would differ, and analyzed through `--source-dir`.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from babelflow.adapt_request import AdaptRequest
from babelflow.errors import StaleArtifactError
from babelflow.ir import EvidenceScope, LinkKind, TranslationType, load_ir


def _mock_data(tmp_path: Path) -> Path:
    from source_benchmarks.tau_common.adapter import tau2_package_root

    root = tmp_path / "data"
    shutil.copytree(tau2_package_root() / "data" / "tau2" / "domains" / "mock", root / "tau2" / "domains" / "mock")
    return root


def _tasks(root: Path) -> tuple[Path, list]:
    path = root / "tau2" / "domains" / "mock" / "tasks.json"
    return path, json.loads(path.read_text())


def _analyze(root: Path | None = None, use_profile: bool = True):
    from analyzers.analyze import analyze_benchmark
    from source_benchmarks import get_benchmark

    return analyze_benchmark(get_benchmark("tau2-mock", source_dir=root), use_profile=use_profile)


@pytest.fixture(scope="module")
def mock_ir(analyzed):
    return analyzed("tau2-mock")  # the session's IR of the packaged source: what _analyze() returns


@pytest.fixture(scope="module")
def plain_ir():
    """The evidence-only IR of the packaged source (--no-profile), built once for the tests that read it."""
    return _analyze(use_profile=False)


def _element(ir, role_suffix: str, text: str):
    found = [e for e in ir.elements if e.role.endswith(role_suffix) and e.source_text == text]
    assert found, (role_suffix, text)
    return found[0]


def test_evidence_is_keyed_by_location_and_observed_in_the_run(mock_ir):
    table = {entry.id: entry for entry in mock_ir.evidence}
    title = _element(mock_ir, "actions[*].arguments.title", "Important Meeting")
    entry = table[title.evidence]
    assert entry.scope is EvidenceScope.LOCATION
    # create_task received it and the DB diff after the call found it written
    assert {LinkKind.TOOL_ARGUMENT, LinkKind.DB_WRITE, LinkKind.COMPARED_BY_EVALUATOR} <= set(entry.kinds), entry
    # the recorded tool result set_state re-executes and compares is read by the harness itself
    history = [
        e
        for e in mock_ir.elements
        if e.role.endswith("message_history[*].content") and e.source_text.startswith('{"task_id"')
    ]
    assert history and all(LinkKind.READ_BY_HARNESS in table[e.evidence].kinds for e in history)


def test_differential_finds_what_the_trace_cannot_see(mock_ir):
    table = {entry.id: entry for entry in mock_ir.evidence}
    # reward_basis is converted to an enum at load: the model refuses a perturbed value
    basis = [e for e in mock_ir.elements if e.role.endswith("reward_basis[*]")]
    assert basis and all(table[e.evidence].scope is EvidenceScope.DIFFERENTIAL for e in basis)
    assert all(LinkKind.PERTURBATION_CHANGES_OUTCOME in table[e.evidence].kinds for e in basis)
    # a task id changes the split selection alone, and the outcome returns with its split entries: a link
    task_id = _element(mock_ir, "tasks.json[*].id", "create_task_1")
    assert "link" in table[task_id.evidence].detail and "split" in table[task_id.evidence].detail


def test_no_profile_types_from_evidence_and_reports_what_the_profile_decides(mock_ir, plain_ir):
    plain = plain_ir
    by_id = plain.by_id()
    # the executed fields stay Preserve without any reviewed rule
    title = by_id[_element(mock_ir, "actions[*].arguments.title", "Important Meeting").id]
    assert title.translation_type is TranslationType.PRESERVE and title.typing_rule.startswith("evidence (location)")
    assert not any(e.typing_rule.startswith("profile") for e in plain.elements)
    # the profile IR records, per element, the type the evidence alone gives
    decided = [e for e in mock_ir.elements if e.evidence_type is not e.translation_type]
    same = [e for e in mock_ir.elements if e.id in by_id and e.evidence_type is e.translation_type]
    assert same and all(
        by_id[e.id].translation_type is e.translation_type for e in same if e.locator.kind in ("data_value", "data_key")
    )
    assert len(decided) < len(mock_ir.elements) // 4


def test_multi_word_value_written_to_the_db_is_protected_in_prose(tmp_path):
    root = _mock_data(tmp_path)
    path, tasks = _tasks(root)
    title = "buy milk and fresh eggs for the office"  # lowercase, 8 words: no shape makes it a token
    tasks[0]["evaluation_criteria"]["actions"][0]["arguments"]["title"] = title
    tasks[0]["user_scenario"]["instructions"] = (
        f"You want a new task for user_1. Ask the agent to create it with the title {title} and nothing else."
    )
    path.write_text(json.dumps(tasks))
    ir = _analyze(root)
    instructions = _element(ir, "user_scenario.instructions", tasks[0]["user_scenario"]["instructions"])
    assert instructions.translation_type is TranslationType.TRANSLATE_FREE
    assert title in instructions.inline_tokens
    groups = {g.value: g for g in ir.link_groups}
    assert {LinkKind.DB_WRITE, LinkKind.MENTIONED_IN_PROSE} <= set(groups[title].kinds)


def test_set_state_failure_exits_2_naming_the_task(tmp_path):
    from flows.cli.app import app

    root = _mock_data(tmp_path)
    path, tasks = _tasks(root)
    broken = next(t for t in tasks if t["id"] == "update_task_with_initialization_actions")
    broken["initial_state"]["initialization_actions"][0]["arguments"] = {"user_id": "no_such_user", "title": "x"}
    path.write_text(json.dumps(tasks))
    result = CliRunner().invoke(
        app, ["analyze", "tau2-mock", "--source-dir", str(root), "--out", str(tmp_path / "ir.json")]
    )
    assert result.exit_code == 2, result.output
    assert "update_task_with_initialization_actions" in result.output and "set_state" in result.output
    assert "Traceback" not in result.output


def test_an_ir_of_the_previous_schema_is_refused_clearly(tmp_path, mock_ir):
    raw = orjson.loads(mock_ir.to_json_bytes())
    raw["schema_version"] = "babelflow.ir/1"
    (tmp_path / "old.json").write_bytes(orjson.dumps(raw))
    with pytest.raises(StaleArtifactError, match="babelflow.ir/1"):
        load_ir(tmp_path / "old.json")


def _signature(pair) -> tuple:
    golden, nothing = pair
    return (
        golden.reward,
        nothing.reward,
        golden.evaluator_error is None,
        nothing.evaluator_error is None,
        tuple(call.error for call in golden.tool_calls),
        golden.final_db_sha256 == nothing.final_db_sha256,
    )


def test_en_xa_variant_from_the_evidence_only_ir_keeps_golden_do_nothing_and_db_parity(
    tmp_path, plain_ir, source_pairs
):
    from babelflow.settings import BabelflowSettings
    from flows.pipeline.adapt import adapt
    from source_benchmarks import get_benchmark, open_variant

    plain = plain_ir
    result = adapt(
        AdaptRequest.of_options("tau2-mock", "en-XA", out=tmp_path / "variant"),
        settings=BabelflowSettings(project_root=tmp_path),
        ir=plain,
    )
    assert result.outcome.targets, "something was translated"
    source, variant = get_benchmark("tau2-mock"), open_variant("tau2-mock", tmp_path / "variant")
    ids = source.task_ids(None)
    assert variant.task_ids(None) == ids
    expected = {
        task_id: _signature(pair) for task_id, pair in source_pairs("tau2-mock").items()
    }  # the session's replays
    observed = {pair[0].task_id: _signature(pair) for pair in variant.replay_pairs(ids)}
    assert observed == expected


def test_consistency_probe_flags_a_translated_mention_of_a_written_value(tmp_path):
    from babelflow.settings import BabelflowSettings
    from flows.pipeline.adapt import adapt
    from source_benchmarks import get_benchmark
    from validators.run import validate_variant, variant_context

    root = _mock_data(tmp_path)
    path, tasks = _tasks(root)
    title = "buy milk and fresh eggs for the office"
    tasks[0]["evaluation_criteria"]["actions"][0]["arguments"]["title"] = title
    tasks[0]["user_scenario"]["instructions"] = (
        f"You want a new task for user_1. Ask the agent to create it with the title {title} and nothing else."
    )
    path.write_text(json.dumps(tasks))
    source = get_benchmark("tau2-mock", source_dir=root)
    ir = _analyze(root)
    adapt(
        AdaptRequest.of_options("tau2-mock", "en-XA", source_dir=root, out=tmp_path / "variant"),
        settings=BabelflowSettings(project_root=tmp_path),
        ir=ir,
    )
    variant_tasks = tmp_path / "variant" / "data" / "tau2" / "domains" / "mock" / "tasks.json"
    rebuilt = json.loads(variant_tasks.read_text())
    assert title in rebuilt[0]["user_scenario"]["instructions"]  # protected: the user simulator dictates it verbatim
    assert validate_variant(variant_context(source, tmp_path / "variant", ir, "en-XA")).findings == []
    # a translator that renders the dictated title anyway is caught by the consistency layer
    rebuilt[0]["user_scenario"]["instructions"] = rebuilt[0]["user_scenario"]["instructions"].replace(
        title, "comprar leche y huevos frescos para la oficina"
    )
    variant_tasks.write_text(json.dumps(rebuilt))
    findings = validate_variant(variant_context(source, tmp_path / "variant", ir, "en-XA")).findings
    assert any(f.kind == "reference_lost" and title in f.message for f in findings), [
        (f.kind, f.message) for f in findings
    ]


def test_a_profile_that_contradicts_the_evidence_goes_to_review(tmp_path):
    from analyzers.analyze import analyze_benchmark
    from analyzers.profile import load_profile
    from babelflow.settings import BabelflowSettings
    from flows.pipeline.adapt import adapt
    from source_benchmarks import get_benchmark
    from validators.run import validate_variant, variant_context

    profile = tmp_path / "tau2-mock.toml"
    profile.write_text(
        'benchmark = "tau2-mock"\nversion = 1\nextends = "tau2-common"\n\n'
        '[[rules]]\nartifact = "data/tau2/domains/*/tasks.json"\n'
        'select = "$[*].evaluation_criteria.actions[*].arguments.title"\n'
        'type = "translate_free"\nnote = "a wrong review"\n'
    )
    source = get_benchmark("tau2-mock")
    ir = analyze_benchmark(source, load_profile("tau2-mock", profile))
    wrong = {f.element for f in ir.analysis_findings}
    titles = {e.id for e in ir.elements if e.role.endswith("evaluation_criteria.actions[*].arguments.title")}
    assert titles and titles <= wrong
    assert all(f.evidence_type is TranslationType.PRESERVE for f in ir.analysis_findings)
    adapt(
        AdaptRequest.of_options("tau2-mock", "en-XA", out=tmp_path / "variant"),
        settings=BabelflowSettings(project_root=tmp_path),
        ir=ir,
    )
    findings = validate_variant(variant_context(source, tmp_path / "variant", ir, "en-XA")).findings
    flagged = {f.element_id for f in findings if f.kind == "profile_contradicts_evidence"}
    assert titles <= flagged


def test_analyze_no_profile_from_the_command_line(tmp_path, monkeypatch):
    from flows.cli.app import app

    monkeypatch.setenv("BABELFLOW_STATE_DIR", str(tmp_path / "state"))
    result = CliRunner().invoke(app, ["analyze", "tau2-mock", "--no-profile", "--out", str(tmp_path / "ir.json")])
    assert result.exit_code == 0, result.output
    assert "decided by the profile alone (evidence alone would type them otherwise): 0 of" in result.output
    ir = load_ir(tmp_path / "ir.json", benchmark="tau2-mock")
    assert not any(e.typing_rule.startswith("profile") for e in ir.elements)
