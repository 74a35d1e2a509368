"""The VitaBench family: vita-delivery (zh source) and vita-instore (en source), driven in this process.

Installed lean into .venv by `bash scripts/install.sh --vita` (scripts/install_vita.sh); without it
every vita-* id is refused with that command (exit 2). Importing this module imports no VitaBench code.
"""

from __future__ import annotations

from pathlib import Path

from babelflow.variant import CodeOverlay
from source_benchmarks.agent_runs import AgentEvaluation
from source_benchmarks.family import SeparatelyInstalledFamily, files_version
from source_benchmarks.protocol import SourceBenchmark, TracedBenchmark
from source_benchmarks.vita.domains import VITA_DOMAINS, vita_domain
from source_benchmarks.vita.runtime import INSTALL_COMMAND, find_runtime

# the code whose outcomes the analysis caches
PROBE = ("scripted_calls.py", "replay.py", "harness.py", "traced_calls.py", "../tracing.py")


class VitaFamily(SeparatelyInstalledFamily):
    install_command = INSTALL_COMMAND
    name = "vita"
    tasks_are_worlds = True  # each task embeds its stores, products and orders
    description = "VitaBench (meituan-longcat/vitabench, scripts/install.sh --vita): delivery (zh), instore (en)"

    def benchmark_ids(self) -> tuple[str, ...]:
        return tuple(VITA_DOMAINS)

    def source_language_of(self, benchmark_id: str) -> str:
        return vita_domain(benchmark_id).source_language

    def find_runtime(self) -> object | str:
        return find_runtime()

    def open(
        self, benchmark_id: str, source_dir: Path | None = None, overlay: CodeOverlay | None = None
    ) -> SourceBenchmark:
        # the adapter imports VitaBench (optional): `babelflow --help` and other families never do
        from source_benchmarks.vita.adapter import VitaBenchmark  # noqa: PLC0415

        return VitaBenchmark(benchmark_id, source_dir=source_dir)

    def open_variant(self, benchmark_id: str, variant_root: Path, overlay: CodeOverlay | None) -> SourceBenchmark:
        from source_benchmarks.vita.adapter import VitaBenchmark  # noqa: PLC0415 - as in open()

        return VitaBenchmark(benchmark_id, source_dir=variant_root, variant=True)

    def traced_replay(self, bench: SourceBenchmark) -> TracedBenchmark | None:
        from source_benchmarks.vita.adapter import VitaBenchmark  # noqa: PLC0415 - as in open()

        return bench if isinstance(bench, VitaBenchmark) else None

    def agent_evaluation(self) -> AgentEvaluation:
        from source_benchmarks.vita.evaluation import AGENT_EVALUATION  # noqa: PLC0415 - as in open()

        return AGENT_EVALUATION

    def code_version(self) -> str:
        found = find_runtime()
        version = found.vita_version if not isinstance(found, str) else ""
        return version + files_version(Path(__file__).parent, PROBE)


FAMILY = VitaFamily()
