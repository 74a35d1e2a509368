"""What every stage shares: the stage versions in cache keys, the IR read once per process, the reviewed
profile overrides, a key over any inputs, and where a stage's model usage is saved."""

from __future__ import annotations

import gc
import threading
from pathlib import Path

import orjson

from analyzers.profile import ElementOverride
from babelflow.atomic_io import sha256_bytes
from babelflow.ir import IRDocument
from babelflow.ir_cache import load_ir_cached
from babelflow.llm.costs import CostReport
from babelflow.settings import BabelflowSettings

# Bump when a stage's logic changes: part of its cache key (Prefect's TASK_SOURCE misses helpers).
STAGE_VERSIONS = {
    "analyze": "2",
    "terms": "1",
    "translate": "2",
    "rebuild": "1",
    "validate": "2",
    "merge": "1",
    "evaluate": "1",
}


_IR_CACHE: dict[tuple[str, int, int, int], IRDocument] = {}  # (path, inode, size, mtime_ns)
_IR_LOCK = threading.Lock()  # validation layers run in parallel threads
# Once the IR is in memory (~1.7M objects for telecom, with what the process holds by then), it is
# moved out of the cyclic collector's reach (gc.freeze): every full collection triggered by a big
# parse later (a 19 MB tasks file, a DB per replay) walked all of it again, which made telecom's
# rerun stages 1.5-3x slower. Frozen objects are still freed by reference counting.


def read_ir(path: Path, benchmark: str) -> IRDocument:
    """Stages run one after another in one process (flow or bench): parse each IR file once.

    Keyed on the file's identity (path, size, mtime): a rewritten IR is read again. Callers only read it."""
    stat = Path(path).stat()
    key = (str(path), stat.st_ino, stat.st_size, stat.st_mtime_ns)  # atomic writes give a new inode
    with _IR_LOCK:
        if key not in _IR_CACHE:
            _IR_CACHE.clear()  # keep at most one IR (telecom's holds 170k elements)
            _IR_CACHE[key] = load_ir_cached(path, benchmark)
            gc.freeze()
        return _IR_CACHE[key]


def keep_ir(path: Path, document: IRDocument) -> None:
    """An IR the analysis just saved or reused: later stages of this process use it unparsed."""
    stat = Path(path).stat()
    with _IR_LOCK:
        _IR_CACHE.clear()
        _IR_CACHE[(str(path), stat.st_ino, stat.st_size, stat.st_mtime_ns)] = document
        gc.collect()  # the analysis' cyclic garbage, once, before what is left is frozen
        gc.freeze()


def load_overrides(path: Path) -> list[ElementOverride]:
    return [ElementOverride.model_validate(o) for o in orjson.loads(path.read_bytes())] if path.exists() else []


def key_of(*parts: object) -> str:
    return sha256_bytes(orjson.dumps(parts, default=str))


def costs_path(settings: BabelflowSettings, benchmark: str, language: str, stage: str) -> Path:
    return settings.layout.costs(benchmark, language, stage)


FLOW_COST_STAGES = ("terms", "translate", "validate")


def flow_costs(settings: BabelflowSettings, benchmark: str, language: str) -> CostReport:
    """The model usage the flow's stages saved for one language (terms, translation, validators)."""
    rows = []
    for stage in FLOW_COST_STAGES:
        path = costs_path(settings, benchmark, language, stage)
        if path.exists():
            rows += CostReport.model_validate_json(path.read_bytes()).rows
    return CostReport(rows=rows)


def matching_estimate(
    settings: BabelflowSettings, benchmark: str, language: str, actual: CostReport
) -> CostReport | None:
    """The `--estimate` saved for this language, when it was made for the models and agents the run used."""
    path = costs_path(settings, benchmark, language, "estimate")
    if not path.exists() or not actual.rows:
        return None
    estimate = CostReport.model_validate_json(path.read_bytes())

    def used(report: CostReport) -> set[tuple[str, str, str, str]]:
        return {(r.stage if r.stage != "terms" else "translate", r.provider, r.model, r.agent) for r in report.rows}

    return estimate if used(estimate) == used(actual) else None
