"""One benchmark through every stage function in this fresh process, for bench/performance.py:
wall, CPU and peak RSS after each stage. Prints one JSON line.

Stages: parse the inputs (physical floor), τ²-bench's own golden replay + evaluate_simulation
(reference point), analysis, translation (pseudo en-XA), rebuild, the four validation layers,
merge, then the rerun after one confirmed finding (one unit retranslated, affected tasks
revalidated).

Usage: python -m bench.stage_worker BENCHMARK PROJECT_DIR SOURCE_DIR|-   (from the repo root)
"""

from __future__ import annotations

import json
import resource
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from babelflow.adapt_request import AdaptRequest


def main() -> None:
    from loguru import logger

    logger.disable("tau2")
    benchmark, project = sys.argv[1], Path(sys.argv[2])
    source_dir = Path(sys.argv[3]) if sys.argv[3] != "-" else None
    rows: list[dict] = []

    def measure(name: str, fn: Callable[[], Any]) -> Any:
        wall, cpu = time.perf_counter(), time.process_time()
        out = fn()
        rows.append(
            {
                "stage": name,
                "wall": time.perf_counter() - wall,
                "cpu": time.process_time() - cpu,
                "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            }
        )
        return out

    from babelflow.ir import load_ir
    from babelflow.settings import BabelflowSettings
    from flows.pipeline import stages, validation_stages
    from flows.run_setup import resolve_run
    from source_benchmarks import get_benchmark
    from validators.findings import Layer

    settings = BabelflowSettings(project_root=project)
    bench = get_benchmark(benchmark, source_dir=source_dir)

    def parse() -> int:
        for spec in bench.artifacts():
            if spec.format.value != "python":
                bench.load_artifact(spec)
        return len(bench.task_ids(None))

    tasks = measure("parse inputs", parse)
    measure("tau2 golden replay + evaluate_simulation (reference)", lambda: stock_replay(bench, benchmark))

    run = resolve_run(settings, AdaptRequest.of_options(benchmark, "en-XA", translator="pseudo", source_dir=source_dir))
    analysis = measure("analysis", lambda: stages.stage_analyze(run))
    translated = measure("translation (pseudo en-XA)", lambda: stages.stage_translate(run, analysis.ir_path, {}, []))
    rebuilt = measure("rebuild", lambda: stages.stage_rebuild(run, analysis.ir_path, translated))
    integrity = measure(
        "validate: integrity", lambda: validation_stages.stage_integrity(run, analysis.ir_path, rebuilt.variant_dir)
    )
    layers = [integrity]
    for layer in (Layer.CONSISTENCY, Layer.FIDELITY, Layer.BEHAVIOR):
        layers.append(
            measure(
                f"validate: {layer.value}",
                lambda layer=layer: validation_stages.stage_layer(
                    run, layer, analysis.ir_path, rebuilt.variant_dir, integrity.suppressed
                ),
            )
        )
    failures = measure("merge", lambda: validation_stages.stage_merge(run, layers))

    ir = load_ir(analysis.ir_path, benchmark=benchmark)
    element = next(
        e.id for e in ir.elements if e.translation_type.value == "translate_free" and e.artifact.endswith("tasks.json")
    )

    def rerun() -> tuple[int, int]:
        t = stages.stage_translate(run, analysis.ir_path, {}, [element])
        r = stages.stage_rebuild(run, analysis.ir_path, t)
        i = validation_stages.stage_integrity(run, analysis.ir_path, r.variant_dir)
        rest = [
            validation_stages.stage_layer(run, layer, analysis.ir_path, r.variant_dir, i.suppressed)
            for layer in (Layer.CONSISTENCY, Layer.FIDELITY, Layer.BEHAVIOR)
        ]
        return t.retranslated_units, rest[-1].tasks_replayed

    units, replayed = measure("rerun after one confirmed finding", rerun)
    print(
        json.dumps(
            {
                "benchmark": benchmark,
                "tasks": tasks,
                "findings": len(failures.findings),
                "rerun_units": units,
                "rerun_tasks": replayed,
                "rows": rows,
            }
        )
    )


def stock_replay(bench: Any, benchmark: str) -> None:
    """τ²-bench's own scoring of every golden trajectory, through its registry (the reference)."""
    from tau2.data_model.simulation import SimulationRun, TerminationReason
    from tau2.evaluator.evaluator import EvaluationType, evaluate_simulation
    from tau2.registry import registry

    from source_benchmarks.tau_common.replay import golden_trajectory

    domain = benchmark.removeprefix("tau2-")
    registry._domains.pop(domain + "_bench", None)
    registry.register_domain(bench.environment_factory, domain + "_bench")
    for task_id in bench.task_ids(None):
        task = bench.task(task_id)
        messages, _, _ = golden_trajectory(task, bench.environment_factory, task_id, None)
        run = SimulationRun(
            id="x",
            task_id=task_id,
            start_time="",
            end_time="",
            duration=0.0,
            termination_reason=TerminationReason.AGENT_STOP,
            messages=messages,
        )
        evaluate_simulation(run, task, EvaluationType.ALL, solo_mode=False, domain=domain + "_bench")


if __name__ == "__main__":
    main()
