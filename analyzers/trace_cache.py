"""Cache of instrumented-replay and differential observations, keyed by everything they depend on.

An unchanged source costs nothing the second time: the key is the content of every artifact
(tasks, DBs, code), the installed benchmark version, the tracer's own code and the task list. The
cache lives in the project's state folder and is never an input: a missing or unreadable entry is
recomputed.
"""

from __future__ import annotations

import glob
import hashlib
import pickle
from collections.abc import Callable
from pathlib import Path
from typing import Any

from babelflow.atomic_io import write_bytes_atomic

_TRACE_CODE = ("source_benchmarks/tau2/tracing.py", "source_benchmarks/tau2/traced_replay.py")
_CODE_TRIALS = (
    "source_benchmarks/tau2/scripted_conversation.py", "source_benchmarks/tau2/code_perturbation.py", "source_benchmarks/tau2/code_trials.py", "analyzers/code_differential.py",
    "source_benchmarks/tau2/localized_roles.py", "source_benchmarks/tau2/fast_replay.py", "source_benchmarks/tau2/replay.py", "source_benchmarks/tau2/environment_factory.py",
    "babelflow/text.py",  # the accent table the perturbation uses
)
_CODE_FILES = {"trace": _TRACE_CODE, "differential": _TRACE_CODE + ("analyzers/differential.py",), "code-differential": _CODE_TRIALS}
_ROOT = Path(__file__).resolve().parent.parent
KEEP = 3  # per benchmark and kind: the current source plus a couple of edited copies


def _code_digest(what: str) -> bytes:
    digest = hashlib.blake2b(digest_size=16)
    for name in _CODE_FILES.get(what, _CODE_FILES["differential"]):
        path = _ROOT / name
        if path.exists():
            digest.update(path.read_bytes())
    return digest.digest()


def cache_dir() -> Path:
    import os

    from babelflow.settings import BabelflowSettings

    if os.environ.get("BABELFLOW_ANALYSIS_CACHE"):  # benches measure a cold and a warm cache
        return Path(os.environ["BABELFLOW_ANALYSIS_CACHE"])

    return BabelflowSettings().resolved_state_dir() / "analysis_cache"


def cache_key(bench: Any, what: str, extra: str = "") -> str:
    digest = hashlib.blake2b(digest_size=16)
    digest.update(_code_digest(what))
    from analyzers import ANALYZER_VERSION  # the scanner and inventory decide what is tried

    digest.update(f"{what}\0{ANALYZER_VERSION}\0{bench.id}\0{bench.source_version}\0{extra}".encode())
    for fingerprint in bench.fingerprints():
        digest.update(f"{fingerprint.path}\0{fingerprint.sha256}\0".encode())
    return f"{bench.id}-{what}-{digest.hexdigest()}"


def cached(bench: Any, what: str, compute: Callable[[], Any], extra: str = "", folder: Path | None = None) -> Any:
    path = (folder or cache_dir()) / f"{cache_key(bench, what, extra)}.pickle"
    try:
        return pickle.loads(path.read_bytes())
    except Exception:  # missing, truncated or from another Python: recompute
        pass
    value = compute()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_bytes_atomic(path, pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
        _prune(path)
    except OSError:  # a read-only state folder only costs the cache
        pass
    return value


def _prune(path: Path, keep: int = KEEP) -> None:
    """Entries of older sources or tracer code are never read again: keep the newest few per benchmark and kind."""
    prefix = path.name.rsplit("-", 1)[0] + "-"
    entries = sorted(path.parent.glob(f"{glob.escape(prefix)}*.pickle"), key=lambda p: p.stat().st_mtime, reverse=True)
    for stale in entries[keep:]:
        stale.unlink(missing_ok=True)
