"""The AgentDojo adapter: benchmark ids `agentdojo-<suite>[@<version>]` (default the newest version).

Files are those of the installed `agentdojo` package (paths relative to it); a variant
(`adapted/agentdojo-<suite>/<lang>/`) holds the translated YAML under the same paths and a code
overlay for the texts that live in Python (prompts, goals, checks' literals, tool docstrings).
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from functools import cached_property
from pathlib import Path
from types import ModuleType
from typing import Any, Literal

from babelflow.atomic_io import sha256_file
from babelflow.errors import BabelflowError
from babelflow.ir import ArtifactFingerprint, ArtifactFormat
from babelflow.progress import tracked
from babelflow.variant import CodeOverlay
from source_benchmarks.agentdojo.code_overlay import TEXT_ATTRIBUTES, docstring_pieces
from source_benchmarks.agentdojo.combinations import combined_parts, default_combination
from source_benchmarks.agentdojo.files import module_path, package_root, suite_artifacts
from source_benchmarks.agentdojo.loader import LATEST_VERSION, VERSIONS, agentdojo_version, get_suite
from source_benchmarks.agentdojo.replay import replay_do_nothing, replay_injection_task, replay_user_task
from source_benchmarks.agentdojo.suite_view import variant_suite
from source_benchmarks.formats import confined_file, read_text
from source_benchmarks.protocol import (
    ArtifactSpec,
    ComposedText,
    DataFileFacts,
    ReplayOutcome,
    TaskCode,
    ToolCallObserver,
)
from source_benchmarks.yaml_io import load_yaml

PREFIX = "agentdojo-"


def parse_id(benchmark_id: str) -> tuple[str, str]:
    """`agentdojo-travel` -> (travel, newest version); `agentdojo-travel@v1.1.1` -> (travel, v1.1.1)."""
    name, _, version = benchmark_id.removeprefix(PREFIX).partition("@")
    return name, version or LATEST_VERSION


class AgentDojoBenchmark:
    """One AgentDojo suite at one version, or a variant of it (`variant_root` + `overlay`)."""

    data_prefix = ""  # a variant mirrors the package's relative paths

    def __init__(self, benchmark_id: str, variant_root: Path | None = None, overlay: CodeOverlay | None = None):
        self.id = benchmark_id
        self.suite_name, self.version = parse_id(benchmark_id)
        self.source_suite = get_suite(self.suite_name, self.version)
        self.root = package_root()
        self.variant_root = Path(variant_root).resolve() if variant_root else None
        self.overlay = overlay

    @cached_property
    def suite(self) -> Any:
        if self.variant_root is None and self.overlay is None:
            return self.source_suite
        return variant_suite(self.source_suite, self.variant_root, self.overlay)

    @property
    def source_version(self) -> str:
        return f"agentdojo=={agentdojo_version()}:{self.version}"

    # ---- files -------------------------------------------------------------------------------
    def artifacts(self) -> list[ArtifactSpec]:
        return suite_artifacts(self.source_suite)

    def artifact_path(self, spec: ArtifactSpec) -> Path:
        if self.variant_root is not None and spec.format is not ArtifactFormat.PYTHON:
            # a link out of the folder is refused; a missing file is named by the reader
            return confined_file(self.variant_root, spec.path) or self.variant_root / spec.path
        return self.root / spec.path

    def load_artifact(self, spec: ArtifactSpec) -> Any:
        path = self.artifact_path(spec)
        return load_yaml(path) if spec.format is ArtifactFormat.YAML else read_text(path)

    def fingerprints(self) -> list[ArtifactFingerprint]:
        origin: Literal["source_dir", "package"] = "source_dir" if self.variant_root else "package"
        return [
            ArtifactFingerprint(
                path=s.path, format=s.format, role=s.role, sha256=sha256_file(self.artifact_path(s)), origin=origin
            )
            for s in self.artifacts()
        ]

    # ---- tasks -------------------------------------------------------------------------------
    def task_ids(self, split: str | None = None) -> list[str]:
        """User tasks then injection tasks, each in numeric order (`split` user/injection selects one kind)."""

        def ordered(ids: Iterable[str]) -> list[str]:
            return sorted(ids, key=lambda t: int(t.rsplit("_", 1)[1]))

        users, injections = ordered(self.source_suite.user_tasks), ordered(self.source_suite.injection_tasks)
        if split in (None, "all"):
            return users + injections
        if split == "user":
            return users
        if split == "injection":
            return injections
        raise BabelflowError(f"Unknown split {split!r} for {self.id}", fix="use one of: all, user, injection")

    def task(self, task_id: str) -> Any:
        tasks = {**self.suite.user_tasks, **self.suite.injection_tasks}
        if task_id not in tasks:
            raise BabelflowError(
                f"Unknown task id {task_id!r} for {self.id}",
                field="task_id",
                fix="use user_task_N or injection_task_N of this suite",
            )
        return tasks[task_id]

    def tool_schemas(self) -> list[dict[str, Any]]:
        return [
            {"name": t.name, "description": t.description, "parameters": t.parameters.model_json_schema()}
            for t in self.suite.tools
        ]

    # ---- what the perturbation trial reads (protocol.PerturbedBenchmark) -----------------------
    text_attributes = frozenset(TEXT_ATTRIBUTES)

    def data_file(self, spec: ArtifactSpec) -> DataFileFacts:
        """The environment (and its `!include` files) loads into the suite's environment model after
        `str.format` with the injection vectors' defaults, then YAML parsing; the system message reaches no task."""
        name = spec.path.rsplit("/", 1)[-1]
        if name == "system_messages.yaml":
            return DataFileFacts(messages=True, read_by_tasks=False)
        if name == "injection_vectors.yaml":
            return DataFileFacts(reparsed=True, messages=True, unread_keys=("description",))
        model = self.source_suite.environment_type
        where = (name.removesuffix(".yaml"),) if "/include/" in spec.path else ()
        return DataFileFacts(model=f"{model.__module__}:{model.__qualname__}", model_path=where, reparsed=True)

    def python_module(self, spec: ArtifactSpec) -> ModuleType:
        return sys.modules["agentdojo." + spec.path.removesuffix(".py").replace("/", ".")]

    def tool_functions(self, spec: ArtifactSpec) -> list[str]:
        """The suite's tools this module defines (their docstrings are the tool descriptions)."""
        module = self.python_module(spec).__name__
        return sorted({t.run.__name__ for t in self.source_suite.tools if t.run.__module__ == module})

    def docstring_pieces(self, doc: str) -> list[str]:
        return docstring_pieces(doc)

    def composed_texts(self, spec: ArtifactSpec) -> list[ComposedText]:
        """PROMPT and GROUND_TRUTH_OUTPUT of the tasks AgentDojo's TaskCombinator makes from two tasks of this
        module, where they are not the combinator's default (composed from the parts' texts at run time,
        which the variant translates): `create_combined_task("UserTaskN", ...)` names them at the parts' module."""
        module = self.python_module(spec).__name__
        found = []
        for task in self.source_suite.user_tasks.values():
            parts = combined_parts(type(task))
            if not parts or type(parts[0]).__module__ != module:
                continue
            default = default_combination(type(task).__name__, parts)
            for attr in ("PROMPT", "GROUND_TRUTH_OUTPUT"):
                value = getattr(task, attr, "")
                if value and value != getattr(default, attr, None):
                    found.append(ComposedText(qualname=f"{type(task).__name__}.{attr}", text=value))
        return found

    def task_code(self, task_id: str) -> list[TaskCode]:
        """The task's class, or for a combined task the classes of its parts (recursively)."""
        tasks = {**self.source_suite.user_tasks, **self.source_suite.injection_tasks}
        classes = [type(tasks[task_id])]
        while any(combined_parts(c) for c in classes):
            parts = [type(p) for c in classes for p in combined_parts(c)]
            classes = parts + [c for c in classes if not combined_parts(c)]
        return [TaskCode(artifact=module_path(cls.__module__), qualname=cls.__name__) for cls in classes]

    # ---- execution ---------------------------------------------------------------------------
    def replay_golden(
        self,
        task_ids: Iterable[str] | None = None,
        observer: ToolCallObserver | None = None,
        scored: bool = True,
        label: str | None = None,
    ) -> list[ReplayOutcome]:
        ids = list(task_ids) if task_ids is not None else self.task_ids()
        out = []
        for task_id in tracked(ids, label or f"ground truth: {self.id}", len(ids)):
            if task_id.startswith("user_task_"):
                out.append(replay_user_task(self.suite, task_id, observer))
            else:
                out.append(replay_injection_task(self.suite, task_id, observer))
        return out

    def run_do_nothing(self, task_ids: Iterable[str] | None = None) -> list[ReplayOutcome]:
        return [replay_do_nothing(self.suite, t) for t in (list(task_ids) if task_ids is not None else self.task_ids())]

    def validate_artifacts(self) -> list[str]:
        """The environment loads into the suite's models (after str.format with the injection defaults)."""
        for spec in self.artifacts():
            if spec.format is ArtifactFormat.YAML:
                self.load_artifact(spec)
        try:
            self.suite.load_and_inject_default_environment({})
        except (KeyError, IndexError, ValueError) as exc:
            where = self.variant_root or self.root
            raise BabelflowError(
                f"The environment of {self.id} does not load: {type(exc).__name__}: {exc}",
                file=where,
                fix="keep {…} injection slots and YAML structure intact; a stray { or } breaks str.format",
            ) from exc
        return []


def with_version(benchmark_id: str, version: str | None) -> str:
    """`--version v1.1.1` on `agentdojo-travel` -> `agentdojo-travel@v1.1.1` (None: the newest)."""
    if version is None:
        return benchmark_id
    if not benchmark_id.startswith(PREFIX):
        raise BabelflowError(
            "--version applies to AgentDojo benchmarks only",
            field="--version",
            fix="drop --version, or use an agentdojo-<suite> benchmark",
        )
    if version not in VERSIONS:
        raise BabelflowError(
            f"Unknown AgentDojo version {version!r}", field="--version", fix=f"use one of: {', '.join(VERSIONS)}"
        )
    return f"{benchmark_id.partition('@')[0]}@{version}"
