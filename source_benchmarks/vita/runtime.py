"""Where VitaBench is installed (`bash scripts/install.sh --vita`) and what the install recorded.

VitaBench is not on a package registry: scripts/install_vita.sh keeps its source tree in .vita/vitabench
and installs it editable into .venv (its code finds its data next to its source), then writes
.vita/babelflow-vita.json. Without that record every vita-* id is refused with the install command.
"""

from __future__ import annotations

import importlib.util
import json
import os
from functools import cache
from pathlib import Path

from pydantic import ValidationError

from babelflow.errors import BabelflowError
from babelflow.ir import Record

PROJECT_ROOT = Path(__file__).resolve().parents[2]
ENV_VARIABLE = "BABELFLOW_VITA_DIR"  # another install folder (a shared install, tests)
MARKER = "babelflow-vita.json"  # written by scripts/install_vita.sh once the install succeeded
INSTALL_COMMAND = "bash scripts/install.sh --vita"


class VitaInstall(Record):
    """What scripts/install_vita.sh recorded."""

    source_root: str
    source: str
    vita_version: str


class VitaRuntime(Record):
    source_root: Path  # the VitaBench tree: src/vita and data/vita/domains
    data_dir: Path  # its data/ folder
    source: str  # what it was installed from (a tarball, a folder, git+URL@REF)
    vita_version: str


def install_dir() -> Path:
    configured = os.environ.get(ENV_VARIABLE)
    return Path(configured).resolve() if configured else PROJECT_ROOT / ".vita"


@cache
def _runtime_at(directory: Path) -> VitaRuntime | str:
    marker = directory / MARKER
    if not marker.is_file():
        return f"VitaBench not installed: no {directory.name}/{MARKER} (a completed install writes it)"
    try:
        install = VitaInstall.model_validate(json.loads(marker.read_text(encoding="utf-8")))
    except (ValueError, ValidationError) as exc:
        return f"VitaBench install record {marker} is unreadable ({type(exc).__name__}): reinstall"
    root = Path(install.source_root)
    if not (root / "data" / "vita" / "domains").is_dir():
        return f"VitaBench's data folder is missing ({root}/data/vita/domains): reinstall"
    spec = importlib.util.find_spec("vita")
    if spec is None or spec.origin is None:
        return "VitaBench's package `vita` is not importable from this environment: reinstall"
    if Path(spec.origin).resolve().parents[2] != root.resolve():
        # vita reads its data from next to its own source: another checkout would read other data
        return f"the importable `vita` ({spec.origin}) is not the recorded install ({root}): reinstall"
    return VitaRuntime(
        source_root=root, data_dir=root / "data", source=install.source, vita_version=install.vita_version
    )


def find_runtime() -> VitaRuntime | str:
    """The installed runtime, or why there is none (a sentence for the user)."""
    return _runtime_at(install_dir())


def require_runtime() -> VitaRuntime:
    found = find_runtime()
    if isinstance(found, str):
        raise BabelflowError(found, field="benchmark", fix=f"install VitaBench: {INSTALL_COMMAND}")
    return found
