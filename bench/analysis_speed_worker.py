"""One measured analysis run in its own process (peak RSS belongs to that work alone).

Usage: python -m bench.analysis_speed_worker replay|traced|stock DOMAIN [DOMAIN ...]
- replay: the analysis before issue 13 (plain golden replay, value-keyed evidence, no trials);
- traced: instrumented replay + differential trials (cache folder from BABELFLOW_ANALYSIS_CACHE);
- stock: tau2's own golden replay + evaluate_simulation(ALL) of the same tasks.
Prints one JSON line.
"""

from __future__ import annotations

import json
import resource
import sys
import time


def analyze(domains: list[str], instrumented: bool) -> list[dict]:
    from analyzers.analyze import analyze_benchmark
    from analyzers.evidence_report import evidence_shares
    from source_benchmarks import get_benchmark

    rows = []
    for benchmark_id in domains:
        started = time.perf_counter()
        bench = get_benchmark(benchmark_id)
        ir = analyze_benchmark(bench, instrumented=instrumented)
        seconds = time.perf_counter() - started
        shares = evidence_shares(ir)
        rows.append(
            {
                "benchmark": benchmark_id,
                "seconds": seconds,
                "elements": len(ir.elements),
                "tasks": len(bench.task_ids(None)),
                "preserve": shares.preserve,
                "runtime": shares.preserve_with_runtime_evidence,
                "no_role": shares.preserve_without_runtime_role,
                "profile_only": shares.profile_only,
                "findings": shares.findings,
            }
        )
    return rows


def stock(domains: list[str]) -> list[dict]:
    from loguru import logger

    logger.disable("tau2")
    from tau2.data_model.simulation import SimulationRun, TerminationReason
    from tau2.evaluator.evaluator import EvaluationType, evaluate_simulation
    from tau2.registry import registry

    from source_benchmarks.tau_common.replay import golden_trajectory

    rows = []
    for benchmark_id in domains:
        domain = benchmark_id.removeprefix("tau2-")
        constructor = registry.get_env_constructor(domain)
        tasks = (
            registry.get_tasks_loader(domain)() if domain != "telecom" else registry.get_tasks_loader("telecom_full")()
        )
        started = time.perf_counter()
        for task in tasks:
            messages, _, _ = golden_trajectory(task, constructor, task.id, None)
            run = SimulationRun(
                id="x",
                task_id=task.id,
                start_time="",
                end_time="",
                duration=0.0,
                termination_reason=TerminationReason.AGENT_STOP,
                messages=messages,
            )
            evaluate_simulation(run, task, EvaluationType.ALL, solo_mode=False, domain=domain)
        rows.append({"benchmark": benchmark_id, "seconds": time.perf_counter() - started, "tasks": len(tasks)})
    return rows


def main() -> None:
    mode, domains = sys.argv[1], sys.argv[2:]
    started = time.perf_counter()
    rows = stock(domains) if mode == "stock" else analyze(domains, instrumented=mode == "traced")
    print(
        json.dumps(
            {
                "rows": rows,
                "total": time.perf_counter() - started,
                "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            }
        )
    )


if __name__ == "__main__":
    main()
