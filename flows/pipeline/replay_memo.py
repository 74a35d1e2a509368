"""Variant replays reused across languages and reruns, keyed on exactly what each replay reads.

Languages adapted from one source mostly share the DB files and every task's id, initial state and
evaluation criteria (the translated user instructions are not read by a replay), and a rerun
after a reviewed instruction changes none of them. Such a task's variant replay is the same
computation as one already run, except for the message catalog, whose lookups each stored
outcome carries (source_benchmarks/tau2/replay_memo.py): an outcome is reused only if this
variant's catalog answers all of them the same way. Everything else is replayed and stored.

Store: <state>/replays/<benchmark>/variant_memo.json, {reads key: [{lookups, pair}, ...]}, kept
in memory per process (languages validated at once share it) and merged on write, so two
processes writing at once lose at most entries (replayed again later), never correctness.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import orjson

from babelflow.atomic_io import write_bytes_atomic
from babelflow.gc_pause import gc_paused
from babelflow.memo import BoundedMemo
from babelflow.progress import tracked
from babelflow.settings import BabelflowSettings
from source_benchmarks.protocol import ReplayOutcome
from source_benchmarks.registry import family_of

# Outcomes kept per key with different catalog answers (the newest first). Few: a task whose
# replay looks up a text every language translates (most of telecom's) is replayed per language
# anyway, and 12 languages' copies of 2,285 telecom outcomes would cost ~100 MB on disk and more
# in memory; a rerun of the same language finds its own entry unless two newer languages ran since.
MAX_ENTRIES_PER_KEY = 3

_MEMOS: BoundedMemo[str, dict[str, list[dict]]] = BoundedMemo("variant replay memos", 16)  # file -> its entries
_LOCK = threading.Lock()  # entries are merged and written back under it


def _load(path: Path) -> dict[str, list[dict]]:
    try:
        return orjson.loads(path.read_bytes()) if path.exists() else {}
    except orjson.JSONDecodeError:
        return {}  # a damaged memo only costs replays


def variant_replays(
    settings: BabelflowSettings, bench: Any, raw_tasks: dict[str, dict], task_ids: list[str], label: str
) -> tuple[dict[str, tuple], int]:
    """task id -> (golden, do-nothing) for the variant `bench`, and how many were replayed.

    Families without a replay memo (family.replay_memo()) return ({}, -1): the caller replays as before."""
    memo_kind = family_of(bench.id).replay_memo()
    if memo_kind is None:
        return {}, -1
    reads_key, lookups_hold, replay_traced = memo_kind.reads_key, memo_kind.lookups_hold, memo_kind.replay_traced

    path = settings.layout.replays(bench.id) / "variant_memo.json"
    memo = _MEMOS.get_or_compute(str(path), lambda: _load(path))
    pairs: dict[str, tuple] = {}
    fresh: dict[str, dict] = {}
    keys = {task_id: reads_key(bench, raw_tasks[task_id]) for task_id in task_ids}
    todo = []
    for task_id in task_ids:
        entry = next(
            (e for e in list(memo.get(keys[task_id], ())) if lookups_hold(bench, [tuple(x) for x in e["lookups"]])),
            None,
        )
        if entry is None:
            todo.append(task_id)
        else:
            pairs[task_id] = tuple(ReplayOutcome.model_validate(o) for o in entry["pair"])
    with gc_paused():
        for task_id in tracked(todo, label, len(todo)):
            pair, lookups = replay_traced(bench, task_id)
            pairs[task_id] = pair
            fresh[keys[task_id]] = {
                "lookups": [list(x) for x in lookups],
                "pair": [o.model_dump(mode="json") for o in pair],
            }
    if fresh:
        with _LOCK:
            on_disk = _load(path)
            for key, entries in on_disk.items():
                known = memo.setdefault(key, [])
                known.extend(e for e in entries if e not in known)
            for key, entry in fresh.items():
                memo[key] = ([entry] + [e for e in memo.get(key, []) if e["lookups"] != entry["lookups"]])[
                    :MAX_ENTRIES_PER_KEY
                ]
            write_bytes_atomic(path, orjson.dumps(memo))
    return {t: pairs[t] for t in task_ids}, len(todo)
