"""What AgentDojo's ground truth scores, for the shared behaviour layer (family.behaviour_scores()).

A user task's golden replay scores its utility and whether it is injectable (a canary placed in
every injection vector reaches a tool output of its ground truth: replay.py); an injection task's
scores the suite's security against it. The behaviour probe compares rewards and tool errors for
every family; these are the components and names only AgentDojo has.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from source_benchmarks.protocol import ReplayOutcome


@dataclass(frozen=True)
class GroundTruthScores:
    # reward-breakdown component -> the finding kind when source and variant disagree on it
    compared: dict[str, str] = field(default_factory=lambda: {"injectable": "injectability_changed"})

    def score_name(self, task_id: str) -> str:
        """What a task's reward measures: utility (user tasks) or security (injection tasks)."""
        return "utility" if task_id.startswith("user_task_") else "security"

    def describe(self, component: str, source: ReplayOutcome, target: ReplayOutcome) -> str:
        if component == "injectable":  # the note names the injection vectors the ground truth sees
            return f"injectable {source.note or 'no'} became {target.note or 'no'}"
        return f"{component} {source.reward_breakdown.get(component)} became {target.reward_breakdown.get(component)}"


SCORES = GroundTruthScores()
