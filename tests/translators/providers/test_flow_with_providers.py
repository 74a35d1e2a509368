"""The Prefect flow with a model translator and three model validators (loopback fakes):
completes, publishes the cost table artifact, and leaves no key in any file it wrote."""

from __future__ import annotations

import orjson
import pytest
from fakes import KEYS, MODELS, SDKS


@pytest.mark.slow  # the whole Prefect flow
def test_flow_with_provider_translator_and_validators(tmp_path, monkeypatch, fake, prefect_harness):
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterKey
    from prefect.client.schemas.sorting import ArtifactSort

    from babelflow.adapt_request import AdaptRequest
    from flows.pipeline.prefect_flows import adapt_language

    monkeypatch.setenv("PREFECT_LOCAL_STORAGE_PATH", str(tmp_path / "project" / ".babelflow" / "prefect" / "storage"))
    validators = ",".join(f"{p}:{MODELS[p]}" for p in SDKS)
    with prefect_harness():  # the session's Prefect test server (tests/conftest.py), shared with other modules' runs
        result = adapt_language(
            AdaptRequest.of_options(
                benchmark="tau2-mock",
                language="zh-Hans",
                translator=f"dashscope:{MODELS['dashscope']}",
                validators=validators,
            ).model_copy(update={"project_root": tmp_path / "project"})
        )
        with get_client(sync_client=True) as client:  # the newest artifact under the key: this run's
            by_key = ArtifactFilter(key=ArtifactFilterKey(any_=["tau2-mock-zh-hans-costs"]))
            artifacts = {
                a.key: a for a in client.read_artifacts(artifact_filter=by_key, sort=ArtifactSort.CREATED_DESC, limit=1)
            }
    assert result.status == "awaiting_signoff" and result.rounds[0].findings == 0
    costs = artifacts["tau2-mock-zh-hans-costs"]
    assert costs.type == "table"
    rows = orjson.loads(costs.data) if isinstance(costs.data, (str, bytes)) else costs.data
    providers = {row["provider"] for row in rows if row["stage"] in ("translate", "validate")}
    assert providers == set(SDKS)
    # the terms stage's calls and the prose's, apart; together every translation token the provider saw
    translating = [row for row in rows if row["stage"] in ("terms", "translate")]
    assert {row["stage"] for row in translating} == {"terms", "translate"}
    paid = sum(int(row["input tokens"].replace(",", "")) for row in translating)
    assert paid == fake.state.usage("dashscope", "translate")[0]
    queue = orjson.loads(next((tmp_path / "project" / ".babelflow" / "review").rglob("queue.json")).read_bytes())
    assert queue["validators"] == ["probes"] + [f"validator-{n}-{p}" for n, p in enumerate(SDKS, start=1)]
    leaks = [
        str(p)
        for p in (tmp_path / "project").rglob("*")
        if p.is_file() and any(k.encode() in p.read_bytes() for k in KEYS.values())
    ]
    assert leaks == []
