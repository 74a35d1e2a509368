"""Each fidelity check of a source/target pair, on its own (the probes run them on every field)."""

from __future__ import annotations

import pytest

from validators.probes.fidelity import check_pair


def kinds(
    source: str,
    target: str,
    language: str = "en-XA",
    tokens: tuple[str, ...] = (),
    location: str = "tasks.json[*].instructions",
) -> set[str]:
    return {
        f.kind for f in check_pair("probes", "data/tasks.json", location, None, source, target, list(tokens), language)
    }


@pytest.mark.parametrize(
    ("source", "target", "expected"),
    [
        ("Cancel order #W1 today", "[Çåñçéļ öŕðéŕ #W1 ţöðåý one two]", set()),
        # the id's digit is gone too: a left placeholder is also a changed number
        ("Cancel order #W1 today", "[Çåñçéļ öŕðéŕ ⟦0⟧ ţöðåý one two]", {"placeholder_left", "number_changed"}),
        ("Cancel the order today", "Cancel the order today", {"untranslated"}),
        ("Refund 3 items for $12.50", "[Ŕéƒûñð 4 îţéɱš ƒöŕ $12.50 one two three]", {"number_changed"}),
        ("Pay with @wallet now please", "[Þåý ŵîţĥ @wallet @wallet ñöŵ one two]", {"token_duplicated"}),
        ("Cancel the order today", "Anular el pedido hoy", {"wrong_language"}),
        (
            "Cancel the order for the customer now",
            "[Šûŕé, ĥéŕé îš ţĥé ţŕåñšļåţîöñ: Çåñçéļ one two three]",
            {"answered_not_translated"},
        ),
        ("Cancel the order for the customer", "[Çåñçéļ ţĥé öŕðéŕ (ñöţé: ƒöŕɱåļ) one two]", {"added_commentary"}),
        (
            "Cancel the order for the customer and refund the gift card",
            "[Çåñçéļ",
            {"truncated", "length_ratio_outlier"},
        ),
    ],
)
def test_each_check(source, target, expected):
    tokens = [t for t in ("#W1", "@wallet") if t in source]
    assert kinds(source, target, tokens=tuple(tokens)) == expected


def test_metadata_left_in_english_is_minor_prose_is_major():
    [metadata] = check_pair(
        "probes",
        "data/tasks.json",
        "tasks.json[*].description.purpose",
        None,
        "Test the refund flow",
        "Test the refund flow",
        [],
        "en-XA",
    )
    [prose] = check_pair(
        "probes",
        "data/tasks.json",
        "tasks.json[*].user_scenario.instructions",
        None,
        "Test the refund flow",
        "Test the refund flow",
        [],
        "en-XA",
    )
    assert (metadata.severity.value, prose.severity.value) == ("minor", "major")


def test_paths_are_values_not_prose():
    assert kinds("data/tau2/domains/retail/db.json", "data/tau2/domains/retail/db.json") == set()
