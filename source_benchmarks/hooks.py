"""The typed hooks a family may provide beyond opening its benchmarks (source_benchmarks/family.py).

A hook is an object or a view of the family's adapter, typed by one of these protocols; a family
without the capability returns None and the engine does the generic thing or refuses. Nothing is
probed by name: mypy checks each family's hooks against these types.
"""

from __future__ import annotations

from typing import Any, Protocol

from source_benchmarks.protocol import ReplayOutcome

ReplayPair = tuple[ReplayOutcome, ReplayOutcome]  # (golden, do-nothing)
CatalogLookups = list[tuple[int, str, str]]  # the message-catalog lookups a replay made


class ReplayMemo(Protocol):
    """Per-task replay outcomes reusable across variants that read the same (flows/pipeline/replay_memo.py)."""

    def reads_key(self, bench: Any, raw_task: dict) -> str:
        """Content key of everything a replay of `raw_task` reads, except the message catalog."""
        ...

    def lookups_hold(self, bench: Any, lookups: CatalogLookups) -> bool:
        """Whether `bench`'s catalog answers every recorded lookup the same way."""
        ...

    def replay_traced(self, bench: Any, task_id: str) -> tuple[ReplayPair, CatalogLookups]:
        """The task's (golden, do-nothing) pair and the catalog lookups it made."""
        ...


class BehaviourScores(Protocol):
    """A family's ground-truth scores beyond the reward (validators/probes/behavior.py)."""

    @property
    def compared(self) -> dict[str, str]:
        """Reward-breakdown component -> the finding kind when source and variant disagree on it."""
        ...

    def score_name(self, task_id: str) -> str: ...

    def describe(self, component: str, source: ReplayOutcome, target: ReplayOutcome) -> str: ...
