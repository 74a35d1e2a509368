"""τ³'s files as babelflow sees them: the artifact list and where each file is read from.

Shared by the main process (file methods read τ³'s data directly, no worker needed) and the worker
(which runs the code on the same files). A variant's `source_dir` mirrors τ³'s `data/` folder;
files present there replace the source's, one by one (banking_knowledge's task and document
folders too: a variant holding only its translated files still sees all 97 tasks and 698 documents).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from babelflow.errors import BabelflowError
from babelflow.ir import ArtifactFormat, ArtifactRole
from source_benchmarks.formats import confined_file, load_document
from source_benchmarks.protocol import ArtifactSpec
from source_benchmarks.task_selection import FileBenchmark
from source_benchmarks.tau3.domains import USER_GUIDELINES, task_folder
from source_benchmarks.tau3.mirrored_models import TASK_MODEL, mirrored
from source_benchmarks.tau_common import traced_replay
from source_benchmarks.tau_common.domains import (
    Tau2DomainSpec,
    database_artifacts,
    guideline_and_code_artifacts,
    policy_artifacts,
    split_artifact,
)

DOCUMENT_ROLE = ArtifactRole.POLICY  # the documents are the agent's policy, retrieved piecewise
DISCOVERABLE_CALLS = {
    "call_discoverable_agent_tool": "agent_tool_name",
    "call_discoverable_user_tool": "discoverable_tool_name",
    "unlock_discoverable_agent_tool": "agent_tool_name",
    "give_discoverable_user_tool": "discoverable_tool_name",
}


def task_functions(task: Any) -> set[str]:
    """The τ² tracer's count of a task's functions, banking's discoverable calls by the tool they reach
    (`call_discoverable_agent_tool` reaches 48 different tools)."""
    return traced_replay.task_functions(task, DISCOVERABLE_CALLS)


def watch_sample(tasks: list[Any], limit: int) -> set[str]:
    """Task ids whose replays together run the most functions (greedy, file order on ties), at most `limit`."""
    return traced_replay.db_watch_sample(tasks, limit, task_functions)


class Tau3Files:
    """Artifacts of one τ³ domain: `data_dir` is τ³'s data/ folder, `code_dir` its `tau2` package."""

    spec: Tau2DomainSpec
    data_dir: Path
    code_dir: Path
    source_dir: Path | None = None

    def _listing(self, folder: str, pattern: str) -> list[str]:
        """Names in one of the source's folders (the variant's folder only replaces them)."""
        directory = self.data_dir.parent / self.spec.data_dir / folder
        return sorted(path.name for path in directory.glob(pattern) if path.is_file())

    def task_files(self) -> list[str]:
        """Task files relative to the domain folder, in τ³'s load order."""
        if task_folder(self.spec):
            return [f"tasks/{name}" for name in self._listing("tasks", "task_*.json")]
        return ["tasks.json"]

    def read_tasks(self, model: Any) -> dict[str, Any]:
        """Every task file validated with `model` (τ³'s own Task, or the mirror the worker's client
        reads), in load order; a task id may appear once across the files."""
        tasks: dict[str, Any] = {}
        for name in self.task_files():
            path = self._resolve_domain_file(name)
            raw = load_document(path, ArtifactFormat.JSON)
            parsed = FileBenchmark.parse_tasks(
                path, [raw] if task_folder(self.spec) else raw, model, "τ³", "keep τ³'s task schema"
            )
            for task_id, task in parsed.items():
                if task_id in tasks:
                    raise BabelflowError(
                        f"duplicate task id {task_id!r}", file=path, field="id", fix="task ids must stay unique"
                    )
                tasks[task_id] = task
        return tasks

    def artifacts(self) -> list[ArtifactSpec]:
        spec, data = self.spec, self.spec.data_dir
        items = database_artifacts(spec, mirrored)
        # banking's task folder is one logical tasks artifact split in files of one task each
        one_per_file = task_folder(spec)
        for name in self.task_files():
            items.append(
                ArtifactSpec(
                    path=f"{data}/{name}",
                    format=ArtifactFormat.JSON,
                    role=ArtifactRole.TASKS,
                    data_model=mirrored(TASK_MODEL),
                    group=f"{data}/tasks/*.json" if one_per_file else None,
                    holds_list=not one_per_file,
                )
            )
        if (self.data_dir.parent / data / "split_tasks.json").is_file():
            items.append(split_artifact(spec))
        items += policy_artifacts(spec)
        if task_folder(spec):  # banking_knowledge: the documents and the prompt templates retrieval.py assembles
            for name in self._listing("documents", "*.json"):
                items.append(
                    ArtifactSpec(
                        path=f"{data}/documents/{name}",
                        format=ArtifactFormat.JSON,
                        role=DOCUMENT_ROLE,
                        group=f"{data}/documents/*.json",
                        holds_list=False,
                    )
                )
            for folder in ("prompts", "prompts/components"):
                for name in self._listing(folder, "*.md"):
                    items.append(
                        ArtifactSpec(
                            path=f"{data}/{folder}/{name}", format=ArtifactFormat.MARKDOWN, role=ArtifactRole.POLICY
                        )
                    )
        return items + guideline_and_code_artifacts(spec, USER_GUIDELINES)

    def _resolve(self, relative: str) -> Path:
        if relative.startswith("data/"):
            inside = relative[len("data/") :]
            if self.source_dir is not None:
                candidate = confined_file(self.source_dir, inside)  # a link out of the folder is refused
                if candidate is not None:
                    return candidate
            return self.data_dir / inside
        return self.code_dir / relative

    def _resolve_domain_file(self, filename: str) -> Path:
        return self._resolve(f"{self.spec.data_dir}/{filename}")

    def _split_path(self) -> Path:
        return self._resolve_domain_file("split_tasks.json")
