"""AgentDojo banking end to end on real data: analyze → translate (en-XA) → rebuild → four layers,
then the variant registered the AgentDojo way and run by AgentDojo's own benchmark runner."""

from __future__ import annotations

from pathlib import Path

import pytest

from babelflow.adapt_request import AdaptRequest

pytest.importorskip("agentdojo")

BENCH = "agentdojo-banking"


@pytest.fixture(scope="module")
def adapted(tmp_path_factory, analyzed):
    from babelflow.settings import BabelflowSettings
    from flows.pipeline.adapt import adapt

    root = tmp_path_factory.mktemp("agentdojo")
    settings = BabelflowSettings(project_root=root)
    result = adapt(
        AdaptRequest.of_options(BENCH, "en-XA"), settings=settings, ir=analyzed(BENCH)
    )  # the session's analysis (test_analysis.py's too)
    return result


@pytest.mark.slow
def test_variant_validates_clean_on_four_layers(adapted):
    from source_benchmarks import get_benchmark, open_variant
    from validators.run import validate_variant, variant_context

    source = get_benchmark(BENCH)
    failures = validate_variant(variant_context(source, adapted.paths.variant, adapted.ir, "en-XA"))
    assert [f"{f.kind} {f.location}: {f.message}" for f in failures.findings] == []
    prompt = open_variant(BENCH, adapted.paths.variant).task("user_task_0").PROMPT
    assert (
        prompt != source.task("user_task_0").PROMPT and "bill-december-2023.txt" in prompt
    )  # translated, file name kept


@pytest.mark.slow
def test_ground_truth_parity_per_task(adapted):
    from source_benchmarks import get_benchmark, open_variant

    source, variant = get_benchmark(BENCH), open_variant(BENCH, adapted.paths.variant)
    ids = source.task_ids()
    assert len(ids) == 16 + 9
    src = {o.task_id: (o.reward, o.reward_breakdown) for o in source.replay_golden(ids)}
    tgt = {o.task_id: (o.reward, o.reward_breakdown) for o in variant.replay_golden(ids)}
    assert tgt == src
    assert sum(r for r, _ in src.values()) == 25  # every ground truth passes in the source (and so in the variant)


def suite_root() -> Path:
    from source_benchmarks.agentdojo.files import package_root

    return package_root()


@pytest.mark.slow
def test_agentdojo_runner_runs_the_registered_variant(adapted, tmp_path):
    from source_benchmarks.agentdojo.loader import load_module
    from source_benchmarks.agentdojo.registration import register_variant, variant_system_message

    version, suite = register_variant(adapted.paths.variant)
    assert version == "v1.2.2-en-XA"
    load_suites = load_module("agentdojo.task_suite.load_suites")
    assert load_suites.get_suite(version, "banking") is suite
    base = load_module("agentdojo.agent_pipeline.base_pipeline_element").BasePipelineElement
    ground_truth = load_module("agentdojo.agent_pipeline.ground_truth_pipeline").GroundTruthPipeline
    by_prompt = {task.PROMPT: task for task in suite.user_tasks.values()}

    class GroundTruthAgent(base):
        """The edge of the benchmark: an 'agent' that plays each task's ground truth,
        found by its (translated) prompt."""

        name = "ground-truth-agent"

        def query(self, query, runtime, env=None, messages=(), extra_args={}):  # noqa: B006 - upstream signature
            return ground_truth(by_prompt[query]).query(query, runtime, env, messages, extra_args)

    benchmark = load_module("agentdojo.benchmark")
    # as AgentDojo's own script does: an OutputLogger context, traces written under logdir
    with load_module("agentdojo.logging").OutputLogger(str(tmp_path)):
        results = benchmark.benchmark_suite_without_injections(
            GroundTruthAgent(), suite, logdir=tmp_path, force_rerun=True, benchmark_version=version
        )
    assert any(tmp_path.rglob("*.json"))  # the runner's own trace files
    assert len(results["utility_results"]) == 16 and all(results["utility_results"].values())
    source_message = (
        load_module("agentdojo.yaml_loader")
        and __import__("yaml").safe_load((suite_root() / "data/system_messages.yaml").read_text())["default"]
    )
    assert variant_system_message(Path(adapted.paths.variant)) not in ("", source_message)
