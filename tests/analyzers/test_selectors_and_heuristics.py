"""Profile selectors (JSONPath compiled to tuples) and the shape heuristics, on their own."""

from __future__ import annotations

import pytest

from analyzers.heuristics import is_prose, specific_reason
from analyzers.selectors import compile_selector
from babelflow.errors import BabelflowError
from babelflow.ir import PreserveReason


@pytest.mark.parametrize(
    ("selector", "path", "matches"),
    [
        (
            "$[*].evaluation_criteria.actions[*].arguments.reason",
            (3, "evaluation_criteria", "actions", 0, "arguments", "reason"),
            True,
        ),
        (
            "$[*].evaluation_criteria.actions[*].arguments.reason",
            (3, "evaluation_criteria", "actions", 0, "arguments", "order_id"),
            False,
        ),
        ("$..status", ("orders", "#W1", "status"), True),
        ("$..status", ("orders", "#W1", "items", 0, "status"), True),
        ("$.users[*]['name','email']", ("users", "u1", "email"), True),
        ("$.users[*]['name','email']", ("users", "u1", "address"), False),
        ("$.flights[0]", ("flights", 0), True),
        ("$.flights[0]", ("flights", 1), False),
    ],
)
def test_selectors_match_concrete_paths(selector, path, matches):
    assert compile_selector(selector).matches(path) is matches


def test_a_bad_selector_names_the_profile_and_the_fix():
    with pytest.raises(BabelflowError) as caught:
        compile_selector("$[*.oops", where="profiles/x.toml")
    assert "profiles/x.toml" in caught.value.render() and "JSONPath" in caught.value.render()


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", PreserveReason.EMPTY),
        ("###STOP###", PreserveReason.CONTROL_TOKEN),
        ("noah.brown@example.com", PreserveReason.EMAIL_URL),
        ("2024-05-01T10:00:00Z", PreserveReason.DATE_TIME),
        ("10:30 AM", PreserveReason.DATE_TIME),
        ("$1,234.50", PreserveReason.NUMBER),
        ("#W2611340", PreserveReason.IDENTIFIER),
        ("user_id", PreserveReason.IDENTIFIER),
        ("| --- |", PreserveReason.MARKUP),
        ("pending", None),
        ("Cancel the order", None),
    ],
)
def test_shape_reasons(text, reason):
    assert specific_reason(text) is reason


def test_prose_is_three_words_or_a_sentence():
    assert is_prose("cancel the order") and is_prose("Order cancelled.")
    assert not is_prose("order cancelled") and not is_prose("pending")
