"""The VitaBench adapter: one domain's task file, its tasks as VitaBench's Task model, its tools.

Each VitaBench task embeds its whole environment (user, time, weather, locations, stores with
products, orders), so the task file is the benchmark's one data artifact. A variant mirrors the
VitaBench tree: adapted/<id>/<lang>/data/vita/domains/<domain>/<file>.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cached_property
from pathlib import Path
from typing import Any

from babelflow.errors import BabelflowError
from babelflow.gc_pause import gc_paused
from babelflow.ir import ArtifactFormat, ArtifactRole
from babelflow.language_id import identify
from babelflow.llm.prompts import language_name
from babelflow.progress import tracked
from source_benchmarks.formats import confined_file, load_document, source_folder
from source_benchmarks.protocol import ArtifactSpec, FlatReading, ReplayOutcome, ToolCallObserver
from source_benchmarks.registry import family_of
from source_benchmarks.task_selection import FileBenchmark, covering_sample
from source_benchmarks.tracing import RECORDER, TRACE_LOCK
from source_benchmarks.vita.domains import VitaDomain, vita_domain
from source_benchmarks.vita.harness import LOCK, environment, vita
from source_benchmarks.vita.replay import play_nothing, play_scripted
from source_benchmarks.vita.runtime import require_runtime
from source_benchmarks.vita.scripted_calls import scripted_calls
from source_benchmarks.vita.traced_calls import trace_task

TASK_MODEL = "vita.data_model.tasks:Task"


class VitaBenchmark(FileBenchmark):
    """One VitaBench domain; `source_dir` (a variant or a copy) mirrors the VitaBench tree."""

    def __init__(self, benchmark_id: str, source_dir: Path | None = None, variant: bool = False):
        self.domain: VitaDomain = vita_domain(benchmark_id)
        self.id = benchmark_id
        runtime = require_runtime()
        self.root = runtime.source_root
        self.version = runtime.vita_version
        self.source_dir = source_folder(source_dir, f"the VitaBench tree ({self.domain.tasks_file})")
        self.overlay = None
        self.variant = variant  # an adapted variant: its texts are in the target language, not the source's

    # ---- files -------------------------------------------------------------------------------

    def artifacts(self) -> list[ArtifactSpec]:
        return [
            ArtifactSpec(
                path=self.domain.tasks_file,
                format=ArtifactFormat.JSON,
                role=ArtifactRole.TASKS,
                data_model=TASK_MODEL,
                keys_are_text=True,  # its authors translated the environment's keys between releases
                embeds_environment=True,
                # evaluator_traj._initialize_rubric_states: each state's rubrics, in order, each once;
                # nothing else of an expected state is read by VitaBench's code
                read_flat=(
                    FlatReading(path=("evaluation_criteria", "expected_states"), items="state_rubrics", distinct=True),
                ),
            )
        ]

    def _resolve(self, relative: str) -> Path:
        if self.source_dir is not None:
            candidate = confined_file(self.source_dir, relative)
            if candidate is not None:
                return candidate
        return self.root / relative

    def _split_path(self) -> Path:
        return self.root / "data" / "vita" / "no-splits.json"  # VitaBench has no split files

    @property
    def source_version(self) -> str:
        """VitaBench's version, the domain, and babelflow's probe code: a saved IR is reused only when all hold."""
        return f"vita=={self.version}:{self.domain.domain}:probe-{family_of(self.id).code_version()[-12:]}"

    # ---- tasks -------------------------------------------------------------------------------

    @cached_property
    def _tasks(self) -> dict[str, Any]:
        path = self._resolve(self.domain.tasks_file)
        raw = load_document(path, ArtifactFormat.JSON)
        tasks = self.parse_tasks(
            path, raw, vita().task_model, "VitaBench", "keep the task schema: keys, ids, statuses and types unchanged"
        )
        for index, (task_id, task) in enumerate(tasks.items()):
            if self.domain.stores_key not in task.environment:  # a task's `domain` is a free label ("in-store")
                raise BabelflowError(
                    f"task {task_id} is not a task of {self.domain.domain}: its environment has no "
                    f"{self.domain.stores_key!r} ({', '.join(task.environment) or 'empty'})",
                    file=path,
                    field=f"[{index}].environment",
                    fix=f"pass the task file of {self.domain.domain} ({self.domain.tasks_file})",
                )
        return tasks

    # ---- execution ---------------------------------------------------------------------------

    def tool_schemas(self) -> list[dict[str, Any]]:
        first = next(iter(self._tasks.values()))
        with LOCK:
            return [tool.openai_schema for tool in environment(self.domain, first).get_tools()]

    def validate_artifacts(self) -> list[str]:
        """The tasks load with VitaBench's model; a source is in its domain's source language; a copy given
        with --source-dir (or a variant) keeps every store the packaged tasks name."""
        tasks = self._tasks
        path = self._resolve(self.domain.tasks_file)
        if not self.variant:
            self._check_language(path, tasks)
        if self.source_dir is not None:
            self._check_stores(path, tasks)
        return []

    def _check_language(self, path: Path, tasks: dict[str, Any]) -> None:
        language = self.domain.source_language
        sample = [str(task.instructions) for task in list(tasks.values())[:8]]
        found = identify(" ".join(sample), tuple(dict.fromkeys((language, "en", "zh"))), min_letters=40)
        if found is not None and found != language:
            raise BabelflowError(
                f"the tasks are written in {language_name(found)}, but {self.id}'s source is {language_name(language)}",
                file=path,
                field="[*].instructions",
                fix=f"pass {self.id}'s own task file ({self.domain.tasks_file} of the VitaBench tree in "
                f"{language_name(language)}); a translation of it is a variant: babelflow validate {self.id} "
                "--variant DIR",
            )

    def _check_stores(self, path: Path, tasks: dict[str, Any]) -> None:
        packaged = VitaBenchmark(self.id, variant=True)._tasks
        key = self.domain.stores_key
        for index, (task_id, task) in enumerate(tasks.items()):
            source = packaged.get(task_id)
            if source is None:
                continue
            missing = sorted(set(source.environment.get(key) or {}) - set(task.environment.get(key) or {}))
            if missing:
                raise BabelflowError(
                    f"task {task_id}'s environment has lost {len(missing)} of its {key}: {', '.join(missing[:3])}",
                    file=path,
                    field=f"[{index}].environment.{key}",
                    fix="keep every store of the source's task (ids and records); translate their texts only",
                )

    def replay_golden(
        self,
        task_ids: Any = None,
        observer: ToolCallObserver | None = None,
        scored: bool = True,
        label: str = "scripted calls",
    ) -> list[ReplayOutcome]:
        ids = list(task_ids) if task_ids is not None else self.task_ids()
        return [play_scripted(self.domain, self.task(task_id), observer) for task_id in tracked(ids, label, len(ids))]

    def run_do_nothing(self, task_ids: Any = None) -> list[ReplayOutcome]:
        ids = list(task_ids) if task_ids is not None else self.task_ids()
        return [play_nothing(self.domain, self.task(task_id)) for task_id in ids]

    # ---- traced replays (the analysis: family.traced_replay) -----------------------------------

    def replay_pairs(
        self, task_ids: Iterable[str] | None = None, *, label: str = "scripted calls"
    ) -> list[tuple[ReplayOutcome, ReplayOutcome]]:
        ids = list(task_ids) if task_ids is not None else self.task_ids()
        return [
            (play_scripted(self.domain, self.task(task_id)), play_nothing(self.domain, self.task(task_id)))
            for task_id in tracked(ids, label, len(ids))
        ]

    def task_functions(self, task_id: str) -> set[str]:
        return {f"assistant:{call.name}" for call in scripted_calls(self.domain, self.task(task_id))}

    def watched_tasks(self, limit: int) -> set[str]:
        """Tasks whose scripted calls together reach most tools (the differential trial replays them)."""
        return covering_sample([self.task(task_id) for task_id in self.task_ids(None)], limit, self._functions)

    def _functions(self, task: Any) -> set[str]:
        return self.task_functions(task.id)

    def trace(self, task_ids: Iterable[str] | None = None, label: str = "analysis: traced scripted calls") -> dict:
        """{(artifact, path, is_key): {kind: detail}} over the tasks (traced_calls.py)."""
        path = self._resolve(self.domain.tasks_file)
        raw = load_document(path, ArtifactFormat.JSON)
        index_of = {item.get("id"): index for index, item in enumerate(raw)}
        ids = list(task_ids) if task_ids is not None else self.task_ids(None)
        model = vita().task_model
        with TRACE_LOCK, LOCK, gc_paused():  # one recorder per process: concurrent analyses take turns
            RECORDER.observations = {}
            try:
                for task_id in tracked(ids, label, len(ids)):
                    index = index_of[task_id]
                    trace_task(self.domain, model.model_validate(raw[index]), index, self.domain.tasks_file)
                return RECORDER.observations
            finally:
                RECORDER.observations, RECORDER.task_id = {}, None
