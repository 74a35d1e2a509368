"""The τ³ family (tau2-bench 1.x, τ³-Bench): mock, airline, retail, telecom and banking_knowledge.

Its runtime is an environment of its own (.venv-tau3, Python 3.12, made by
`bash scripts/install.sh --tau3`); without it every tau3-* id is refused with that command (exit 2)
and nothing else changes. Importing this module imports no τ³ code and starts no worker.
"""

from __future__ import annotations

from pathlib import Path

from babelflow.variant import CodeOverlay
from source_benchmarks.family import SeparatelyInstalledFamily, files_version
from source_benchmarks.protocol import SourceBenchmark, TracedBenchmark
from source_benchmarks.tau3 import evaluation
from source_benchmarks.tau3.adapter import Tau3Benchmark, harness_digest, open_tau3
from source_benchmarks.tau3.domains import TAU3_DOMAINS
from source_benchmarks.tau3.runtime import INSTALL_COMMAND, find_runtime

# a variant's tool results reach the agent as text, as the source's English does (issue 27): τ³'s
# to_json_str and banking's own json.dumps sites escape non-ASCII; tests switch it off for the escaped case
PLAIN_TOOL_OUTPUT = True
TRACER = (
    "../tracing.py",
    "../tau_common/traced_replay.py",
    "../tau_common/read_tool_coverage.py",
)  # the τ² tracer, run in the worker


class Tau3Family(SeparatelyInstalledFamily):
    install_command = INSTALL_COMMAND
    name = "tau3"
    description = (
        "τ³-Bench (tau2-bench 1.0.1, own Python 3.12 environment): mock, airline, retail, telecom, banking_knowledge"
    )

    def benchmark_ids(self) -> tuple[str, ...]:
        return tuple(TAU3_DOMAINS)

    def find_runtime(self) -> object | str:
        return find_runtime()

    def open(
        self, benchmark_id: str, source_dir: Path | None = None, overlay: CodeOverlay | None = None
    ) -> SourceBenchmark:
        return open_tau3(benchmark_id, source_dir=source_dir, overlay=overlay)

    def variant_data_dir(self, variant_root: Path) -> Path:
        return variant_root / "data"

    def open_variant(self, benchmark_id: str, variant_root: Path, overlay: CodeOverlay | None) -> SourceBenchmark:
        bench = open_tau3(
            benchmark_id, source_dir=self.variant_data_dir(variant_root), overlay=overlay, variant_root=variant_root
        )
        bench.plain_tool_output = PLAIN_TOOL_OUTPUT
        return bench

    def code_version(self) -> str:
        return harness_digest() + files_version(
            Path(__file__).parent, TRACER
        )  # the worker's code and the tracer it runs

    def traced_replay(self, bench: SourceBenchmark) -> TracedBenchmark | None:
        return bench if isinstance(bench, Tau3Benchmark) else None

    def agent_evaluation(self) -> evaluation.Tau3AgentEvaluation:
        return evaluation.AGENT_EVALUATION


FAMILY = Tau3Family()
