"""The flow's optional evaluation stage: once no findings remain, agents (scripted here, offline)
run on the variant and its source; the report is a Prefect artifact and an unchanged rerun does
not evaluate again."""

from __future__ import annotations

import pytest

from babelflow.adapt_request import AdaptRequest, EvaluationRequest

pytestmark = pytest.mark.slow  # the Prefect flow through the session's test server


@pytest.fixture(scope="module")
def prefect_env(tmp_path_factory, prefect_harness):
    home = tmp_path_factory.mktemp("prefect-evaluation")
    with pytest.MonkeyPatch.context() as env:
        env.setenv("PREFECT_LOCAL_STORAGE_PATH", str(home / "storage"))
        with prefect_harness():
            yield home


def _artifact(key: str) -> str:
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterKey

    with get_client(sync_client=True) as client:
        found = client.read_artifacts(artifact_filter=ArtifactFilter(key=ArtifactFilterKey(any_=[key])))
    return str(found[0].data) if found else ""


def test_the_evaluation_stage_publishes_scores_side_by_side_and_caches(prefect_env, tmp_path):
    from flows.evaluation.report import EvaluationReport
    from flows.pipeline.prefect_flows import adapt_language

    request = AdaptRequest(
        benchmark="tau2-mock",
        language="en-XA",
        project_root=tmp_path,
        evaluation=EvaluationRequest(agent="scripted", user="scripted"),
    )
    first = adapt_language(request)
    assert first.status == "awaiting_signoff" and first.evaluation_report is not None
    assert not first.evaluation_cached
    report = EvaluationReport.model_validate_json(first.evaluation_report.read_bytes())
    assert report.source_run is not None and not report.measures_model
    assert {t.task_id: t.rewards for t in report.variant_run.tasks} == {
        t.task_id: t.rewards for t in report.source_run.tasks
    }
    markdown = _artifact("tau2-mock-en-xa-evaluation")
    assert "| source (en) | `mock` |" in markdown and "## Failure taxonomy" in markdown
    assert "Scripted run" in markdown and "Tasks scoring differently: 0 of 9" in markdown
    stamp = first.evaluation_report.stat().st_mtime_ns
    again = adapt_language(request)
    assert again.evaluation_cached and again.evaluation_report.stat().st_mtime_ns == stamp


def test_half_an_evaluation_config_is_refused_before_any_work(prefect_env, tmp_path):
    from babelflow.errors import BabelflowError
    from flows.pipeline.prefect_flows import adapt_language

    with pytest.raises(BabelflowError, match="both an agent and a user"):
        adapt_language(
            AdaptRequest(
                benchmark="tau2-mock",
                language="en-XA",
                project_root=tmp_path,
                evaluation=EvaluationRequest(agent="scripted"),
            )
        )
    assert not (tmp_path / "adapted").exists()
