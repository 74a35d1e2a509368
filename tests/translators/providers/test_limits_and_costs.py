"""The shared per-provider limit, backoff arithmetic, Retry-After parsing, and the cost report as a
rich table and as a Prefect table artifact."""

from __future__ import annotations

import os
import threading
import time
from email.utils import formatdate

import pytest
from fakes import Fault, request

from babelflow.llm.costs import CostLedger, cost_rows, cost_table, publish_costs
from babelflow.llm.resilience import ProviderLimiter, backoff_delay, limiter_for, retry_after_seconds


def _run_in_threads(translators) -> None:
    errors: list[BaseException] = []

    def work(translator):
        try:
            assert translator.translate(request()).failed == {}
        except BaseException as exc:  # noqa: BLE001 - surfaced below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(t,)) for t in translators]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []


@pytest.mark.parametrize("concurrency", [1, 3])
def test_one_limit_is_shared_by_every_translator_of_a_provider(concurrency, fake, make_translator):
    # two translators (say, two languages in one process), each splitting its batch in 3 requests
    translators = [make_translator("anthropic", f"batch=2&backoff=0.01&concurrency={concurrency}") for _ in range(2)]
    assert limiter_for(translators[0].config) is limiter_for(translators[1].config)
    _run_in_threads(translators)
    assert len(fake.state.requests("anthropic")) == 6
    if concurrency == 1:
        assert fake.state.max_inflight == 1
    else:
        assert 2 <= fake.state.max_inflight <= 3


def test_rpm_token_bucket_spaces_requests():
    limiter = ProviderLimiter(concurrency=8, rpm=1200)  # 20 per second, bursts of 20
    started = time.monotonic()
    for _ in range(30):
        with limiter.slot():
            pass
    assert time.monotonic() - started >= 0.4


def test_a_429_cools_down_the_whole_provider(fake, make_translator):
    fake.script("dashscope", Fault("429"))  # DashScope's carry no Retry-After: the floor is the cool-down
    first, second = (make_translator("dashscope", "backoff=0.01&throttle_floor=0.4") for _ in range(2))
    thread = threading.Thread(target=lambda: first.translate(request()))
    thread.start()
    time.sleep(0.15)  # the first translator has been told to wait; a second one starts meanwhile
    assert second.translate(request()).failed == {}
    thread.join()
    throttled, *later = sorted(fake.state.requests("dashscope"), key=lambda s: s.at)
    assert throttled.status == 429 and len(later) == 2
    assert all(s.at - throttled.at >= 0.4 for s in later)  # the second translator waited out the cool-down too


def test_backoff_honours_retry_after_and_grows_with_jitter():
    assert all(0.2 <= backoff_delay(0, 1.0, 0.2) <= 0.22 for _ in range(50))
    assert all(
        0.2 <= backoff_delay(0, 1.0, 0.2, floor=15) <= 0.22 for _ in range(50)
    )  # the provider said when: no floor
    floored = [backoff_delay(attempt, 1.0, None, floor=15) for attempt in range(5)]
    assert all(d >= 15 for d in floored) and sum(floored) >= 60  # five retries outlast a per-minute quota window
    assert all(d <= 30 for d in floored[:4])  # jitter on the floor stays small
    for attempt in range(4):
        delays = [backoff_delay(attempt, 0.5, None) for _ in range(50)]
        assert all(0.25 * 2**attempt <= d <= 0.5 * 2**attempt for d in delays)
        assert len(set(delays)) > 1  # jitter


def test_retry_after_forms():
    assert retry_after_seconds({"Retry-After": "0.2"}) == 0.2
    assert retry_after_seconds({"retry-after-ms": "1500"}) == 1.5
    assert 8 <= retry_after_seconds({"Retry-After": formatdate(time.time() + 10, usegmt=True)}) <= 10
    assert retry_after_seconds({}) is None and retry_after_seconds({"Retry-After": "soon"}) is None


def test_cost_table_and_estimates():
    ledger = CostLedger()
    ledger.record(
        stage="translate",
        language="zh-Hans",
        provider="dashscope",
        model="qwen",
        input_tokens=100,
        output_tokens=40,
        estimated=False,
    )
    ledger.record(
        stage="translate",
        language="hi",
        provider="openai",
        model="gpt",
        input_tokens=10,
        output_tokens=5,
        estimated=True,
    )
    ledger.record(
        stage="validate",
        language="zh-Hans",
        provider="anthropic",
        model="claude",
        input_tokens=7,
        output_tokens=3,
        estimated=False,
    )
    report = ledger.report()
    assert (
        report.total() == (117, 48)
        and report.total(stage="translate") == (110, 45)
        and report.total(language="zh-Hans") == (107, 43)
    )
    rows = cost_rows(report)
    assert rows[-1]["stage"] == "total" and rows[-1]["input tokens"] == "117 (incl. est.)"
    assert next(r for r in rows if r["language"] == "hi")["input tokens"] == "10 (est.)"
    assert cost_table(report).row_count == 4


@pytest.mark.slow  # a Prefect test server
def test_publish_costs_writes_a_prefect_table_artifact(tmp_path, monkeypatch, prefect_harness):
    monkeypatch.setenv("PREFECT_HOME", str(tmp_path / "prefect"))
    from prefect import flow
    from prefect.client.orchestration import get_client

    ledger = CostLedger()
    ledger.record(
        stage="translate",
        language="zh-Hans",
        provider="dashscope",
        model="qwen",
        input_tokens=1234,
        output_tokens=567,
        estimated=False,
    )

    @flow
    def publishing():
        return publish_costs(ledger.report(), key="tau2-mock zh-Hans costs")

    with prefect_harness():  # the session's Prefect test server (tests/conftest.py)
        artifact_id = publishing()

        async def read():  # the server is the session's (other modules' artifacts too): ask for this one by id
            from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterId

            async with get_client() as client:
                return await client.read_artifacts(
                    artifact_filter=ArtifactFilter(id=ArtifactFilterId(any_=[artifact_id]))
                )

        import asyncio

        artifacts = asyncio.run(read())
    (artifact,) = [a for a in artifacts if a.id == artifact_id]
    assert artifact.key == "tau2-mock-zh-hans-costs" and artifact.type == "table"
    assert "1,234" in str(artifact.data) and "dashscope" in str(artifact.data)
    assert os.environ["PREFECT_HOME"] == str(tmp_path / "prefect")
