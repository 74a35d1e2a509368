"""AgentDojo analysis on real suites: YAML round trip, the lean import, unicode tool output, and the
perturbation trial deciding which literals link code and data."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

pytest.importorskip("agentdojo")


def test_yaml_round_trip_keeps_the_files_layout(tmp_path):
    from source_benchmarks.agentdojo.files import package_root
    from source_benchmarks.yaml_io import dump_yaml, load_yaml

    for name in ("slack/environment.yaml", "workspace/include/cloud_drive.yaml", "banking/injection_vectors.yaml"):
        source = package_root() / "data/suites" / name
        dump_yaml(tmp_path / "out.yaml", load_yaml(source))
        strip = lambda text: [line.rstrip() for line in text.splitlines() if line.strip()]  # noqa: E731
        assert strip((tmp_path / "out.yaml").read_text()) == strip(source.read_text()), name


def test_suites_load_without_the_pipeline_package_init():
    from source_benchmarks.agentdojo.loader import get_suite

    suite = get_suite("travel")
    assert len(suite.user_tasks) == 20 and len(suite.injection_tasks) == 7
    # the SDK-importing agent_pipeline/__init__ never ran: its re-exported names are absent
    assert not hasattr(sys.modules["agentdojo.agent_pipeline"], "OpenAILLM")


def test_variant_tool_output_keeps_unicode_where_upstream_escapes_it():
    from pydantic import BaseModel

    from source_benchmarks.agentdojo.loader import load_module
    from source_benchmarks.agentdojo.suite_view import unicode_tool_output

    class Place(BaseModel):
        city: str

    upstream = load_module("agentdojo.agent_pipeline.tool_execution").tool_result_to_str(Place(city="Köln"))
    assert "Köln" not in upstream and "\\xF6" in upstream  # the upstream bug the README reports
    assert unicode_tool_output(Place(city="Köln")) == "city: Köln"


@pytest.fixture(scope="module")
def banking_ir(analyzed):
    # analyze_benchmark types AgentDojo by perturbation trial (default profile): the session's
    # one analysis of banking, also the IR test_banking_variant.py adapts
    return analyzed("agentdojo-banking")


@pytest.mark.slow
def test_trial_keeps_what_checks_compare_and_names_the_replay(banking_ir):
    kept = [e for e in banking_ir.elements if e.typing_rule.startswith("trial:")]
    assert kept, "the perturbation trial found no link between code and data"
    for element in kept:
        assert element.translation_type.value == "preserve"
    groups = [
        g for g in banking_ir.link_groups if any(ev.source == "golden_replay" and ev.task_id for ev in g.evidence)
    ]
    assert groups and all(
        re.fullmatch(r"(user|injection)_task_\d+", ev.task_id) for g in groups for ev in g.evidence if ev.task_id
    )


@pytest.mark.slow
def test_one_type_per_value_and_slots_kept(banking_ir):
    types: dict[str, set[str]] = {}
    for element in banking_ir.elements:
        if element.translation_type.value != "translate_free" and element.role != "tool_code:docstring":
            types.setdefault(element.source_text, set()).add(element.translation_type.value)
    mixed = {
        text: kinds
        for text, kinds in types.items()
        if len(kinds) > 1
        and "preserve" in kinds
        and "translate_canonical" in kinds
        and any(e.typing_rule.startswith("trial") for e in banking_ir.elements if e.source_text == text)
    }
    assert mixed == {}
    slots = [e for e in banking_ir.elements if re.fullmatch(r"\{injection_\w+\}", e.source_text)]
    assert slots and all(e.translation_type.value == "preserve" for e in slots)
    prompts = [
        e for e in banking_ir.elements if e.role == "task_code:attribute" and e.locator.qualname.endswith(".PROMPT")
    ]
    assert len(prompts) >= 16 and all(e.translation_type.value == "translate_free" for e in prompts)
    assert any(
        e.artifact.endswith("environment.yaml") and e.translation_type.value == "translate_canonical"
        for e in banking_ir.elements
    )
    assert Path(banking_ir.artifacts[0].path).name == "environment.yaml"


def test_benchmark_ids_and_versions():
    from babelflow.errors import BabelflowError
    from source_benchmarks import get_benchmark
    from source_benchmarks.agentdojo.adapter import parse_id, with_version

    assert parse_id("agentdojo-travel") == ("travel", "v1.2.2")
    assert with_version("agentdojo-banking", "v1.1.1") == "agentdojo-banking@v1.1.1"
    assert with_version("agentdojo-banking", None) == "agentdojo-banking"
    for bad in (("agentdojo-banking", "v9"), ("tau2-retail", "v1.1.1")):
        with pytest.raises(BabelflowError):
            with_version(*bad)
    older = get_benchmark("agentdojo-banking@v1.1.1")
    assert older.source_version.endswith(":v1.1.1") and len(older.task_ids("user")) == 16
    with pytest.raises(BabelflowError):
        get_benchmark("agentdojo-chess")


@pytest.mark.slow
def test_a_reviewed_override_wins_over_the_trial(banking_ir):
    from analyzers.analyze import analyze_benchmark
    from analyzers.profile import ElementOverride, load_profile
    from babelflow.ir import PreserveReason, TranslationType
    from source_benchmarks import get_benchmark

    free = TranslationType.TRANSLATE_FREE
    elements = banking_ir.elements
    target = next(e for e in elements if e.artifact.endswith("environment.yaml") and e.translation_type is free)
    override = ElementOverride(
        element=target.id, type=TranslationType.PRESERVE, reason=PreserveReason.LINKED_ENTITY, note="reviewer: keep"
    )
    # a reviewer translating what the trial had to keep: the override wins, and analysis reports the disagreement
    trial_kept = [e for e in elements if e.typing_rule.startswith("trial: holds a literal")]
    kept = next(e for e in trial_kept if len(e.source_text.split()) > 5)
    translated = ElementOverride(element=kept.id, type=free, note="reviewer: translate")
    profile = load_profile("agentdojo-banking", extra_overrides=[override, translated])
    ir = analyze_benchmark(get_benchmark("agentdojo-banking"), profile)
    element = next(e for e in ir.elements if e.id == target.id)
    assert element.translation_type is TranslationType.PRESERVE and element.typing_rule.startswith("profile override")
    assert ir.profile_sha256 != banking_ir.profile_sha256  # the IR (and the flow's cache) follow the decision
    assert next(e for e in ir.elements if e.id == kept.id).translation_type is free
    findings = [(f.element, f.profile_type, f.evidence_type) for f in ir.analysis_findings]
    assert findings == [(kept.id, free, TranslationType.PRESERVE)]
    assert not banking_ir.analysis_findings


def test_the_trial_reads_the_suite_through_the_benchmark():
    """What analyzers/perturbation_trial.py needs comes from the adapter (protocol.PerturbedBenchmark), not from
    importing this package: a combined task's literals live in its parts' classes; an `!include` file sits in
    its field of the environment model; the system message reaches no task."""
    from source_benchmarks import get_benchmark
    from source_benchmarks.protocol import PerturbedBenchmark

    slack = get_benchmark("agentdojo-slack")
    assert isinstance(slack, PerturbedBenchmark)
    parts = slack.task_code("user_task_18")
    assert [p.qualname for p in parts] == ["UserTask1", "UserTask5"]
    assert parts[0].artifact.endswith("slack/user_tasks.py")
    assert [p.qualname for p in slack.task_code("user_task_1")] == ["UserTask1"]
    tasks = next(s for s in slack.artifacts() if s.path.endswith("slack/user_tasks.py"))
    composed = {c.qualname for c in slack.composed_texts(tasks)}
    assert "UserTask18.PROMPT" in composed and slack.python_module(tasks).__name__.endswith("slack.user_tasks")
    workspace = get_benchmark("agentdojo-workspace")
    yaml_files = [s for s in workspace.artifacts() if s.format.value == "yaml"]
    files = {s.path.rsplit("/", 1)[-1]: workspace.data_file(s) for s in yaml_files}
    inbox = files["inbox.yaml"]
    assert inbox.model_path == ("inbox",) and inbox.model is not None and inbox.model.endswith(":WorkspaceEnvironment")
    assert not files["system_messages.yaml"].read_by_tasks
    assert files["injection_vectors.yaml"].unread_keys == ("description",)
    tools = next(s for s in workspace.artifacts() if s.role.value == "tool_code" and "email" in s.path)
    assert "send_email" in workspace.tool_functions(tools)
