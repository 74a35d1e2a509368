"""A throwaway local Prefect server on 127.0.0.1 for benchmark scripts: the same command and
environment as the project's own server (flows/server/local_server.py), in a temporary home."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

from flows.server.local_server import any_free_port, healthy, server_command, server_environment


def start_server(home: Path, timeout: float = 240) -> tuple[subprocess.Popen, str, float]:
    """Start `prefect server start` with PREFECT_HOME=home; returns (process, API URL, boot seconds)."""
    port = any_free_port()
    api = f"http://127.0.0.1:{port}/api"
    started = time.perf_counter()
    server = subprocess.Popen(
        server_command(port),
        env=server_environment(port, Path(home)),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    while time.perf_counter() - started < timeout:
        if healthy(api):
            return server, api, time.perf_counter() - started
        time.sleep(0.25)
    server.terminate()
    raise SystemExit(f"Prefect server did not answer at {api} within {timeout} s")
