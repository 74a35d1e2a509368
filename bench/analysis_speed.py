"""Wall time and peak RSS of analyzing all four tau2 domains in one run, beside tau2's own golden replay.

Each measurement runs in a fresh subprocess so peak RSS belongs to that work alone.
Usage: python -m bench.analysis_speed [--skip-stock]
"""

from __future__ import annotations

import json
import subprocess
import sys
import time

DOMAINS = ("tau2-mock", "tau2-airline", "tau2-retail", "tau2-telecom")

ANALYZE = """
import json, resource, sys, time
from analyzers.analyze import analyze_benchmark
from source_benchmarks import get_benchmark
rows = []
t0 = time.perf_counter()
for benchmark_id in sys.argv[1:]:
    t = time.perf_counter()
    ir = analyze_benchmark(get_benchmark(benchmark_id))
    rows.append({"benchmark": benchmark_id, "seconds": time.perf_counter() - t, "elements": len(ir.elements), "tasks": len(get_benchmark(benchmark_id).task_ids(None))})
print(json.dumps({"rows": rows, "total": time.perf_counter() - t0, "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""

# tau2's own path: registry env constructor + evaluate_simulation(ALL) on the golden trajectory.
STOCK = """
import json, resource, sys, time
from loguru import logger
logger.disable("tau2")
from tau2.data_model.simulation import SimulationRun, TerminationReason
from tau2.evaluator.evaluator import EvaluationType, evaluate_simulation
from tau2.registry import registry
from source_benchmarks import get_benchmark
from source_benchmarks.tau2.replay import golden_trajectory
rows = []
t0 = time.perf_counter()
for benchmark_id in sys.argv[1:]:
    domain = benchmark_id.removeprefix("tau2-")
    constructor = registry.get_env_constructor(domain)
    tasks = registry.get_tasks_loader(domain)() if domain != "telecom" else registry.get_tasks_loader("telecom_full")()
    t = time.perf_counter()
    for task in tasks:
        messages, _, _ = golden_trajectory(task, constructor, task.id, None)
        run = SimulationRun(id="x", task_id=task.id, start_time="", end_time="", duration=0.0, termination_reason=TerminationReason.AGENT_STOP, messages=messages)
        evaluate_simulation(run, task, EvaluationType.ALL, solo_mode=False, domain=domain)
    rows.append({"benchmark": benchmark_id, "seconds": time.perf_counter() - t, "tasks": len(tasks)})
print(json.dumps({"rows": rows, "total": time.perf_counter() - t0, "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def run(code: str) -> dict:
    out = subprocess.run([sys.executable, "-c", code, *DOMAINS], check=True, capture_output=True, text=True, env={"LITELLM_LOCAL_MODEL_COST_MAP": "True", "PATH": "/usr/bin:/bin", "HOME": "/tmp"})
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    from rich.console import Console
    from rich.table import Table

    started = time.perf_counter()
    analysis = run(ANALYZE)
    stock = None if "--skip-stock" in sys.argv else run(STOCK)
    table = Table(title="babelflow analysis vs tau2 golden replay (one run, this machine)")
    for column in ("benchmark", "tasks", "IR elements", "analysis s", "stock golden replay s"):
        table.add_column(column, justify="right")
    stock_rows = {r["benchmark"]: r for r in (stock["rows"] if stock else [])}
    for row in analysis["rows"]:
        other = stock_rows.get(row["benchmark"])
        table.add_row(row["benchmark"], str(row["tasks"]), str(row["elements"]), f"{row['seconds']:.1f}", f"{other['seconds']:.1f}" if other else "-")
    table.add_row("all four", "", "", f"{analysis['total']:.1f}", f"{stock['total']:.1f}" if stock else "-")
    Console().print(table)
    print(f"analysis peak RSS: {analysis['peak_rss_mb']:.0f} MB (target <= 2048 MB); analysis wall: {analysis['total']:.1f} s (target <= 60 s)")
    if stock:
        print(f"stock replay peak RSS: {stock['peak_rss_mb']:.0f} MB; ratio analysis/stock-replay wall: {analysis['total'] / stock['total']:.2f}")
    print(f"bench wall: {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
