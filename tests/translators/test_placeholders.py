from __future__ import annotations

import functools
import random
import re
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest
import tau2

from translators.placeholders import PlaceholderError, ProtectedText, placeholder_problems, protect, restore

DOMAINS = Path(tau2.__file__).parent / "data" / "tau2" / "domains"


def _strings(value: object) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


@functools.cache  # telecom's tasks.json is 14 MB: parse it once
def _tasks(domain: str) -> list[dict]:
    return orjson.loads((DOMAINS / domain / "tasks.json").read_bytes())


def _originals(protected: ProtectedText) -> list[tuple[str, str]]:
    return [(p.original, p.kind) for p in protected.placeholders]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Hi {name}, {user.id} {0} {} {{literal}}",
            [
                ("{name}", "template"),
                ("{user.id}", "template"),
                ("{0}", "template"),
                ("{}", "template"),
                ("{{literal}}", "template"),
            ],
        ),
        (
            "%s items for %(name)s at %d%%",
            [("%s", "printf"), ("%(name)s", "printf"), ("%d", "printf"), ("%%", "printf")],
        ),
        ("Call `get_order_details(order_id)` now", [("`get_order_details(order_id)`", "code")]),
        (
            'See [the policy](https://x.test/p_1 "t") or ![img](a.png)',
            [('](https://x.test/p_1 "t")', "link_target"), ("](a.png)", "link_target")],
        ),
        (
            "Go to https://example.com/a_b?x=1. Or www.example.org!",
            [("https://example.com/a_b?x=1", "url"), ("www.example.org", "url")],
        ),
        ("Mail sara_doe@example.com.", [("sara_doe@example.com", "email")]),
        (
            "Say ###STOP### or ###TRANSFER### or ###OUT-OF-SCOPE###",
            [("###STOP###", "control"), ("###TRANSFER###", "control"), ("###OUT-OF-SCOPE###", "control")],
        ),
        (
            '<policy>Be nice</policy><br/><a href="x">',
            [("<policy>", "tag"), ("</policy>", "tag"), ("<br/>", "tag"), ('<a href="x">', "tag")],
        ),
        (
            "Use credit_card_9513926 and get_order_details",
            [("credit_card_9513926", "identifier"), ("get_order_details", "identifier")],
        ),
        (
            "Order #W2378156 item EHGLP3 L1002 HAT001 mode 4g_5g_preferred",
            [
                ("#W2378156", "identifier"),
                ("EHGLP3", "identifier"),
                ("L1002", "identifier"),
                ("HAT001", "identifier"),
                ("4g_5g_preferred", "identifier"),
            ],
        ),
        (
            "Pay $43.50 of 8276.23 or 1628 ($1,628.00), 10%",
            [
                ("$43.50", "number"),
                ("8276.23", "number"),
                ("1628", "number"),
                ("$1,628.00", "number"),
                ("10%", "number"),
            ],
        ),
        (
            "On 2024-05-15 at 10:00 (2024-05-15T15:00:00), 5-7 days",
            [("2024-05-15", "date"), ("10:00", "date"), ("2024-05-15T15:00:00", "date"), ("5-7", "number")],
        ),
    ],
)
def test_protects_each_kind(text: str, expected: list[tuple[str, str]]) -> None:
    protected = protect(text)
    assert _originals(protected) == expected
    assert restore(protected.text, protected) == text


def test_link_text_stays_translatable_and_placeholders_are_numbered_in_order() -> None:
    protected = protect("[Read the policy](https://x.test/a) before 2024-05-15")
    assert protected.text == "[Read the policy⟦0⟧ before ⟦1⟧"


def test_prose_words_ordinals_and_footnote_marks_are_left_for_the_translator() -> None:
    text = "Cancel the 2nd order, follow-up by e-mail Wi-Fi²"
    assert protect(text) == ProtectedText(text=text, placeholders=[])


def test_earliest_then_longest_match_wins_and_placeholders_never_nest() -> None:
    protected = protect("`a_b` sara_doe@x.com https://x.com/user_id ⟦0⟧ 2024-05-15T10:00 $1,000.50")
    assert _originals(protected) == [
        ("`a_b`", "code"),
        ("sara_doe@x.com", "email"),
        ("https://x.com/user_id", "url"),
        ("⟦0⟧", "marker"),
        ("2024-05-15T10:00", "date"),
        ("$1,000.50", "number"),
    ]
    assert protected.text == "⟦0⟧ ⟦1⟧ ⟦2⟧ ⟦3⟧ ⟦4⟧ ⟦5⟧"


def test_preserve_tokens_are_word_bounded_case_sensitive_and_longest_first() -> None:
    protected = protect(
        "pending, Pending Activation, expending, PENDING, Suite 641.",
        preserve_tokens=["pending", "Pending", "Pending Activation", "Suite 641"],
    )
    assert _originals(protected) == [
        ("pending", "preserve"),
        ("Pending Activation", "preserve"),
        ("Suite 641", "preserve"),
    ]


