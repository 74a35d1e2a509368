"""The AgentDojo family (PyPI `agentdojo`): four suites, each at any of its released versions."""

from __future__ import annotations

from pathlib import Path

from babelflow.variant import CodeOverlay
from source_benchmarks.agentdojo import scores
from source_benchmarks.agentdojo.adapter import PREFIX, AgentDojoBenchmark, with_version
from source_benchmarks.agentdojo.evaluation import AgentDojoEvaluation
from source_benchmarks.agentdojo.loader import SUITES, VERSIONS
from source_benchmarks.family import BenchmarkFamily, BenchmarkSelection, FamilyOption, ProfileChoice
from source_benchmarks.hooks import BehaviourScores
from source_benchmarks.protocol import PerturbedBenchmark, SourceBenchmark


class AgentDojoFamily(BenchmarkFamily):
    name = "agentdojo"
    description = (
        f"AgentDojo suites ({', '.join(SUITES)}); <id>@<version> or --version for {VERSIONS[0]} … {VERSIONS[-1]}"
    )
    options = frozenset({FamilyOption.VERSION})
    formats_data = True  # its YAML goes through str.format() when a task is loaded

    def benchmark_ids(self) -> tuple[str, ...]:
        return tuple(f"{PREFIX}{suite}" for suite in SUITES)

    def accepts(self, benchmark_id: str) -> bool:
        base, _, version = benchmark_id.partition("@")
        return base in self.benchmark_ids() and (not version or version in VERSIONS)

    def open(
        self, benchmark_id: str, source_dir: Path | None = None, overlay: CodeOverlay | None = None
    ) -> SourceBenchmark:
        return AgentDojoBenchmark(benchmark_id, variant_root=source_dir, overlay=overlay)

    def qualify(self, selection: BenchmarkSelection) -> str | None:
        if selection.version is None:
            return super().qualify(selection)
        return with_version(selection.benchmark, selection.version)

    def profile_choice(self, benchmark_id: str, profiles_dir: Path) -> ProfileChoice | None:
        base, _, version = benchmark_id.partition("@")
        if (
            version
        ):  # another version (agentdojo-travel@v1.1.1): the suite's profile; the trial types that version's files
            return ProfileChoice(path=profiles_dir / f"{base}.toml", description=f"version: {benchmark_id}")
        return None

    def perturbation(self, bench: SourceBenchmark) -> PerturbedBenchmark | None:
        return bench if isinstance(bench, AgentDojoBenchmark) else None

    def behaviour_scores(self) -> BehaviourScores:
        return scores.SCORES

    def agent_evaluation(self) -> AgentDojoEvaluation:
        return AgentDojoEvaluation()


FAMILY = AgentDojoFamily()
