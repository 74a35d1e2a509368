"""A throwaway local Prefect server on 127.0.0.1 (telemetry off) for benchmark scripts."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path


def start_server(home: Path, timeout: float = 240) -> tuple[subprocess.Popen, str, float]:
    """Start `prefect server start` with PREFECT_HOME=home; returns (process, API URL, boot seconds)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    api = f"http://127.0.0.1:{port}/api"
    env = {
        **os.environ, "PREFECT_HOME": str(home), "DO_NOT_TRACK": "1", "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
        "PREFECT_SERVER_UI_V2_ENABLED": "false", "PREFECT_UI_API_URL": api,
    }
    started = time.perf_counter()
    server = subprocess.Popen([sys.executable, "-m", "prefect", "server", "start", "--host", "127.0.0.1", "--port", str(port)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while time.perf_counter() - started < timeout:
        try:
            urllib.request.urlopen(f"{api}/health", timeout=1)
            return server, api, time.perf_counter() - started
        except OSError:
            time.sleep(0.25)
    server.terminate()
    raise SystemExit(f"Prefect server did not answer at {api} within {timeout} s")