def test_canonical_terms_restore_to_their_target_and_win_ties() -> None:
    text = "Your gift card balance is on the gift card ZX9; mode 4g_only."
    protected = protect(
        text,
        canonical_terms={
            "gift card": "carte cadeau",
            "gift card balance": "solde de la carte",
            "4g_only": "4g_seulement",
        },
    )
    assert [(p.original, p.restore_as, p.kind) for p in protected.placeholders] == [
        ("gift card balance", "solde de la carte", "canonical"),
        ("gift card", "carte cadeau", "canonical"),
        ("ZX9", "ZX9", "identifier"),
        ("4g_only", "4g_seulement", "canonical"),
    ]
    translated = "Le ⟦0⟧ est sur la ⟦1⟧ ⟦2⟧ ; mode ⟦3⟧."
    assert restore(translated, protected) == "Le solde de la carte est sur la carte cadeau ZX9 ; mode 4g_seulement."


def test_empty_caller_terms_are_rejected() -> None:
    with pytest.raises(ValueError, match="preserve_tokens"):
        protect("x", preserve_tokens=[""])
    with pytest.raises(ValueError, match="canonical_terms"):
        protect("x", canonical_terms={"": "y"})


def test_restore_allows_reordering_and_moving_text_around_tags() -> None:
    protected = protect("Order #W1 costs $5 <b>now</b>")
    assert restore("⟦1⟧ kostet ⟦0⟧ ⟦2⟧jetzt⟦3⟧", protected) == "$5 kostet #W1 <b>jetzt</b>"


@pytest.mark.parametrize(
    ("translated", "problem"),
    [
        ("⟦0⟧ ⟦2⟧jetzt⟦3⟧", "placeholder ⟦1⟧ ('$5') is missing"),
        ("⟦0⟧ ⟦1⟧ ⟦1⟧ ⟦2⟧jetzt⟦3⟧", "placeholder ⟦1⟧ ('$5') appears 2 times"),
        ("⟦0⟧ ⟦1⟧ ⟦2⟧jetzt⟦3⟧ ⟦9⟧", "placeholder ⟦9⟧ was never issued"),
        ("⟦0⟧ ⟦1⟧ ⟦3⟧jetzt⟦2⟧", "tag '<b>' (⟦2⟧) now comes after '</b>' (⟦3⟧)"),
        ("⟦0⟧ ⟦1⟧ ⟦2⟧jetzt⟦3⟧ ⟦ 4⟧", "stray ⟦ or ⟧ characters: a placeholder was mangled"),
    ],
)
def test_restore_refuses_damaged_placeholders(translated: str, problem: str) -> None:
    protected = protect("Order #W1 costs $5 <b>now</b>")
    with pytest.raises(PlaceholderError) as caught:
        restore(translated, protected)
    assert isinstance(caught.value, ValueError)
    assert caught.value.problems == [problem]
    assert placeholder_problems(translated, protected) == [problem]


def test_restore_reports_every_problem_at_once() -> None:
    protected = protect("a #W1 b #W2 c")
    with pytest.raises(PlaceholderError) as caught:
        restore("a ⟦0⟧ ⟦0⟧ c ⟦7⟧", protected)
    assert caught.value.problems == [
        "placeholder ⟦0⟧ ('#W1') appears 2 times",
        "placeholder ⟦1⟧ ('#W2') is missing",
        "placeholder ⟦7⟧ was never issued",
    ]


def test_self_closing_and_unpaired_tags_may_move_freely() -> None:
    protected = protect("one<br/>two</x>three<y>")
    assert restore("⟦2⟧three ⟦1⟧two ⟦0⟧one", protected) == "<y>three </x>two <br/>one"


def test_every_tau2_string_round_trips() -> None:
    corpus: set[str] = set()
    for domain in ("retail", "airline", "telecom", "mock"):
        corpus.update(_strings(_tasks(domain)))
    corpus.update(path.read_text() for path in DOMAINS.glob("*/*.md"))
    assert len(corpus) > 4000
    protected_count = 0
    for text in corpus:
        protected = protect(text)
        assert restore(protected.text, protected) == text
        protected_count += bool(protected.placeholders)
    assert protected_count > 1000


def test_gold_action_arguments_quoted_in_instructions_are_protected() -> None:
    """With the arguments as preserve tokens (as the analysis supplies them), none can be translated."""
    checked = 0
    for domain in ("retail", "airline", "telecom", "mock"):
        for task in _tasks(domain):
            actions = (task.get("evaluation_criteria") or {}).get("actions") or []
            values = {v for action in actions for v in _strings(action["arguments"]) if v.strip()}
            for text in _strings(task["user_scenario"]["instructions"]):
                protected = protect(text, preserve_tokens=values)
                for value in values:
                    if re.search(r"(?<!\w)" + re.escape(value) + r"(?!\w)", text):
                        checked += 1
                        assert any(value in p.original for p in protected.placeholders), (task["id"], value)
    assert checked > 1000


def test_ids_in_retail_instructions_are_protected_without_any_hint() -> None:
    task = next(t for t in _tasks("retail") if t["id"] == "0")
    protected = protect(task["user_scenario"]["instructions"]["reason_for_call"])
    assert ("#W2378156", "identifier") in _originals(protected)
    assert "#W2378156" not in protected.text


def test_random_strings_round_trip() -> None:
    # A seeded fuzz over the characters the patterns care about (hypothesis is not installed).
    alphabet = list("ab_Z09 \n\t{}%()[]<>/`#@.:,-$⟦⟧'\"sd") + ["###STOP###", "https://", "{{", "](", "</x>", "<x>"]
    rng = random.Random(20240515)
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
        protected = protect(text, preserve_tokens=["ab", "Z0"], canonical_terms={})
        assert restore(protected.text, protected) == text, text
