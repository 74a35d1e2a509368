"""With the profile removed: en-XA variants built from the evidence-only IR keep golden, do-nothing
and DB-state parity on every task of the four tau2 domains.

Per domain: `analyze --no-profile` (instrumented replay + differential), adapt to en-XA from that
IR into a scratch folder, then golden + do-nothing replays of every task on source and variant.
A task passes when both rewards, evaluator errors, the golden tool-error sequence and the
golden/do-nothing DB-hash equality are the same as the source's.
Usage: python -m bench.evidence_parity [DOMAIN ...]
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from babelflow.adapt_request import AdaptRequest

DOMAINS = ("tau2-mock", "tau2-airline", "tau2-retail", "tau2-telecom")


def signature(pair) -> tuple:
    from source_benchmarks.protocol import parity_signature

    return parity_signature(*pair)


def measure(benchmark_id: str, folder: Path) -> dict:
    from analyzers.analyze import analyze_benchmark
    from babelflow.ir import TranslationType
    from babelflow.settings import BabelflowSettings
    from flows.pipeline.adapt import adapt
    from source_benchmarks import get_benchmark, open_variant

    started = time.perf_counter()
    source = get_benchmark(benchmark_id)
    ir = analyze_benchmark(source, use_profile=False)
    analyzed = time.perf_counter()
    result = adapt(
        AdaptRequest.of_options(benchmark_id, "en-XA", out=folder / "variant"),
        settings=BabelflowSettings(project_root=folder),
        ir=ir,
    )
    variant = open_variant(benchmark_id, folder / "variant")
    ids = source.task_ids(None)
    expected = {pair[0].task_id: signature(pair) for pair in source.replay_pairs(ids, label=f"{benchmark_id}: source")}
    observed = {
        pair[0].task_id: signature(pair)
        for pair in variant.replay_pairs(variant.task_ids(None), label=f"{benchmark_id}: en-XA")
    }
    broken = sorted(task_id for task_id in expected if observed.get(task_id) != expected[task_id])
    translated = sum(1 for e in ir.elements if e.translation_type is not TranslationType.PRESERVE)
    return {
        "benchmark": benchmark_id,
        "tasks": len(ids),
        "elements": len(ir.elements),
        "translated": translated,
        "units": len(result.outcome.targets),
        "broken": broken,
        "analysis_s": analyzed - started,
        "total_s": time.perf_counter() - started,
    }


def main() -> None:
    domains = sys.argv[1:] or list(DOMAINS)
    failed = 0
    for benchmark_id in domains:
        with tempfile.TemporaryDirectory(prefix="babelflow-evidence-parity-") as folder:
            row = measure(benchmark_id, Path(folder))
        failed += len(row["broken"])
        print(
            f"{row['benchmark']}: {row['tasks']} tasks, {row['elements']:,} elements, {row['translated']:,} "
            "translated (evidence-only IR); "
            f"parity broken on {len(row['broken'])} tasks {row['broken'][:5]}; analysis {row['analysis_s']:.1f} s, "
            f"total {row['total_s']:.1f} s",
            flush=True,
        )
    print("all tasks keep golden, do-nothing and DB-state parity" if not failed else f"{failed} tasks lost parity")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
