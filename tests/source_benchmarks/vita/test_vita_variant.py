"""vita-instore into the pseudo-locale through the whole adapt path, validated by the four layers (slow:
analysis, 15k units and two sets of scripted calls, ~1 min). Skipped without VitaBench."""

from __future__ import annotations

import json

import pytest

from babelflow.adapt_request import AdaptRequest
from babelflow.ir import load_ir
from babelflow.settings import BabelflowSettings
from source_benchmarks.registry import get_benchmark
from source_benchmarks.vita.runtime import INSTALL_COMMAND, find_runtime

RUNTIME = find_runtime()
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(isinstance(RUNTIME, str), reason=f"VitaBench not installed: {INSTALL_COMMAND}"),
]
TASKS = "data/vita/domains/instore/tasks_en.json"


@pytest.fixture(scope="module")
def variant(tmp_path_factory):
    from flows.pipeline.adapt import adapt

    root = tmp_path_factory.mktemp("vita")
    settings = BabelflowSettings(project_root=root)
    adapt(AdaptRequest.of_options("vita-instore", "en-XA"), settings=settings)
    return root / "adapted" / "vita-instore" / "en-XA", load_ir(
        settings.layout.ir("vita-instore"), benchmark="vita-instore"
    )


def _validate(folder, ir):
    from validators.run import validate_variant, variant_context

    return validate_variant(variant_context(get_benchmark("vita-instore"), folder, ir, "en-XA"))


def test_every_task_behaves_as_the_source_and_keys_shown_are_renamed_once(variant):
    folder, ir = variant
    failures = _validate(folder, ir)
    assert not [f for f in failures.findings if f.layer.value == "behavior"]  # scripted calls: outputs and states
    above_note = {f.kind for f in failures.findings if f.severity.value not in ("note",)}
    # the pseudo-locale writes 'Cat Café' and 'Cat cafe' alike; the engine tells them apart with the source
    # in parentheses, which the language check rightly reports (docs/BENCHMARKS.md): nothing else is left
    assert above_note <= {"source_words_left"}
    tasks = json.loads((folder / TASKS).read_text(encoding="utf-8"))
    history = tasks[0]["environment"]["user_historical_behaviors"]
    assert "user_id" not in history and all(key.startswith("[") for key in history)  # shown keys, rendered
    assert set(tasks[0]["environment"]) >= {"time", "user_id", "shops", "orders"}  # keys the code reads, kept


def test_a_key_renamed_in_one_task_only_is_one_finding_there(variant, tmp_path):
    import shutil

    folder, ir = variant
    planted = tmp_path / "planted"
    shutil.copytree(folder, planted)
    tasks = json.loads((planted / TASKS).read_text(encoding="utf-8"))
    history = tasks[0]["environment"]["user_historical_behaviors"]
    renamed = next(key for key in history if isinstance(history[key], dict))
    tasks[0]["environment"]["user_historical_behaviors"] = {
        ("[Ŕéñåɱéð]" if key == renamed else key): value for key, value in history.items()
    }
    (planted / TASKS).write_text(json.dumps(tasks, ensure_ascii=False), encoding="utf-8")
    failures = _validate(planted, ir)
    consistency = [f for f in failures.findings if f.layer.value == "consistency"]
    assert len(consistency) == 1 and consistency[0].location.startswith(
        "tasks_en.json[*].environment.user_historical_behaviors."
    )
    assert "{key}" in consistency[0].location and "$[0]" in consistency[0].location
    assert {f.task_id for f in failures.findings if f.layer.value == "behavior"} == {tasks[0]["id"]}


def test_agents_run_on_the_variant_in_vitabench_and_its_judge_reads_the_variants_rubrics(variant, monkeypatch):
    from judge_fake import FakeJudgeServer
    from typer.testing import CliRunner

    from babelflow.adapt_request import AgentRunRequest, EvaluationRequest
    from babelflow.language_pack import load_pack
    from babelflow.target_language import in_pack_language
    from flows.cli.app import app
    from flows.evaluation.evaluate import evaluate

    folder, _ = variant
    tasks = json.loads((folder / TASKS).read_text(encoding="utf-8"))[:2]
    ids = [str(task["id"]) for task in tasks]
    rubrics = {
        rubric
        for task in tasks
        for rubric in [
            *(r for state in task["evaluation_criteria"]["expected_states"] for r in state["state_rubrics"]),
            *(task["evaluation_criteria"].get("overall_rubrics") or []),
        ]
    }
    with FakeJudgeServer() as judge:
        models = EvaluationRequest(agent="scripted", user="scripted", judge=f"openai-compatible:judge@{judge.url}")
        asked = AgentRunRequest(
            benchmark="vita-instore", language="en-XA", models=models, task_ids=ids, variant=folder, with_source=True
        )
        report = evaluate(asked)
    pack = load_pack("en-XA")
    assert rubrics <= set(judge.rubrics_seen) and all(in_pack_language(r, pack) for r in rubrics)
    source = get_benchmark("vita-instore")
    states = [state for i in ids for state in source.task(i).evaluation_criteria.expected_states]
    source_rubrics = {rubric for state in states for rubric in state.state_rubrics}
    assert source_rubrics <= set(judge.rubrics_seen) and not rubrics & source_rubrics  # each side its own language
    assert report.variant_run.average_reward == report.source_run.average_reward == 1.0
    assert report.variant_run.language_consistency == 1.0 and report.judge_llm.startswith("openai-compatible:")
    tool_errors = [t for t in report.variant_run.trials if t.failures]
    assert not tool_errors
    monkeypatch.chdir(folder.parent.parent.parent)
    shown = CliRunner().invoke(
        app,
        ["evaluate", "vita-instore", "--lang", "en-XA", "--agent-llm", "scripted", "--user-llm", "scripted"]
        + ["--tasks", ids[0], "--variant", str(folder)],
    )
    assert shown.exit_code == 0, shown.output
    assert "unscored" in shown.output and "--judge-llm" in shown.output
