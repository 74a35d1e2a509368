"""The behavioural-equivalence layer over all 2,458 τ² tasks (source AND target, golden and
do-nothing each) vs τ²-bench's own golden replay + evaluate_simulation of the source alone.
One run, this machine; both printed together.

Usage: python -m bench.behavior_speed [--lang en-XA]   (from the repo root)
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from babelflow.adapt_request import AdaptRequest


def main() -> None:
    import os

    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    from loguru import logger
    from rich.console import Console
    from rich.table import Table

    logger.disable("tau2")
    from tau2.data_model.simulation import SimulationRun, TerminationReason
    from tau2.evaluator.evaluator import EvaluationType, evaluate_simulation
    from tau2.registry import registry

    from babelflow.settings import BabelflowSettings
    from flows.pipeline.adapt import adapt
    from source_benchmarks import get_benchmark
    from source_benchmarks.tau_common.replay import golden_trajectory
    from validators.checks import run_checks
    from validators.context import ValidationContext
    from validators.findings import Layer

    language = sys.argv[sys.argv.index("--lang") + 1] if "--lang" in sys.argv else "en-XA"
    table = Table(title=f"behavioural equivalence (source + {language} target) vs stock golden replay of the source")
    for column in ("benchmark", "tasks", "stock replay s", "behaviour layer s", "findings", "ratio"):
        table.add_column(column, justify="right")
    totals = [0, 0.0, 0.0]
    with tempfile.TemporaryDirectory() as tmp:
        for benchmark in ("tau2-mock", "tau2-airline", "tau2-retail", "tau2-telecom"):
            source = get_benchmark(benchmark)
            ids = source.task_ids(None)
            domain = benchmark.removeprefix("tau2-")
            constructor = registry.get_env_constructor(domain)
            started = time.perf_counter()
            for task_id in ids:
                task = source.task(task_id)
                messages, _, _ = golden_trajectory(task, constructor, task_id, None)
                run = SimulationRun(
                    id="x",
                    task_id=task_id,
                    start_time="",
                    end_time="",
                    duration=0.0,
                    termination_reason=TerminationReason.AGENT_STOP,
                    messages=messages,
                )
                evaluate_simulation(run, task, EvaluationType.ALL, solo_mode=False, domain=domain)
            stock = time.perf_counter() - started
            result = adapt(
                AdaptRequest.of_options(benchmark, language),
                settings=BabelflowSettings(project_root=Path(tmp) / benchmark),
            )
            from source_benchmarks import open_variant

            ctx = ValidationContext(
                source,
                result.paths.variant,
                result.ir,
                language,
                variant_bench=open_variant(benchmark, result.paths.variant),
                validator_id="bench",
            )
            started = time.perf_counter()
            findings = run_checks(Layer.BEHAVIOR, ctx, [])
            ours = time.perf_counter() - started
            totals = [totals[0] + len(ids), totals[1] + stock, totals[2] + ours]
            table.add_row(
                benchmark, str(len(ids)), f"{stock:.1f}", f"{ours:.1f}", str(len(findings)), f"{ours / stock:.2f}"
            )
    table.add_row("all", str(totals[0]), f"{totals[1]:.1f}", f"{totals[2]:.1f}", "", f"{totals[2] / totals[1]:.2f}")
    Console(width=140).print(table)


if __name__ == "__main__":
    main()
