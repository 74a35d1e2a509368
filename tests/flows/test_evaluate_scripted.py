"""`babelflow evaluate` offline: scripted agent and user drive a variant through tau2's own
orchestrator and scorer; the failure taxonomy counts misbehaving scripted agents in their classes;
target-language tool output reaches the agent as text (and the harness check reports it when not)."""

from __future__ import annotations

import pytest
from evaluation_fake import FakeAgentServer

from babelflow.adapt_request import AdaptRequest, AgentRunRequest, EvaluationRequest
from babelflow.settings import BabelflowSettings
from flows.evaluation.taxonomy import FailureClass
from source_benchmarks import get_benchmark, open_variant


@pytest.fixture(scope="module")
def mock_variants(tmp_path_factory, analyzed):
    from flows.pipeline.adapt import adapt

    root = tmp_path_factory.mktemp("evaluate-scripted")
    settings = BabelflowSettings(project_root=root)
    ir = analyzed("tau2-mock")
    paths = {
        lang: adapt(AdaptRequest.of_options("tau2-mock", lang), settings=settings, ir=ir).paths.variant
        for lang in ("en-XA", "ar-XB")
    }
    return settings, paths, ir


def test_a_scripted_run_scores_the_variant_as_the_source(mock_variants):
    from flows.evaluation.evaluate import evaluate
    from flows.evaluation.report import TrajectoryLine

    settings, paths, _ = mock_variants
    report = evaluate(
        AgentRunRequest(
            benchmark="tau2-mock",
            language="en-XA",
            models=EvaluationRequest(agent="scripted", user="scripted"),
            with_source=True,
        ),
        settings=settings,
    )
    ours = {t.task_id: t.rewards for t in report.variant_run.tasks}
    theirs = {t.task_id: t.rewards for t in report.source_run.tasks}
    assert ours == theirs and len(ours) == 9
    assert sum(r == [1.0] for r in ours.values()) == 8  # the one without actions asserts what no call made
    assert not report.measures_model and report.agent_llm == "scripted"
    assert report.variant_run.user_language_consistency == 1.0  # the user opens with the variant's own words
    # no taxonomy hit: update_task_with_initialization_data's answer is its communicate_info, which the
    # variant keeps in English because the evaluator looks for it verbatim: no language of the agent's
    assert report.variant_run.failures == {} and report.source_run.failures == {}
    lines = [TrajectoryLine.model_validate_json(line) for line in report.trajectories.read_bytes().splitlines()]
    assert [line.run for line in lines].count("variant") == 9 and [line.run for line in lines].count("source") == 9
    tool_turns = [turn for line in lines for turn in line.record.turns if turn.role == "tool"]
    assert tool_turns and all(not turn.model_made or turn.text for turn in tool_turns)


@pytest.mark.parametrize(
    "behaviour, failure",
    [
        ("english", FailureClass.WRONG_LANGUAGE),
        ("mixed", FailureClass.LANGUAGE_MIXING),
        ("digits", FailureClass.NUMERAL_SCRIPT),
        ("translated-argument", FailureClass.TOOL_MISUSE),
    ],
)
def test_each_misbehaviour_is_counted_in_its_class(mock_variants, behaviour, failure):
    from flows.evaluation.evaluate import evaluate

    settings, _, _ = mock_variants
    tasks = ["create_task_1", "update_task_1"]
    report = evaluate(
        AgentRunRequest(
            benchmark="tau2-mock",
            language="en-XA",
            models=EvaluationRequest(agent=f"scripted:{behaviour}", user="scripted"),
            task_ids=tasks,
        ),
        settings=settings,
    )
    counts = report.variant_run.failures
    assert counts.get(failure, 0) == 2, counts  # once per task
    assert set(counts) == {failure}, counts  # and nothing else
    evidence = [h.evidence for t in report.variant_run.trials for h in t.failure_evidence]
    if failure is FailureClass.TOOL_MISUSE:
        # create_task's title and update_task_status's status passed in their en-XA rendering
        assert all("(title=" in e or "(status=" in e for e in evidence), evidence
        assert [t.rewards for t in report.variant_run.tasks] == [[0.0], [0.0]]  # and the harness says it failed


def test_an_unknown_scripted_behaviour_is_refused(mock_variants):
    from babelflow.errors import BabelflowError
    from flows.evaluation.evaluate import evaluate

    settings, _, _ = mock_variants
    with pytest.raises(BabelflowError, match="scripted:<faithful"):
        evaluate(
            AgentRunRequest(
                benchmark="tau2-mock",
                language="en-XA",
                models=EvaluationRequest(agent="scripted:rude", user="scripted"),
            ),
            settings=settings,
        )


def test_tool_results_reach_a_provider_agent_as_text_and_the_harness_check_sees_escapes(mock_variants, monkeypatch):
    """ar-XB localizes the mock DB's task title (non-ASCII): tau2 would escape it as \\uXXXX."""
    import source_benchmarks.tau2.family as tau2_family
    from flows.evaluation.evaluate import evaluate
    from validators.run import validate_variant, variant_context

    settings, paths, _ = mock_variants
    source = get_benchmark("tau2-mock")
    variant = open_variant("tau2-mock", paths["ar-XB"])
    tasks = [source.task(t) for t in source.task_ids(None)] + [variant.task(t) for t in variant.task_ids(None)]
    with FakeAgentServer(tasks) as fake:
        evaluate(
            AgentRunRequest(
                benchmark="tau2-mock",
                language="ar-XB",
                models=EvaluationRequest(
                    agent=f"openai-compatible:agent@{fake.url}", user=f"openai-compatible:user@{fake.url}"
                ),
                task_ids=["update_task_1"],
            ),
            settings=settings,
        )
    shown = [text for text in fake.tool_results if "\u202e" in text]  # the localized title, right-to-left
    assert shown and not any("\\u" in text for text in fake.tool_results)
    ir = mock_variants[2]
    kinds = [f.kind for f in validate_variant(variant_context(source, paths["ar-XB"], ir, "ar-XB")).findings]
    assert "tool_output_escaped" not in kinds
    monkeypatch.setattr(tau2_family, "PLAIN_TOOL_OUTPUT", False)  # the stock harness's json.dumps
    escaped = [
        f
        for f in validate_variant(variant_context(source, paths["ar-XB"], ir, "ar-XB")).findings
        if f.kind == "tool_output_escaped"
    ]
    assert len(escaped) == 1 and "\\u202e" in escaped[0].evidence[0].target, (
        escaped
    )  # one finding for the cause, with an example
