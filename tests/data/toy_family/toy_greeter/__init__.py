"""A toy benchmark family from outside babelflow: one tool, a greeting book, two tasks.

It uses only babelflow's public plug-in API (source_benchmarks.family and .protocol)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from babelflow.ir import ArtifactFingerprint, ArtifactFormat, ArtifactRole
from source_benchmarks.family import BenchmarkFamily, ProfileChoice
from source_benchmarks.protocol import ArtifactSpec, ReplayOutcome, ToolCallRecord

ROOT = Path(__file__).resolve().parent
ARTIFACTS = [
    ArtifactSpec(path="data/db.json", format=ArtifactFormat.JSON, role=ArtifactRole.DATABASE),
    ArtifactSpec(path="data/tasks.json", format=ArtifactFormat.JSON, role=ArtifactRole.TASKS),
    ArtifactSpec(path="data/policy.md", format=ArtifactFormat.MARKDOWN, role=ArtifactRole.POLICY),
]


class ToyGreeter:
    id = "toy-greeter"

    def __init__(self, source_dir: Path | None = None):
        self.root = ROOT
        self.source_dir = source_dir

    @property
    def source_version(self) -> str:
        return "toy-greeter 0.1"

    def artifacts(self) -> list[ArtifactSpec]:
        return list(ARTIFACTS)

    def artifact_path(self, spec: ArtifactSpec) -> Path:
        if self.source_dir is not None and (Path(self.source_dir) / spec.path).exists():
            return Path(self.source_dir) / spec.path
        return ROOT / spec.path

    def load_artifact(self, spec: ArtifactSpec) -> Any:
        text = self.artifact_path(spec).read_text(encoding="utf-8")
        return json.loads(text) if spec.format is ArtifactFormat.JSON else text

    def fingerprints(self) -> list[ArtifactFingerprint]:
        return [
            ArtifactFingerprint(
                path=s.path,
                format=s.format,
                role=s.role,
                sha256=hashlib.sha256(self.artifact_path(s).read_bytes()).hexdigest(),
                origin="package",
            )
            for s in ARTIFACTS
        ]

    def task_ids(self, split: str | None = None) -> list[str]:
        return [task["id"] for task in self.load_artifact(ARTIFACTS[1])]

    def task(self, task_id: str) -> dict:
        return next(task for task in self.load_artifact(ARTIFACTS[1]) if task["id"] == task_id)

    def tool_schemas(self) -> list[dict[str, Any]]:
        return [
            {
                "type": "function",
                "function": {
                    "name": "get_greeting",
                    "parameters": {"type": "object", "properties": {"greeting_id": {"type": "string"}}},
                },
            }
        ]

    def _call(self, name: str, arguments: dict) -> ToolCallRecord:
        book = self.load_artifact(ARTIFACTS[0])["greetings"]
        entry = book.get(arguments.get("greeting_id"))
        output = entry["text"] if entry else f"Error: no greeting {arguments.get('greeting_id')}"
        return ToolCallRecord(name=name, requestor="assistant", arguments=arguments, output=output, error=entry is None)

    def replay_golden(
        self, task_ids=None, observer=None, scored: bool = True, label: str = "golden"
    ) -> list[ReplayOutcome]:
        outcomes = []
        for task_id in task_ids if task_ids is not None else self.task_ids():
            task = self.task(task_id)
            call = self._call(task["action"]["name"], task["action"]["arguments"])
            if observer is not None:
                observer(task_id, call)
            reward = 1.0 if call.output == task["expected"] else 0.0
            outcomes.append(
                ReplayOutcome(task_id=task_id, trajectory="golden", replayable=True, reward=reward, tool_calls=[call])
            )
        return outcomes

    def run_do_nothing(self, task_ids=None) -> list[ReplayOutcome]:
        ids = task_ids if task_ids is not None else self.task_ids()
        return [ReplayOutcome(task_id=task_id, trajectory="do_nothing", replayable=True, reward=0.0) for task_id in ids]

    def validate_artifacts(self) -> list[str]:
        for spec in ARTIFACTS:
            self.load_artifact(spec)
        return []


class ToyFamily(BenchmarkFamily):
    name = "toy"
    description = "toy-greeter: a greeting desk installed from outside babelflow"

    def benchmark_ids(self) -> tuple[str, ...]:
        return ("toy-greeter",)

    def open(self, benchmark_id, source_dir=None, overlay=None):
        return ToyGreeter(source_dir)

    def profile_choice(self, benchmark_id: str, profiles_dir: Path) -> ProfileChoice:
        """Its analysis profile ships in its own package, not in babelflow's profiles folder."""
        return ProfileChoice(path=ROOT / "profile.toml", description="toy-greeter's own profile")


FAMILY = ToyFamily()
