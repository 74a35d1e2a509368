"""Child processes of bench/scale.py, each run in the temporary project (BABELFLOW_PROJECT_ROOT).

python -m bench.scale_workers boot                   start (or adopt) the project's background
                                                     Prefect server and print its URL
python -m bench.scale_workers profile BENCHMARK TAG  one more language through the stage
                                                     functions, one after another in this process
                                                     (warm project: IR and source replays on
                                                     disk); prints `PROFILE {json}`
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from typing import Any

from babelflow.adapt_request import AdaptRequest


def boot() -> None:
    from babelflow.settings import BabelflowSettings, apply_offline_environment

    apply_offline_environment()
    from flows.server.local_server import ensure_server

    print(ensure_server(BabelflowSettings())[0])


def profile(benchmark: str, language: str) -> None:
    from babelflow.settings import BabelflowSettings, apply_offline_environment

    apply_offline_environment()
    from flows.pipeline import stage_io, stages, validation_stages
    from flows.run_setup import resolve_run
    from validators.findings import Layer

    settings = BabelflowSettings()
    rows: list[dict] = []

    def timed(name: str, fn: Callable[[], Any]) -> Any:
        wall, cpu = time.perf_counter(), time.process_time()
        out = fn()
        rows.append({"stage": name, "wall": time.perf_counter() - wall, "cpu": time.process_time() - cpu})
        return out

    run = resolve_run(settings, AdaptRequest.of_options(benchmark, language))
    analysis = timed("analysis (IR reused) + IR parse", lambda: stages.stage_analyze(run))
    timed("IR parse (cached)", lambda: stage_io.read_ir(analysis.ir_path, benchmark))
    translated = timed("translate", lambda: stages.stage_translate(run, analysis.ir_path, {}, []))
    rebuilt = timed("rebuild", lambda: stages.stage_rebuild(run, analysis.ir_path, translated))
    integrity = timed(
        "validate: integrity", lambda: validation_stages.stage_integrity(run, analysis.ir_path, rebuilt.variant_dir)
    )
    layers = [integrity]
    for layer in (Layer.CONSISTENCY, Layer.FIDELITY, Layer.BEHAVIOR):
        layers.append(
            timed(
                f"validate: {layer.value}",
                lambda layer=layer: validation_stages.stage_layer(
                    run, layer, analysis.ir_path, rebuilt.variant_dir, integrity.suppressed
                ),
            )
        )
    failures = timed("merge", lambda: validation_stages.stage_merge(run, layers))
    print(
        "PROFILE "
        + json.dumps(
            {
                "rows": rows,
                "findings": len(failures.findings),
                "replayed": layers[-1].tasks_replayed,
                "replays_run": layers[-1].variant_replays_run,
            }
        )
    )


if __name__ == "__main__":
    if sys.argv[1:2] == ["boot"]:
        boot()
    elif sys.argv[1:2] == ["profile"] and len(sys.argv) == 4:
        profile(sys.argv[2], sys.argv[3])
    else:
        raise SystemExit(__doc__)
