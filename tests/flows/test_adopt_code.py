"""`babelflow adopt` reads the texts a fork translated in code (issue 40: "Python literals where present").

AgentDojo keeps its task prompts and tool descriptions in Python. A team that translated it (agentdojo-ja is
one) ships the package's files with translated literals. Here: AgentDojo's own travel files, forked by
tests/flows/code_fork.py, which translates prompts and tool docstrings as a careful translator would (slots
and reST field names kept). The forked files are parsed, never imported.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import agentdojo
import orjson
import pytest

from babelflow.ir import save_ir
from babelflow.settings import BabelflowSettings
from bench.code_fork import fork, marked, prompts_and_docs

BENCH, LANG = "agentdojo-travel", "es"


def _project(tmp_path: Path, monkeypatch, ir) -> Path:
    """A fresh project folder holding the benchmark's analysis, the working directory of the commands."""
    root = tmp_path / "project"
    root.mkdir()
    save_ir(ir, BabelflowSettings(project_root=root).layout.ir(ir.benchmark))
    monkeypatch.setenv("BABELFLOW_PROJECT_ROOT", str(root))
    monkeypatch.chdir(root)
    return root


@pytest.fixture
def project(tmp_path, monkeypatch, analyzed):
    ir = analyzed(BENCH)
    root = _project(tmp_path, monkeypatch, ir)
    their = fork(Path(agentdojo.__file__).parent, [a.path for a in ir.artifacts], tmp_path / "their", prompts_and_docs)
    return root, their, ir


def _cli(*args: str):
    from typer.testing import CliRunner

    from flows.cli.app import app

    return CliRunner().invoke(app, list(args), env={"COLUMNS": "160"})


def _record(root: Path) -> dict:
    return orjson.loads(BabelflowSettings(project_root=root).layout.adopted_translations(BENCH, LANG).read_bytes())


def _element(ir, qualname: str, start: str):
    return next(
        e for e in ir.elements if getattr(e.locator, "qualname", None) == qualname and e.source_text.startswith(start)
    )


def test_a_fork_s_prompts_and_tool_descriptions_are_adopted_from_its_python(project):
    root, their, ir = project
    result = _cli("adopt", BENCH, "--lang", LANG, "--from", str(their), "--origin", "a fork")
    assert result.exit_code == 0, result.output
    record = _record(root)
    code_reasons = Counter(n["reason"] for n in record["not_adopted"] if n["artifact"].endswith(".py"))
    # what the fork left in English (a tool's messages, constants) is named so; nothing is unread or guessed
    assert set(code_reasons) <= {"left_in_source"}, code_reasons
    code_ids = {e.id for e in ir.elements if e.artifact.endswith(".py")}
    assert len(code_ids & set(record["texts"])) >= 90
    # a prompt written as an f-string: its value at run time, the constant filled in as the source fills it
    prompt = _element(ir, "UserTask0.PROMPT", "I'm heading to Paris")
    adopted = record["texts"][prompt.id]
    assert adopted.startswith("Í'm héádíng tó Párís sóón. My fríénd récómméndéd 'Le Marais Boutique'")
    # a tool docstring's line: the reST field name stays out of the text
    piece = _element(ir, "get_day_calendar_events", "The day for which")
    assert record["texts"][piece.id] == marked(piece.source_text)
    # a kept value the fork changed in a prompt goes back to the source's text, and is reported
    assert any(r["artifact"].endswith(".py") and r["source"] == "janeLong@google.com" for r in record["restored"])


def test_the_adopted_fork_validates_and_its_renamed_compared_values_are_one_critical_group(project):
    root, their, _ = project
    assert _cli("adopt", BENCH, "--lang", LANG, "--from", str(their), "--origin", "a fork").exit_code == 0
    out = root / "failures.json"
    result = _cli("validate", BENCH, "--lang", LANG, "--json", str(out))
    assert result.exit_code == 1, result.output  # findings above note: the report says what they are
    findings = orjson.loads(out.read_bytes())["findings"]
    # the fork renamed 'Paris' in the prompts while the task's checks compare 'Paris': the harness would fail
    cause = "values the task's checks compare, named another way in its prompt"
    compared = [f for f in findings if f["cause"] == cause]
    assert compared and {f["severity"] for f in compared} == {"critical"}
    assert any("'Paris'" in f["message"] for f in compared)
    # the adopted files run in AgentDojo's harness: no integrity or behaviour finding
    assert not [f for f in findings if f["layer"] in ("integrity", "behavior") and f["severity"] != "note"]


def test_a_definition_with_another_number_of_literals_is_not_guessed(project):
    root, their, ir = project
    tasks = their / "default_suites/v1_1/travel/user_tasks.py"
    text = tasks.read_text(encoding="utf-8")
    anchor = "class UserTask1("
    assert anchor in text
    # the translator added a literal inside one task class: only that class is left unread
    head, tail = text.split(anchor, 1)
    body_start = tail.index(":\n") + 2
    added = '    _NOTE = "añadido"\n'
    tasks.write_text(head + anchor + tail[:body_start] + added + tail[body_start:], encoding="utf-8")
    assert _cli("adopt", BENCH, "--lang", LANG, "--from", str(their), "--origin", "a fork").exit_code == 0
    record = _record(root)
    differs = {n["where"] for n in record["not_adopted"] if n["reason"] == "structure_differs"}
    assert differs and all("UserTask1." in where and "user_tasks.py" in where for where in differs), differs
    other = _element(ir, "UserTask0.PROMPT", "I'm heading to Paris")
    assert record["texts"][other.id].startswith("Í'm")


