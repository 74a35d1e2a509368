"""A doubtful term a reviewer skipped is not asked again in the next round (the VitaBench instore es review met
the same 121 skipped terms in every round), unless its rendering changed since."""

from __future__ import annotations

from flows.review.terms_review import still_to_ask
from translators.terms.term_base import TermEntry


def test_a_term_skipped_before_is_not_asked_again_until_its_rendering_changes():
    def entry(source: str, rendering: str, chance: float) -> TermEntry:
        return TermEntry(
            group="product",
            source=source,
            rendering=rendering,
            draft=rendering,
            origin="translator",
            state="proposed",
            chance_wrong=chance,
        )

    doubtful = [entry("Lamp", "Lámpara", 0.4), entry("Desk", "Escritorio", 0.9), entry("Chair", "Silla", 0.5)]
    skipped = {("product", "Desk", "Escritorio"), ("product", "Chair", "Cátedra")}  # Chair was rendered otherwise
    assert [e.source for e in still_to_ask(doubtful, skipped)] == ["Chair", "Lamp"]  # most doubtful first


def test_a_round_asks_the_most_doubtful_first_and_the_rest_wait_for_the_next():
    def entry(source: str, group: str, chance: float) -> TermEntry:
        return TermEntry(
            group=group,
            source=source,
            rendering=source.lower(),
            draft=source.lower(),
            origin="translator",
            state="proposed",
            chance_wrong=chance,
        )

    doubtful = [entry("A", "tag", 0.3), entry("B", "product", 0.9), entry("C", "tag", 0.7), entry("D", "product", 0.5)]
    first = still_to_ask(doubtful, set(), limit=2)
    assert [e.source for e in first] == ["B", "C"]  # the two most doubtful, in form order (by class)
    skipped = {(e.group, e.source, e.rendering) for e in first}
    assert [e.source for e in still_to_ask(doubtful, skipped, limit=2)] == ["D", "A"]
