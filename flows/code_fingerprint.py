"""The code a stage runs, as part of its cache key: results cache on their inputs, and the stage's own
code is one. A validator fixed without a version bump (STAGE_VERSIONS) otherwise answered a rerun
with the findings the old code made (issue 23: 5,835 stale `untranslated` findings after the fix)."""

from __future__ import annotations

import hashlib
import importlib
from functools import cache
from pathlib import Path

# the packages whose code decides each stage's result (the core `babelflow` is read by all of them)
STAGE_PACKAGES = {
    "analyze": ("analyzers", "source_benchmarks", "babelflow"),
    "translate": ("translators", "babelflow"),
    "rebuild": ("translators", "source_benchmarks", "babelflow"),
    "validate": ("validators", "source_benchmarks", "babelflow"),
    "merge": ("validators",),
    "evaluate": ("flows", "source_benchmarks", "babelflow"),
}


@cache
def package_fingerprint(package: str) -> str:
    """sha256 over the package's Python files (relative path and bytes), read once per process."""
    root = Path(importlib.import_module(package).__file__ or "").parent
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def stage_code(stage: str) -> str:
    return "+".join(package_fingerprint(p) for p in STAGE_PACKAGES.get(stage, ()))
