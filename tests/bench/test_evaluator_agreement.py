"""bench/evaluator_agreement.py: τ²'s stock evaluator on tau2-mock and its en-XA variant, clean and with a gold
argument broken (slow: τ²'s registry and evaluator load in ~40 s on a loaded machine)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from rich.console import Console

from babelflow.adapt_request import AdaptRequest
from babelflow.settings import BabelflowSettings, apply_offline_environment

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def mock_scores(tmp_path_factory):
    from bench.evaluator_agreement import _score_all
    from flows.pipeline.adapt import adapt
    from source_benchmarks import get_benchmark

    apply_offline_environment()
    root = tmp_path_factory.mktemp("agreement")
    variant = Path(
        adapt(
            AdaptRequest.of_options("tau2-mock", "en-XA"), settings=BabelflowSettings(project_root=root)
        ).paths.variant
    )
    return _score_all(get_benchmark("tau2-mock"), "mock", lambda line: None), variant


def test_clean_variant_agrees_on_every_task(mock_scores):
    from bench.evaluator_agreement import compare

    source, variant = mock_scores
    result = compare("tau2-mock", "en-XA", source, variant, Console(stderr=True))
    assert result.tasks == 9 and result.all_agree == 9, result.disagreements


def test_a_broken_gold_argument_disagrees(mock_scores, tmp_path):
    from bench.evaluator_agreement import compare

    source, variant = mock_scores
    planted = tmp_path / "variant"
    shutil.copytree(variant, planted)
    tasks_path = next(planted.rglob("tasks.json"))
    tasks = json.loads(tasks_path.read_text())
    task = next(t for t in tasks if t["id"] == "update_task_1")
    task["evaluation_criteria"]["actions"][0]["arguments"]["task_id"] = "task_404"
    tasks_path.write_text(json.dumps(tasks))
    result = compare("tau2-mock", "en-XA", source, planted, Console(stderr=True))
    assert result.all_agree == 8 and list(result.disagreements) == ["update_task_1"]
    assert result.tool_errors_agree == 8 and result.nothing_agree == 8
