"""`babelflow flow BENCHMARK --lang … --pool NAME`: one flow run per (benchmark, language) on a Prefect
work pool, through deployments and `run_deployment`; workers (`prefect worker start --pool NAME`, each in
its own clone) pick them up and share state through babelflow/shared_state.

The command creates what it needs on the server, idempotently: the process work pool, the
`babelflow-results` storage block (Prefect's task results in the shared object storage, so a cached
stage is cached for every worker), the `adapt-language/<pool>` deployment, and one global concurrency
limit per model provider (`--provider-limit openai=4`). It then waits for the runs and reads each one's
AdaptFlowResult. A run whose worker died (its shared run lock's database session is gone while Prefect
still says Running) is marked Crashed and submitted again: the next worker resumes from the shared state.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from prefect.client.orchestration import get_client
from prefect.client.schemas.actions import WorkPoolCreate
from prefect.client.schemas.objects import FlowRun
from prefect.deployments import run_deployment
from prefect.exceptions import ObjectNotFound
from prefect.filesystems import LocalFileSystem, RemoteFileSystem
from prefect.states import Crashed, State

from babelflow.adapt_request import AdaptRequest
from babelflow.ir import Record
from babelflow.shared_state.config import SharedStateConfig, require_shared_config
from babelflow.shared_state.stores import open_stores
from flows.pipeline.flow_results import AdaptFlowResult, outcome
from flows.pipeline.launch import PoolOptions
from flows.pipeline.prefect_flows import adapt_language
from flows.pipeline.run_guard import deployed_parameters
from flows.pipeline.shared_run import PROVIDER_LIMIT_PREFIX, run_lock_name

RESULTS_BLOCK = "babelflow-results"
# a module path, not a file: the run imports flows.pipeline.prefect_flows, so its pickled AdaptFlowResult names a
# class the submitter can import (a file entrypoint loads it as the module `prefect_flows`)
ENTRYPOINT = "flows.pipeline.prefect_flows.adapt_language"
# the worker's clone: flow runs start there (set BABELFLOW_ROOT in each worker's environment)
PULL_STEPS = [{"prefect.deployments.steps.set_working_directory": {"directory": "{{ $BABELFLOW_ROOT }}"}}]
FLOW_ENV = {
    "DO_NOT_TRACK": "1",
    "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
    "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    "PREFECT_RESULTS_DEFAULT_STORAGE_BLOCK": f"remote-file-system/{RESULTS_BLOCK}",
    "PREFECT_RESULTS_PERSIST_BY_DEFAULT": "true",  # the run's AdaptFlowResult, read back by the submitter
    # results in shared storage are read by every worker: JSON (pydantic records by class name), not pickle
    "PREFECT_RESULTS_DEFAULT_SERIALIZER": "json",
}


class PoolRun(Record):
    language: str
    flow_run_id: str
    state: str
    worker: str = ""
    resubmitted_from: list[str] = []


def results_block(config: SharedStateConfig) -> RemoteFileSystem | LocalFileSystem:
    """Prefect's task results beside the shared state; credentials stay in each process's environment."""
    base = f"{config.namespace}/_prefect-results"
    if config.is_s3:
        return RemoteFileSystem(
            basepath=base, settings={"endpoint_url": config.endpoint_url} if config.endpoint_url else {}
        )
    return LocalFileSystem(basepath=base.removeprefix("file://"))


def prepare_pool(
    pool: str,
    parameters: dict[str, Any],
    provider_limits: dict[str, int],
    config: SharedStateConfig,
    *,
    concurrency_limit: int | None = None,
) -> str:
    """The pool, the results block, the deployment (at most `concurrency_limit` of its runs at once) and
    the provider limits; returns 'adapt-language/<pool>'."""
    results_block(config).save(RESULTS_BLOCK, overwrite=True)
    with get_client(sync_client=True) as client:
        try:
            client.read_work_pool(pool)
        except ObjectNotFound:
            client.create_work_pool(WorkPoolCreate(name=pool, type="process"))
        flow_id = client.create_flow_from_name(adapt_language.name)
        client.create_deployment(
            flow_id,
            pool,
            work_pool_name=pool,
            entrypoint=ENTRYPOINT,
            pull_steps=PULL_STEPS,
            parameters=parameters,
            concurrency_limit=concurrency_limit,
            job_variables={"env": FLOW_ENV},
            tags=["babelflow"],
            description="babelflow flow --pool: one run per (benchmark, language); deploy-time parameters fixed",
        )
        for provider, limit in provider_limits.items():
            client.upsert_global_concurrency_limit_by_name(PROVIDER_LIMIT_PREFIX + provider, limit)
    return f"{adapt_language.name}/{pool}"


def submit(deployment: str, request: AdaptRequest, queue: str | None = None) -> FlowRun:
    run = run_deployment(
        deployment,
        parameters={"request": request.model_dump(mode="json")},
        timeout=0,  # submitted only: the waiting is ours, with the crash check
        as_subflow=False,
        work_queue_name=queue,
    )
    return run  # type: ignore[return-value]  # run_deployment is sync-compatible: called here it returns the run


def wait_for_runs(
    runs: dict[str, FlowRun],
    resubmit: Callable[[str], FlowRun],
    config: SharedStateConfig,
    benchmark: str,
    poll: float = 2.0,
    say: Callable[[str], None] = print,
) -> tuple[dict[str, State], dict[str, PoolRun]]:
    """Wait until every language's run is final. A run still Running whose shared lock names it and whose
    database session is gone lost its worker: marked Crashed, submitted again."""
    documents = open_stores(config).documents
    records = {lang: PoolRun(language=lang, flow_run_id=str(r.id), state="Scheduled") for lang, r in runs.items()}
    final: dict[str, State] = {}
    with get_client(sync_client=True) as client:
        while len(final) < len(runs):
            for language, submitted in list(runs.items()):
                if language in final:
                    continue
                current = client.read_flow_run(submitted.id)
                state = current.state
                if state is None:
                    continue
                records[language].state = state.name or state.type.value
                if state.is_final():
                    final[language] = state
                    records[language].worker = _worker_of(client, current)
                    continue
                holder = documents.holder(run_lock_name(benchmark, language)) if state.is_running() else None
                if holder is not None and not holder.alive and holder.holder.endswith(str(submitted.id)):
                    client.set_flow_run_state(
                        submitted.id, Crashed(message="its worker died (shared run lock released)"), force=True
                    )
                    again = resubmit(language)
                    say(f"{language}: flow run {submitted.id} lost its worker: Crashed; resubmitted as {again.id}")
                    records[language].resubmitted_from.append(str(submitted.id))
                    records[language].flow_run_id = str(again.id)
                    runs[language] = again
            time.sleep(poll)
    return final, records


def _worker_of(client: Any, run: FlowRun) -> str:
    """The worker that ran it, as Prefect recorded it (the flow run's infrastructure pid and hostname)."""
    return str(run.infrastructure_pid or "")


def run_on_pool(
    request: AdaptRequest,
    languages: list[str],
    pool: PoolOptions,
    say: Callable[[str], None] = print,
) -> tuple[list[AdaptFlowResult], list[PoolRun]]:
    """One run of `request` per language on the pool's workers; waits for them all."""
    config = require_shared_config()
    deployment = prepare_pool(
        pool.name, deployed_parameters(request), pool.provider_limits, config, concurrency_limit=pool.max_concurrency
    )
    runs = {lang: submit(deployment, request.for_language(lang)) for lang in languages}
    for language, run in runs.items():
        say(f"{language}: flow run {run.id} submitted to work pool {pool.name}")
    resubmit = lambda lang: submit(deployment, request.for_language(lang))  # noqa: E731
    states, records = wait_for_runs(runs, resubmit, config, request.benchmark, say=say)
    results = [outcome(states[lang]) for lang in languages]
    stages = [stage for result in results for round_ in result.rounds for stage in round_.stages]
    executed = sum(not stage.cached for stage in stages)
    say(f"stages executed: {executed} of {len(stages)} (the rest Cached, from the shared results)")
    return results, [records[lang] for lang in languages]
