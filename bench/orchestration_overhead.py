"""Orchestration overhead: the same work through Prefect vs the stage functions called directly.

Both runs start cold in fresh project folders (no IR, memory, cache). The Prefect run talks to a
local server started here first (as the README tells users to); the server's start-up time is
reported separately, not counted as overhead. One run, this machine; the ratio is what matters.
Usage: python -m bench.orchestration_overhead [benchmark] [language]   (default tau2-retail en-XA)
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

from babelflow.adapt_request import AdaptRequest


def direct(benchmark: str, language: str, root: Path) -> float:
    from babelflow.settings import BabelflowSettings
    from flows.pipeline import stages, validation_stages
    from flows.run_setup import resolve_run
    from validators.findings import Layer

    settings = BabelflowSettings(project_root=root)
    started = time.perf_counter()
    run = resolve_run(settings, AdaptRequest.of_options(benchmark, language, translator="pseudo"))
    analysis = stages.stage_analyze(run)
    translated = stages.stage_translate(run, analysis.ir_path, {}, [])
    rebuilt = stages.stage_rebuild(run, analysis.ir_path, translated)
    integrity = validation_stages.stage_integrity(run, analysis.ir_path, rebuilt.variant_dir)
    layers = [integrity] + [
        validation_stages.stage_layer(run, layer, analysis.ir_path, rebuilt.variant_dir, integrity.suppressed)
        for layer in (Layer.CONSISTENCY, Layer.FIDELITY, Layer.BEHAVIOR)
    ]
    validation_stages.stage_merge(run, layers)
    return time.perf_counter() - started


def main() -> None:
    benchmark = sys.argv[1] if len(sys.argv) > 1 else "tau2-retail"
    language = sys.argv[2] if len(sys.argv) > 2 else "en-XA"
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        from bench.local_prefect import start_server

        server, api, server_boot = start_server(tmp_path / "home")
        try:
            os.environ.update(
                PREFECT_API_URL=api,
                PREFECT_HOME=str(tmp_path / "home"),
                PREFECT_LOCAL_STORAGE_PATH=str(tmp_path / "storage"),
            )
            os.environ.update(
                DO_NOT_TRACK="1", PREFECT_SERVER_ANALYTICS_ENABLED="false", PREFECT_LOGGING_LEVEL="WARNING"
            )
            direct_seconds = direct(benchmark, language, tmp_path / "direct")
            from flows.pipeline.prefect_flows import adapt_language, outcome

            started = time.perf_counter()
            result = outcome(
                adapt_language(
                    AdaptRequest(benchmark=benchmark, language=language, project_root=tmp_path / "prefect"),
                    return_state=True,
                )
            )
            prefect_seconds = time.perf_counter() - started
            started = time.perf_counter()
            adapt_language(
                AdaptRequest(benchmark=benchmark, language=language, project_root=tmp_path / "prefect"),
                return_state=True,
            )
            rerun_seconds = time.perf_counter() - started
        finally:
            server.terminate()
            server.wait(30)
    print(f"{benchmark} -> {language} (status {result.status})")
    print(f"  stage functions called directly : {direct_seconds:7.1f} s")
    print(
        f"  same stages through Prefect     : {prefect_seconds:7.1f} s   overhead "
        f"{100 * (prefect_seconds / direct_seconds - 1):+.1f}% (target <= 15%)"
    )
    print(f"  unchanged rerun through Prefect : {rerun_seconds:7.1f} s   (every stage cached)")
    print(f"  local Prefect server start-up   : {server_boot:7.1f} s   (once per session, not per run)")


if __name__ == "__main__":
    main()
