"""Task lookup and split selection shared by every adapter (they provide `_tasks` and `splits()`)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

import orjson
from pydantic import ValidationError

from babelflow.atomic_io import sha256_file
from babelflow.errors import BabelflowError, first_validation_error
from babelflow.ir import ArtifactFingerprint, ArtifactFormat
from babelflow.memo import BoundedMemo
from babelflow.progress import tracked
from source_benchmarks.formats import load_document

ArtifactOrigin = Literal["package", "source_dir", "fixture"]


class TaskSelection:
    id: str

    @property
    def _tasks(self) -> dict[str, Any]:  # task id -> the benchmark's own task object
        raise NotImplementedError

    def splits(self) -> dict[str, list[str]]:  # pragma: no cover - provided by the adapter
        raise NotImplementedError

    def task(self, task_id: str) -> Any:
        try:
            return self._tasks[task_id]
        except KeyError:
            raise BabelflowError(
                f"Unknown task id {task_id!r} for {self.id}",
                field="task_id",
                fix="use an id from the benchmark's tasks file",
            ) from None

    def task_ids(self, split: str | None = None) -> list[str]:
        """All task ids in file order, or those of one split (`all` = every task)."""
        if split is None or split == "all":
            return list(self._tasks)
        splits = self.splits()
        if split not in splits:
            raise BabelflowError(f"Unknown split {split!r} for {self.id}", fix=f"use one of: all, {', '.join(splits)}")
        wanted = set(splits[split])
        return [task_id for task_id in self._tasks if task_id in wanted]


# (model, digest of the task's JSON) -> validated task: telecom's 2,285 tasks for a few variants at once
_VALIDATED: BoundedMemo[tuple[str, bytes], Any] = BoundedMemo("validated tasks", 20_000)


def _validated(model: Any, item: Any) -> Any:
    """A task validated by its model, once per process per distinct task content.

    The integrity check, the behaviour replays and every language's variant load the same
    2,285 telecom tasks, of which a rerun changed a few. Replays read tasks and never change them;
    each caller still gets its own top-level copy."""
    try:
        key = (f"{model.__module__}.{model.__qualname__}", hashlib.blake2b(orjson.dumps(item), digest_size=16).digest())
    except TypeError:  # not JSON-encodable: validate without the memo
        return model.model_validate(item)
    return _VALIDATED.get_or_compute(key, lambda: model.model_validate(item)).model_copy()


class FileBenchmark(TaskSelection):
    """What every file-backed adapter shares: artifact access, fingerprints, task parsing, replays.

    Subclasses set `packaged_origin`, `environment_factory`, `source_dir`, implement `_resolve`
    and `artifacts`, and point `_golden_task` / `_do_nothing_task` at their replay functions.
    """

    packaged_origin: ArtifactOrigin = "package"
    source_dir: Path | None = None
    environment_factory: Any
    _golden_task: Any
    _do_nothing_task: Any

    def _resolve(self, relative: str):  # pragma: no cover - provided by the adapter
        raise NotImplementedError

    def artifacts(self) -> list:  # pragma: no cover - provided by the adapter
        raise NotImplementedError

    def _split_path(self):  # pragma: no cover - provided by the adapter
        raise NotImplementedError

    def splits(self) -> dict[str, list[str]]:
        """The benchmark's named task splits (none when it has no split file)."""
        path = self._split_path()
        return load_document(path, ArtifactFormat.JSON) if path.exists() else {}

    def artifact_path(self, spec):
        return self._resolve(spec.path)

    def origin_of(self, spec) -> ArtifactOrigin:
        return (
            "source_dir"
            if self.source_dir is not None and self.source_dir in self.artifact_path(spec).parents
            else self.packaged_origin
        )

    def load_artifact(self, spec) -> Any:
        return load_document(self.artifact_path(spec), spec.format)

    def fingerprints(self) -> list:
        return [
            ArtifactFingerprint(
                path=a.path,
                format=a.format,
                role=a.role,
                sha256=sha256_file(self.artifact_path(a)),
                origin=self.origin_of(a),
            )
            for a in self.artifacts()
        ]

    @staticmethod
    def parse_tasks(path, raw: Any, model: Any, label: str, fix: str) -> dict[str, Any]:
        """Validate a task list with the benchmark's own Task model; the first error names its field."""
        if isinstance(raw, dict) and "tasks" in raw:
            raw = raw["tasks"]
        if not isinstance(raw, list):
            raise BabelflowError("tasks.json must hold a list of tasks", file=path, fix=fix)
        tasks: dict[str, Any] = {}
        if len(_VALIDATED) > 100_000:
            _VALIDATED.clear()
        for index, item in enumerate(raw):
            try:
                task = _validated(model, item)
            except ValidationError as exc:
                message, field = first_validation_error(exc)
                raise BabelflowError(
                    f"task #{index} does not fit {label}'s Task model: {message}",
                    file=path,
                    field=f"[{index}].{field}",
                    fix=fix,
                ) from exc
            if task.id in tasks:
                raise BabelflowError(
                    f"duplicate task id {task.id!r}", file=path, field=f"[{index}].id", fix="task ids must stay unique"
                )
            tasks[task.id] = task
        return tasks

    def build_environment(self, solo_mode: bool = False) -> Any:
        return self.environment_factory(solo_mode=solo_mode)

    def validate_artifacts(self) -> list[str]:
        """Load the models, the tasks and every data artifact with the benchmark's own code; return
        nothing or raise a clear error that names the file."""
        self.environment_factory.check_models()
        _ = self._tasks
        for spec in self.artifacts():
            if spec.format is not ArtifactFormat.PYTHON:
                self.load_artifact(spec)
        return []

    def replay_golden(self, task_ids=None, observer=None, scored: bool = True, label: str = "golden replays") -> list:
        ids = list(task_ids) if task_ids is not None else self.task_ids()
        return [
            type(self)._golden_task(self.task(task_id), self.environment_factory, observer, scored)
            for task_id in tracked(ids, label, len(ids))
        ]

    def run_do_nothing(self, task_ids=None) -> list:
        ids = list(task_ids) if task_ids is not None else self.task_ids()
        return [type(self)._do_nothing_task(self.task(task_id), self.environment_factory) for task_id in ids]


def covering_sample(tasks: list[Any], limit: int, functions: Callable[[Any], set[str]]) -> set[str]:
    """Tasks that together run the most functions (`functions(task)`: what a task runs): greedily, those
    that run functions not yet covered, at most `limit`, file order on ties. Traced replays watch their DB
    and differential trials rerun them."""
    remaining = {task.id: functions(task) for task in tasks}
    covered: set[str] = set()
    chosen: list[str] = []
    while remaining and len(chosen) < limit:
        best = max(remaining, key=lambda task_id: len(remaining[task_id] - covered))
        if not remaining[best] - covered:
            break
        chosen.append(best)
        covered |= remaining.pop(best)
    return set(chosen)
