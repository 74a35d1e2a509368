"""Back-translation by a model (issue 42): `--validators backtranslation:dashscope:M` reads a variant in any
language back into English through the provider's SDK (the loopback fake reads its own 'Chinese' back),
scores every unit against its source as the Apertium agent does, and raises the unit a hand edit made
unfaithful."""

from __future__ import annotations

import orjson
from fakes import MODELS
from typer.testing import CliRunner

from flows.cli.app import app

TRANSLATOR = f"dashscope:{MODELS['dashscope']}"
BACKTRANSLATION = f"backtranslation:{TRANSLATOR}"
PLANTED = "这位顾客想把订单寄到月球上的另一个仓库。"  # fluent, and about something else entirely


def _validate(project, name: str) -> dict:
    report = project / "reports" / f"{name}.json"
    done = CliRunner().invoke(
        app,
        ["validate", "tau2-mock", "--lang", "zh-Hans", "--validators", BACKTRANSLATION, "--json", str(report)],
        env={"COLUMNS": "200"},
    )
    assert done.exit_code in (0, 1), done.output
    return orjson.loads(report.read_bytes())


def test_a_model_reads_the_variant_back_and_the_unfaithful_unit_is_raised(
    fake, tmp_path, monkeypatch, seed_analysis_cache
):
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.setenv("BABELFLOW_PROJECT_ROOT", str(project))
    seed_analysis_cache(project, "tau2-mock")
    adapt = CliRunner().invoke(app, ["adapt", "tau2-mock", "--lang", "zh-Hans", "--translator", TRANSLATOR])
    assert adapt.exit_code == 0, adapt.output

    clean = _validate(project, "clean")
    assert "backtranslation-dashscope" in clean["validators"]
    note = next(n for n in clean["notes"] if n.startswith("backtranslation-dashscope"))
    assert f"with {TRANSLATOR}/prompt-backtranslate.v1" in note
    read = int(note.split("back-translated ")[1].split(" units")[0])
    assert read > 20
    assert [f for f in clean["findings"] if f["kind"] == "backtranslation_divergent"] == []  # a faithful round trip
    assert fake.state.requests("dashscope", "backtranslate")  # through the provider's SDK, its own task

    tasks_path = project / "adapted" / "tau2-mock" / "zh-Hans" / "data" / "tau2" / "domains" / "mock" / "tasks.json"
    tasks = orjson.loads(tasks_path.read_bytes())
    scenario = tasks[0]["user_scenario"]
    assert isinstance(scenario["instructions"], str)  # tau2-mock's instructions are one text
    scenario["instructions"], field = PLANTED, "instructions"
    tasks_path.write_bytes(orjson.dumps(tasks, option=orjson.OPT_INDENT_2))

    planted = _validate(project, "planted")
    raised = [f for f in planted["findings"] if f["kind"] == "backtranslation_divergent"]
    assert len(raised) == 1 and raised[0]["task_id"] == tasks[0]["id"] and field in raised[0]["location"]
    assert raised[0]["validators"] == ["backtranslation-dashscope"]
