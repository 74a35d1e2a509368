"""What the last rebuild wrote into the variant, per field: the reference a hand edit is read against
(flows/review/hand_edits.py). Written by every rebuild (`babelflow adapt`, a flow round) next to the run's
other state, never inside the variant (the benchmark's harness reads that folder)."""

from __future__ import annotations

from pathlib import Path

import orjson

from babelflow.adaptation_run import AdaptationRun
from babelflow.atomic_io import write_bytes_atomic


def written_targets_path(run: AdaptationRun) -> Path:
    return written_targets_in(run.paths.run_dir)


def written_targets_in(run_dir: Path) -> Path:
    """The file in a (benchmark, language) run folder (StateLayout.run_dir) that records the last rebuild."""
    return run_dir / "written_targets.json"


def record_written_targets(run: AdaptationRun, targets: dict[str, str]) -> None:
    write_bytes_atomic(written_targets_path(run), orjson.dumps(targets, option=orjson.OPT_SORT_KEYS))


def read_written_targets(run: AdaptationRun) -> dict[str, str] | None:
    """None when no rebuild recorded it (a variant older than this file) or it is unreadable."""
    return read_written_targets_in(run.paths.run_dir)


def read_written_targets_in(run_dir: Path) -> dict[str, str] | None:
    """`read_written_targets` of a run folder (StateLayout.run_dir), for a reader without the run."""
    path = written_targets_in(run_dir)
    try:
        data = orjson.loads(path.read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return None
    return data if isinstance(data, dict) else None
