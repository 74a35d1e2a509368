"""Cache of instrumented-replay and differential observations, keyed by everything they depend on.

An unchanged source costs nothing the second time: the key is the content of every artifact
(tasks, DBs, code), the installed benchmark version, the tracer's own code (the engine's, and the
family's `code_version()`) and the task list. The cache lives in the project's state folder and is
never an input: a missing, unreadable or ill-typed entry is recomputed.

Entries are JSON validated against the declared type of their kind (pydantic-core), never pickle:
unpickling runs whatever code the file names, and anyone who can write the state folder could
have put one there (issue 28). Pickles an older babelflow wrote are deleted, never read.
"""

from __future__ import annotations

import glob
import hashlib
import os
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import pydantic
from pydantic import TypeAdapter

from analyzers import ANALYZER_VERSION
from analyzers.located_evidence import Observed
from babelflow.atomic_io import write_bytes_atomic
from babelflow.settings import BabelflowSettings
from source_benchmarks.family import files_version
from source_benchmarks.protocol import CodeTrialResult
from source_benchmarks.registry import family_of

FORMAT = "json-1"  # part of every key: a format change never reads an entry of the old one
SUFFIX = ".json"
Segment = str | int  # a JSON path segment: a key or a list index
Location = tuple[str, tuple[Segment, ...], bool]  # (artifact, path, is_key)


@cache
def _adapter(what: str) -> TypeAdapter:
    """The type of each kind's value; dicts keyed by tuples are stored as (key, value) pairs."""
    if what == "trace":  # {(artifact, path, is_key): {link kind: detail}}
        return TypeAdapter(list[tuple[Location, dict[str, str]]])
    if what == "differential":  # {(artifact, generalized path, is_key): Observed}
        return TypeAdapter(list[tuple[Location, Observed]])
    if what == "code-differential":
        return TypeAdapter(list[CodeTrialResult])
    raise ValueError(f"analysis cache: no declared type for {what!r} (add it to analyzers/trace_cache.py)")


_PAIRS = {"trace", "differential"}  # kinds whose value is a dict with tuple keys


def encode(what: str, value: Any) -> bytes:
    return _adapter(what).dump_json(list(value.items()) if what in _PAIRS else value)


def decode(what: str, data: bytes) -> Any:
    """The value, validated against its kind's type; raises pydantic.ValidationError otherwise."""
    value = _adapter(what).validate_json(data)
    return dict(value) if what in _PAIRS else value


# the engine's own code each kind runs; the family's replay and trial code is its code_version()
_ENGINE_CODE = {
    "trace": (),
    "differential": ("analyzers/differential.py",),
    "code-differential": ("analyzers/code_differential.py",),
}
_ROOT = Path(__file__).resolve().parent.parent
KEEP = 3  # per benchmark and kind: the current source plus a couple of edited copies


def _code_version(bench: Any, what: str) -> str:
    """The engine's code for `what` and the benchmark family's replay code (family.code_version())."""
    engine = files_version(_ROOT, _ENGINE_CODE.get(what, _ENGINE_CODE["differential"]))
    return f"{engine}\0{family_of(bench.id).code_version()}"


def cache_dir() -> Path:
    if os.environ.get("BABELFLOW_ANALYSIS_CACHE"):  # benches measure a cold and a warm cache
        return Path(os.environ["BABELFLOW_ANALYSIS_CACHE"])

    return BabelflowSettings().resolved_state_dir() / "analysis_cache"


def cache_key(bench: Any, what: str, extra: str = "") -> str:
    digest = hashlib.blake2b(digest_size=16)
    digest.update(_code_version(bench, what).encode())  # with ANALYZER_VERSION: the scanner and inventory decide
    digest.update(f"{what}\0{ANALYZER_VERSION}\0{FORMAT}\0{bench.id}\0{bench.source_version}\0{extra}".encode())
    for fingerprint in bench.fingerprints():
        digest.update(f"{fingerprint.path}\0{fingerprint.sha256}\0".encode())
    return f"{bench.id}-{what}-{digest.hexdigest()}"


def cached(bench: Any, what: str, compute: Callable[[], Any], extra: str = "", folder: Path | None = None) -> Any:
    path = (folder or cache_dir()) / f"{cache_key(bench, what, extra)}{SUFFIX}"
    try:
        return decode(what, path.read_bytes())
    except (OSError, pydantic.ValidationError):  # missing, truncated, foreign or tampered: recompute
        pass
    value = compute()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_bytes_atomic(path, encode(what, value))
        _prune(path)
    except OSError:  # a read-only state folder only costs the cache
        pass
    return value


def _prune(path: Path, keep: int = KEEP) -> None:
    """Entries of older sources or tracer code are never read again: keep the newest few per benchmark
    and kind; pickles of an older babelflow go (they are never loaded)."""
    prefix = glob.escape(path.name.rsplit("-", 1)[0] + "-")
    for legacy in path.parent.glob(f"{prefix}*.pickle"):
        legacy.unlink(missing_ok=True)
    entries = sorted(path.parent.glob(f"{prefix}*{SUFFIX}"), key=lambda p: p.stat().st_mtime, reverse=True)
    for stale in entries[keep:]:
        stale.unlink(missing_ok=True)
