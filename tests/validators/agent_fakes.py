"""Scripted review models that behave like reviewers, for the validator-agent protocol tests.

`StatusWordReviewer` reads what a content-reading agent is sent (tasks and units, with their
source) and knows what a bilingual reviewer knows: how the target language labels an order
status. Where the source uses a status word as an ordinary word ("to be delivered to Suite
641") and the translation puts the status label there instead, it first asks for the field pair
(turn 1), then raises ``meaning_changed`` with its reason and the quoted words (turn 2), and says
``done``. Everything else it leaves alone: a reviewer raises only what it can defend.
"""

from __future__ import annotations

import re

from validators.agent_exchange import ReviewAction, ReviewReply, ReviewRequest
from validators.findings import Layer, Severity

# what a Vietnamese or Spanish reader knows the order statuses are called in an order-status list
STATUS_LABELS = {
    "vi": {"delivered": "đã giao", "pending": "đang chờ xử lý", "cancelled": "đã hủy", "processed": "đã xử lý"},
    "es": {"delivered": "entregado", "pending": "pendiente", "cancelled": "cancelado", "processed": "procesado"},
}


def status_word_in_prose(source: str, target: str, language: str) -> tuple[str, str] | None:
    """(status, label) when the source uses the word as a verb ("be delivered") and the target has
    the status label where a sentence should be."""
    for status, label in STATUS_LABELS.get(language.split("-")[0], {}).items():
        if (
            re.search(rf"\bbe\s+{status}\b", source)
            and f"'{status}'" not in source
            and re.search(rf"thành\s+{label}|a\s+{label}\b", target)
        ):
            return status, label
    return None


class StatusWordReviewer:
    """A ReviewModel. Keeps every request it received (to check batching and isolation)."""

    def __init__(self, model_id: str = "scripted:status-word-reviewer"):
        self.model_id = model_id
        self.requests: list[ReviewRequest] = []

    def _suspects(self, request: ReviewRequest) -> list[tuple[str, str | None, str, str]]:
        fields = [(f, t.task_id) for t in request.tasks for f in t.fields] + [(u, u.task_id) for u in request.units]
        out = []
        for view, task_id in fields:
            hit = status_word_in_prose(view.source, view.target, request.language)
            if hit:
                out.append((view.unit_id, task_id, *hit))
        return out

    def review(self, request: ReviewRequest) -> ReviewReply:
        self.requests.append(request.model_copy(deep=True))
        suspects = self._suspects(request)
        if request.turn == 1 and suspects:
            return ReviewReply(
                actions=[ReviewAction(kind="ask_field_pair", element_id=unit_id) for unit_id, *_ in suspects]
            )
        actions = []
        confirmed = {a.question.element_id: a.content for a in request.answers if a.question.kind == "ask_field_pair"}
        for unit_id, task_id, status, label in suspects:
            pair = confirmed.get(unit_id)
            if pair is None or label not in pair.get("target", ""):
                continue
            actions.append(
                ReviewAction(
                    kind="raise_finding",
                    element_id=unit_id,
                    task_id=task_id,
                    layer=Layer.FIDELITY,
                    finding_kind="meaning_changed",
                    severity=Severity.MAJOR,
                    reasoning=(
                        f"the source uses '{status}' as an ordinary verb (the address the order goes to); "
                        f"the translation puts the order-status label '{label}' there, "
                        "so the task asks for something else"
                    ),
                    quote=label,
                )
            )
        return ReviewReply(actions=actions + [ReviewAction(kind="done")])


class SilentReviewer:
    """Reads everything, finds nothing: to measure what reading costs."""

    def __init__(self, model_id: str = "scripted:silent"):
        self.model_id = model_id
        self.requests: list[ReviewRequest] = []

    def review(self, request: ReviewRequest) -> ReviewReply:
        self.requests.append(request.model_copy(deep=True))
        return ReviewReply(actions=[ReviewAction(kind="done")])
