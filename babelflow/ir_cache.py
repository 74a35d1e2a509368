"""A binary sidecar of a saved IR, so a rerun does not re-validate 170k elements from JSON.

Telecom's IR is 89 MB of JSON; parsing and validating it costs seconds and ~600 MB, yet only
~3,400 of its source texts and ~110 of its roles are distinct. Loaded elements therefore share
their repeated strings, and the shared form is pickled next to the JSON. The pickle is a cache in
the project's own state folder, never an input: it is used only when it was made from a JSON file
with the same content digest by the same IR model code, and any problem falls back to the JSON.
"""

from __future__ import annotations

import hashlib
import pickle
from pathlib import Path

import pydantic

from babelflow.atomic_io import write_bytes_atomic
from babelflow.gc_pause import gc_paused
from babelflow.ir import IRDocument, load_ir

_MODEL_CODE = hashlib.sha256(Path(__file__).with_name("ir.py").read_bytes() + pydantic.VERSION.encode()).hexdigest()[:16]


def share_strings(document: IRDocument) -> IRDocument:
    """Make equal strings of the elements one object (role, artifact, rule, source text)."""
    pool: dict[str, str] = {}
    for element in document.elements:
        fields = element.__dict__  # plain attribute storage: no per-assignment validation
        for name in ("artifact", "role", "typing_rule", "source_text", "canonical_group"):
            value = fields[name]
            if value is not None:
                fields[name] = pool.setdefault(value, value)
        fields["links"] = [pool.setdefault(link, link) for link in fields["links"]]
        locator = element.locator.__dict__
        if "path" in locator:  # JSON paths repeat the same keys in every task
            locator["path"] = type(locator["path"])(pool.setdefault(part, part) if isinstance(part, str) else part for part in locator["path"])
    return document


def _stamp(path: Path) -> str:
    """The JSON's content digest (an mtime can repeat for two writes within one clock tick)."""
    return f"{_MODEL_CODE}:{hashlib.blake2b(path.read_bytes(), digest_size=16).hexdigest()}"


def sidecar_path(path: Path) -> Path:
    return path.with_name(f".{path.name}.pickle")


def load_ir_cached(path: Path, benchmark: str) -> IRDocument:
    """The IR at `path` (a JSON file babelflow wrote), through its binary sidecar when it is fresh.

    `load_document`-style callers must treat the result as read-only (it may be shared)."""
    path = Path(path)
    sidecar = sidecar_path(path)
    stamp = _stamp(path)
    if sidecar.exists():
        try:
            with gc_paused():  # unpickling 170k models triggers many full collections otherwise
                saved_stamp, document = pickle.loads(sidecar.read_bytes())
            if saved_stamp == stamp and isinstance(document, IRDocument) and document.benchmark == benchmark:
                return document
        except Exception:  # noqa: BLE001 - a damaged or foreign cache is only a cache: read the JSON
            pass
    document = share_strings(load_ir(path, benchmark=benchmark))
    remember(path, document, stamp)
    return document


def remember(path: Path, document: IRDocument, stamp: str | None = None) -> None:
    """Write the sidecar for an IR that is already in memory (right after analysis saved it, or
    after the JSON was read because the sidecar was stale)."""
    try:
        write_bytes_atomic(sidecar_path(path), pickle.dumps((stamp or _stamp(Path(path)), share_strings(document)), protocol=pickle.HIGHEST_PROTOCOL))
    except Exception:  # noqa: BLE001 - a read-only state folder still works, only slower
        pass
