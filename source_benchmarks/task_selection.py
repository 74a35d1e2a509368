"""Task lookup and split selection shared by every adapter (they provide `_tasks` and `splits()`)."""

from __future__ import annotations

from typing import Any

from babelflow.errors import BabelflowError


class TaskSelection:
    id: str
    _tasks: dict[str, Any]

    def splits(self) -> dict[str, list[str]]:  # pragma: no cover - provided by the adapter
        raise NotImplementedError

    def task(self, task_id: str) -> Any:
        try:
            return self._tasks[task_id]
        except KeyError:
            raise BabelflowError(f"Unknown task id {task_id!r} for {self.id}", field="task_id", fix="use an id from the benchmark's tasks file") from None

    def task_ids(self, split: str | None = None) -> list[str]:
        """All task ids in file order, or those of one split (`all` = every task)."""
        if split is None or split == "all":
            return list(self._tasks)
        splits = self.splits()
        if split not in splits:
            raise BabelflowError(f"Unknown split {split!r} for {self.id}", fix=f"use one of: all, {', '.join(splits)}")
        wanted = set(splits[split])
        return [task_id for task_id in self._tasks if task_id in wanted]
