"""AgentDojo suites end to end, timed per stage: analysis (with its perturbation trial),
translation + rebuild, and the four validation layers, for each suite and language.

Each suite is analyzed once (in a temporary project), then adapted to each language from that
IR and validated against the source's ground-truth scores. Prints one row per (suite, language)
with the stage times, the trial's rounds, the IR's type counts, the findings and the parity of
ground-truth utility / security / injectability.

Usage: python -m bench.agentdojo_suites [--suites travel,banking,slack,workspace] [--lang en-XA --lang ar-XB]
Exit code 0 iff every variant has 0 findings.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from rich.console import Console
from rich.table import Table

from babelflow.adapt_request import AdaptRequest


def main(argv: list[str] | None = None) -> int:
    from analyzers.analyze import analyze_benchmark
    from babelflow.settings import BabelflowSettings, apply_offline_environment
    from flows.pipeline.adapt import adapt
    from source_benchmarks import get_benchmark
    from validators.probes.behavior import replay_pairs_of
    from validators.run import validate_variant, variant_context

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suites", default="travel,banking,slack,workspace")
    parser.add_argument("--lang", action="append", default=None)
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    languages = args.lang or ["en-XA", "ar-XB"]
    apply_offline_environment()
    console = Console(stderr=True)
    table = Table(title="AgentDojo suites: analysis, translation + rebuild, validation (one run)")
    for column in (
        "suite",
        "tasks (user+injection)",
        "lang",
        "analysis s",
        "trial runs",
        "IR preserve/free/canonical",
        "translate+rebuild s",
        "validate s",
        "findings",
        "GT parity",
    ):
        table.add_column(column)
    clean = True
    with tempfile.TemporaryDirectory(prefix="babelflow-agentdojo-") as tmp:
        settings = BabelflowSettings(project_root=Path(tmp))
        for suite in [s for s in args.suites.split(",") if s]:
            benchmark_id = f"agentdojo-{suite}"
            bench = get_benchmark(benchmark_id)
            messages: list[str] = []
            started = time.perf_counter()
            ir = analyze_benchmark(bench, progress=messages.append)
            analysis = time.perf_counter() - started
            rounds = sum(1 for m in messages if m.startswith("perturbation trial") and m.split()[-1].isdigit())
            types = Counter(e.translation_type.value for e in ir.elements)
            source_pairs = replay_pairs_of(bench, bench.task_ids(), "source ground truth")
            for language in languages:
                console.log(f"{benchmark_id} {language}")
                started = time.perf_counter()
                result = adapt(AdaptRequest.of_options(benchmark_id, language), settings=settings, ir=ir)
                translation = time.perf_counter() - started
                started = time.perf_counter()
                failures = validate_variant(
                    variant_context(bench, result.paths.variant, ir, language, source_pairs=source_pairs)
                )
                validation = time.perf_counter() - started
                behaviour = [f for f in failures.findings if f.layer.value == "behavior"]
                clean &= not failures.findings
                table.add_row(
                    suite,
                    f"{len(bench.source_suite.user_tasks)}+{len(bench.source_suite.injection_tasks)}",
                    language,
                    f"{analysis:.1f}",
                    str(rounds),
                    f"{types['preserve']}/{types['translate_free']}/{types['translate_canonical']}",
                    f"{translation:.1f}",
                    f"{validation:.1f}",
                    str(len(failures.findings)),
                    "equal" if not behaviour else f"{len(behaviour)} differ",
                )
    Console(width=200).print(table)
    return 0 if clean else 1


if __name__ == "__main__":
    sys.exit(main())