def test_a_fork_file_that_does_not_parse_exits_2_naming_it_with_nothing_written(project):
    root, their, _ = project
    broken = their / "default_suites/v1/tools/calendar_client.py"
    text = broken.read_text(encoding="utf-8")
    cut = text.index('"""', 1000) + 20  # cut inside a docstring: a truncated copy
    broken.write_text(text[:cut], encoding="utf-8")
    result = _cli("adopt", BENCH, "--lang", LANG, "--from", str(their), "--origin", "a fork")
    assert result.exit_code == 2, result.output
    assert "calendar_client.py" in result.output and "does not parse" in result.output
    assert not BabelflowSettings(project_root=root).layout.adopted_translations(BENCH, LANG).exists()
    assert not (root / "adapted").exists()


def _tau2_fork(tmp_path: Path, monkeypatch, analyzed, bench: str = "tau2-mock"):
    """A project for `bench`, and a fork of tau2-bench's repository: data in data/tau2/ (kept in English), code
    in src/tau2/ (prompts and docstrings translated)."""
    import tau2

    ir = analyzed(bench)
    root = _project(tmp_path, monkeypatch, ir)
    package = Path(tau2.__file__).parent
    repo = tmp_path / "tau2-bench-fork"
    fork(package, [a.path for a in ir.artifacts if a.path.endswith(".py")], repo / "src" / "tau2", prompts_and_docs)
    fork(package, [a.path for a in ir.artifacts if not a.path.endswith(".py")], repo, lambda scope, text: False)
    return root, repo, ir


def test_a_fork_of_tau2_s_repository_is_read_at_its_own_layout(tmp_path, monkeypatch, analyzed):
    """tau2-bench's repository keeps data in data/tau2/ and code in src/tau2/: `--from` its root reads both. The
    agent's prompt constants and the tools' docstrings come from the forked Python (Google-style headers and
    parameter heads kept, as τ² parses them into the tools' schemas)."""
    bench = "tau2-mock"
    root, repo, ir = _tau2_fork(tmp_path, monkeypatch, analyzed, bench)
    # vi: no language pack, so no glossary judges the fork's words (the next test: es)
    result = _cli("adopt", bench, "--lang", "vi", "--from", str(repo), "--origin", "a fork")
    assert result.exit_code == 0, result.output
    record = orjson.loads(BabelflowSettings(project_root=root).layout.adopted_translations(bench, "vi").read_bytes())
    unread = Counter(n["reason"] for n in record["not_adopted"] if n["artifact"].endswith(".py"))
    assert set(unread) <= {"left_in_source"}, unread  # read, or kept in English by the fork: never unread
    docstring_parts = [
        e
        for e in ir.elements
        if e.artifact.endswith("tools.py") and e.locator.part is not None and e.id in record["texts"]
    ]
    assert docstring_parts and all(record["texts"][e.id] == marked(e.source_text) for e in docstring_parts)
    prompts = [e for e in ir.elements if e.artifact == "agent/llm_agent.py" and e.id in record["texts"]]
    assert prompts, "the agent's prompt constants were not read from src/tau2/agent/llm_agent.py"


def test_texts_and_renderings_the_pack_refuses_are_set_aside_not_the_adoption(tmp_path, monkeypatch, analyzed):
    """es has a pack whose glossary renders 'task' as 'tarea'; the fork wrote 'tásk' in the tools' docstrings
    and kept the task title 'Test task' in English. Each is refused on its own and listed (the translator
    renders it), and the adoption goes on: a team's own wording is a finding, not a stop."""
    bench = "tau2-mock"
    root, repo, _ = _tau2_fork(tmp_path, monkeypatch, analyzed, bench)
    result = _cli("adopt", bench, "--lang", LANG, "--from", str(repo), "--origin", "a fork")
    assert result.exit_code == 0, result.output
    settings = BabelflowSettings(project_root=root)
    record = orjson.loads(settings.layout.adopted_translations(bench, LANG).read_bytes())
    refused = [n for n in record["not_adopted"] if n["reason"] == "refused_by_checks"]
    assert any(n["artifact"].endswith("tools.py") for n in refused)
    title = [n for n in refused if n["where"].endswith("tasks.task_1.title")]
    assert title and "glossary term 'task'" in title[0]["detail"]
    entries = orjson.loads((settings.layout.variant(bench, LANG) / "babelflow_canonical_map.json").read_bytes())
    rendered = {e["source"]: e for e in entries["entries"]}["Test task"]
    assert rendered["origin"] != "adopted" and "tarea" in rendered["target"].lower()
