"""Loading a saved IR quickly, from its own JSON: no second copy of it in an executable format.

Telecom's IR is 89 MB of JSON; parsed with orjson and validated from Python dicts it cost seconds,
so a pickled copy used to sit next to it (`.<name>.json.pickle`). Unpickling runs whatever code the
file names, and the state folder is as writable as the project (issue 28). The JSON is now parsed
and validated in one pass by pydantic-core (Rust: the file chooses no code, every field is checked),
which is faster than unpickling was and needs no second file (retail's 61k elements, warm, min of
5 interleaved: 1.53 s vs 1.69 s for the stamp digest + unpickle; peak RSS 261 MB vs 206 MB, as the
29 MB JSON is read whole). Strings are no
longer pooled after loading: pydantic-core already reuses short repeated strings, and pooling the
rest cost 0.4 s without lowering RSS. A left-over pickle is deleted, never read.
"""

from __future__ import annotations

from pathlib import Path

import pydantic

from babelflow.gc_pause import gc_paused
from babelflow.ir import IRDocument, load_ir


def legacy_sidecar_path(path: Path) -> Path:
    """Where babelflow before issue 28 pickled the IR: deleted when seen, never loaded."""
    return Path(path).with_name(f".{Path(path).name}.pickle")


def load_ir_cached(path: Path, benchmark: str) -> IRDocument:
    """The IR at `path`, validated straight from its JSON bytes (no intermediate dicts).

    Anything wrong (missing, not JSON, another schema or benchmark) goes through `load_ir`, whose
    error names the file and the fix. Callers must treat the result as read-only (it may be shared)."""
    path = Path(path)
    document: IRDocument | None = None
    try:
        raw = path.read_bytes()
        with gc_paused():  # 61k-170k elements: full collections in the middle only cost time
            document = IRDocument.model_validate_json(raw)
    except (OSError, pydantic.ValidationError):
        pass
    if document is None or document.benchmark != benchmark:
        document = load_ir(path, benchmark=benchmark)
    forget_legacy_sidecar(path)
    return document


def forget_legacy_sidecar(path: Path) -> None:
    try:
        legacy_sidecar_path(path).unlink(missing_ok=True)
    except OSError:  # a read-only state folder: the file is never read anyway
        pass


def remember(path: Path, document: IRDocument) -> None:
    """Called after an IR is saved. Nothing is kept beside the JSON any more (the JSON loads as fast
    as the old pickle did); only a pickle an older babelflow left there is removed."""
    forget_legacy_sidecar(path)
