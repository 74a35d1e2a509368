"""Term review decisions: approve a rendering, or correct it, with author and time, append-only.

A decision becomes a reviewer's entry of the canonical map (canonical_maps/<benchmark>/<lang>.json, the
tracked file with only reviewed entries) and a line of the decision log beside it
(<lang>.terms-log.jsonl). The next run renders the term as decided everywhere the map reaches: the DB,
the golden arguments and the prose; only units that mention the term are translated again (their
translation-memory key includes the glossary terms they mention).

A batch of decisions is checked whole before anything is written: an empty rendering, or one another
term of the class already has, refuses the batch (exit 2, nothing written).
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from pydantic import Field

from babelflow.append_log import append_records, read_records
from babelflow.canonical_map import (
    CanonicalEntry,
    CanonicalMap,
    as_read,
    check_canonical_map,
    load_canonical_map,
    save_canonical_map,
)
from babelflow.errors import BabelflowError
from babelflow.ir import Record

TermAction = Literal["approve", "correct", "import", "approve-all"]
UNREAD = "approved unread by --terms approve-all (a test policy, not a review)"


class TermDecision(Record):
    at: str = Field(description="UTC, ISO 8601")
    author: str
    action: TermAction
    group: str
    source: str
    rendering: str
    previous: str = Field(default="", description="the rendering before the decision")
    note: str = ""


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def read_decisions(log: Path) -> list[TermDecision]:
    return read_records(
        log,
        TermDecision,
        "Term decision log is corrupt",
        "restore the line from git; the log is append-only",
    )


def decided_map(cmap: CanonicalMap, decisions: list[TermDecision], path: Path | None) -> CanonicalMap:
    """A copy of `cmap` with each decision as a reviewer's entry; refused whole (exit 2) when one names no
    term of the map, renders as nothing, or collides with another term of its class."""
    known = cmap.lookup()
    decided = cmap.model_copy(deep=True)
    for decision in decisions:
        if (decision.group, decision.source) not in known:
            raise BabelflowError(
                f"No term {decision.source!r} in class {decision.group!r} of {cmap.benchmark}/{cmap.language}",
                file=path,
                field="source",
                fix="pick a term `babelflow terms` lists (its class with --class when a value is in several)",
            )
        if not as_read(decision.rendering):
            raise BabelflowError(
                f"Empty rendering for {decision.source!r} ({decision.group})",
                file=path,
                field="rendering",
                fix="give the term a rendering, or leave it out",
            )
        if decision.action == "approve-all":  # the rendering stays the translator's: no human tier is claimed
            entry = known[(decision.group, decision.source)]
            decided.upsert(entry.model_copy(update={"review_state": "confirmed", "origin_detail": _unread(entry)}))
            continue
        detail = f"{decision.author}: {decision.action} {decision.at} (babelflow terms)"
        decided.upsert(
            CanonicalEntry(
                group=decision.group,
                source=decision.source,
                target=decision.rendering,
                origin="reviewer",
                origin_detail=detail,
                review_state="confirmed",
                note=decision.note,
            )
        )
    check_canonical_map(decided, path)
    return decided


def _unread(entry: CanonicalEntry) -> str:
    return entry.origin_detail if UNREAD in entry.origin_detail else f"{entry.origin_detail} · {UNREAD}".strip(" ·")


def record_decisions(
    map_path: Path, log_path: Path, benchmark: str, language: str, decisions: list[TermDecision]
) -> CanonicalMap:
    """Check the batch against the map, append it to the log, then save the map (the caller holds the run lock)."""
    cmap = load_canonical_map(map_path, benchmark, language)
    decided = decided_map(cmap, decisions, map_path)
    append_records(log_path, decisions)
    save_canonical_map(decided, map_path)
    return decided
