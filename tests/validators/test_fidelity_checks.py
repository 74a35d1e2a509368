"""Each fidelity check of a source/target pair, on its own (the probes run them on every field)."""

from __future__ import annotations

import pytest

from validators.findings import Severity
from validators.probes.pair_checks import FieldPair, check_pair


def kinds(
    source: str,
    target: str,
    language: str = "en-XA",
    tokens: tuple[str, ...] = (),
    location: str = "tasks.json[*].instructions",
) -> set[str]:
    return {
        f.kind
        for f in check_pair(
            "probes",
            FieldPair(
                artifact="data/tasks.json",
                location=location,
                element_id=None,
                source=source,
                target=target,
                tokens=tuple(list(tokens)),
            ),
            language,
        )
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
        FieldPair(
            artifact="data/tasks.json",
            location="tasks.json[*].description.purpose",
            element_id=None,
            source="Test the refund flow",
            target="Test the refund flow",
            tokens=tuple([]),
        ),
        "en-XA",
    )
    [prose] = check_pair(
        "probes",
        FieldPair(
            artifact="data/tasks.json",
            location="tasks.json[*].user_scenario.instructions",
            element_id=None,
            source="Test the refund flow",
            target="Test the refund flow",
            tokens=tuple([]),
        ),
        "en-XA",
    )
    assert (metadata.severity.value, prose.severity.value) == ("minor", "major")


def test_paths_are_values_not_prose():
    assert kinds("data/tau2/domains/retail/db.json", "data/tau2/domains/retail/db.json") == set()


def test_a_number_kept_character_for_character_is_not_a_changed_number():
    """The pipeline hands numbers to translators as placeholders: '$30,000' stays '$30,000' in a
    Spanish sentence and is the same number (read with Spanish conventions it was taken for 30,
    296 critical findings on τ³ banking es); a number that did change is still caught."""
    from validators.probes.number_pairs import numbers_changed

    assert numbers_changed("Spend $30,000 or £1,050 by May", "Gasta $30,000 o £1,050 antes de mayo", "es") is None
    assert numbers_changed("Spend $30,000", "Gasta 30.000 $", "es") is None  # localized: same value
    assert numbers_changed("Spend $30,000", "Gasta $30", "es") == ("30000", "30")
    assert numbers_changed("rate 2.775 and $30,000", "tasa 2775 y $30,000", "es") == ("2.775", "2775")
    # a number after an abbreviation's dot is a number of its own; inside a decimal it is not
    assert numbers_changed("K2-6, No.6 Haitai Road", "K2-6, Núm. 6 Haitai Carretera", "es") is None
    assert numbers_changed("costs 1.6 dollars", "cuesta 6 dólares", "es") == ("1.6", "6")


def test_a_term_told_apart_by_its_source_in_parentheses_has_no_extra_numbers():
    """term_renderings.distinct_renderings writes 'X (source)' where two terms would read alike."""
    source = "Fast Food (Average 30 yuan)"
    assert "number_changed" not in kinds(source, f"Comida Rápida (Mediano 30 yuan) ({source})", "es")
    assert "number_changed" in kinds(source, f"Comida Rápida (Mediano 3 yuan) ({source})", "es")


def test_a_title_of_an_abbreviation_and_a_kept_name_is_not_untranslated():
    """'FAQ: Blue Account' (the account class is kept: tools.py keys its fees by it) has no prose
    left to translate; 'FAQ: Troubleshooting' copied through still is untranslated (τ³ banking es)."""
    from validators.probes.pair_checks import FieldPair, check_pair

    kept = check_pair(
        "probes",
        FieldPair(
            artifact="documents/d.json",
            location="title",
            element_id=None,
            source="FAQ: Blue Account",
            target="FAQ: Blue Account",
            tokens=tuple(["Blue Account"]),
        ),
        "es",
    )
    assert [f.kind for f in kept] == []
    copied = check_pair(
        "probes",
        FieldPair(
            artifact="documents/d.json",
            location="title",
            element_id=None,
            source="FAQ: Troubleshooting",
            target="FAQ: Troubleshooting",
            tokens=tuple([]),
        ),
        "es",
    )
    assert [f.kind for f in copied] == ["untranslated"]


@pytest.mark.skipif(
    not __import__("babelflow.target_lexicon", fromlist=["x"]).target_lexicon("es").available,
    reason="no Spanish analyser (apertium-eng-spa; scripts/install.sh installs it as root, CI does)",
)
def test_a_copy_made_of_target_language_words_is_not_untranslated_and_english_still_is():
    """τ³ airline es: 'San Francisco' (a tool's airport list) and 'Total' copied through are Spanish;
    Apertium's Spanish analyser knows them. An English phrase copied through is still reported, and a
    pseudo-locale asks no lexicon (its words are English: they would prove nothing)."""
    from validators.probes.pair_checks import FieldPair, check_pair

    def found(source: str, target: str, language: str = "es") -> list[str]:
        return [
            f.kind
            for f in check_pair(
                "probes",
                FieldPair(
                    artifact="tools.py",
                    location="tool_output",
                    element_id=None,
                    source=source,
                    target=target,
                    tokens=tuple([]),
                ),
                language,
            )
        ]

    assert found("San Francisco", "San Francisco") == []
    assert found("Total", "Total") == []
    assert found("Order Details", "Order Details") == ["untranslated"]
    assert found("The total cost", "The total cost") == ["untranslated"]
    assert found("San Francisco", "San Francisco", "en-XA") == ["untranslated"]


def test_the_target_lexicon_knows_spanish_words_and_no_english_ones():
    from babelflow.target_lexicon import target_lexicon

    spanish = target_lexicon("es")
    if not spanish.available:
        pytest.skip("no Spanish analyser (apertium-eng-spa; scripts/install.sh installs it as root, CI does)")
    words = ["total", "blog", "Chicago", "San Francisco", "delivered", "pending", "available", "referrer"]
    assert spanish.known(words) == {"total", "blog", "Chicago", "San Francisco"}
    assert not target_lexicon("en-XA").available and not target_lexicon("en").available
    assert not target_lexicon("xx-unknown").available


@pytest.mark.parametrize(
    ("source", "target", "changed"),
    [
        # the authors' English of VitaBench delivery (zh source): hours, tenths, market weights, months
        ("你今天两点要到丰田销售店提车", "You need to go to the Toyota dealership at 2 PM today", False),
        ("十一点到十二点这样就行", "Around 11:00 AM to 12:00 PM is fine", False),
        ("21点左右送到", "to be delivered around 9 PM", False),
        ("3分糖", "30% Sugar", False),
        ("纯瘦现烤牛肉干 500g（7成干）", "Lean Beef Jerky 500g (70% Dry)", False),
        ("六点三刻开饭", "dinner at 6:45", False),
        ("一点半有个手术", "surgery at 1:30 PM", False),
        ("89元5斤金汤蒜蓉小龙虾", "89 Yuan for 5 Jin (2.5kg) Golden Soup Garlic Crayfish", False),
        ("预计送达时间应在2025年10月24日11:00后", "should be after 11:00 on October 24, 2025", False),
        ("但夜宵要到凌晨12点再送来", "but the late-night snack should be delivered at midnight", False),
        ("1人份", "Single Portion", False),
        (
            "招牌牛肉丸汤粉面（8个）送煎蛋1个",
            "Signature Beef Ball Soup with Rice Noodles (8 pieces) with Fried Egg",
            False,
        ),
        (
            "广东省广州市天河区体育东路140-148号负一101,102,110房",
            "Room B1-101, 102, 110, 140-148 Tiyu East Road",
            False,
        ),
        # and what the same rules still catch: 2 liang is 100 g, and a dropped store number
        ("2两河粉", "200g Rice Noodles", True),
        ("凌晨12点再送来", "delivered at noon", False),  # 12 is noon's hour too: the word is not judged
        ("柳青河农贸市场1号B座129", "No.129, Building B, Liuqinghe Market", True),  # a shop number, not a count
        ("3个鸡蛋", "eggs", True),  # only a count of one may go
        ("世贸广场负一楼yee3Yee3三号椰", "Yee3 Coconut, Basement 1, World Trade Plaza", True),
        ("21点左右送到", "to be delivered around 8 PM", True),
    ],
)
def test_numbers_of_a_chinese_source_are_read_as_chinese_writes_them(source, target, changed):
    pair = FieldPair(artifact="tasks.json", location="x", source=source, target=target)
    found = check_pair("probes", pair, "en", None, None, "zh")
    assert any(f.kind == "number_changed" for f in found) is changed


def _added(source: str, target: str, number: str = "66"):
    from validators.findings import Hit

    return Hit(
        kind="number_changed",
        artifact="tasks.json",
        location=source,
        message="numbers differ",
        source=source,
        target=target,
        detail={"source_numbers": "", "target_numbers": number},
    )


def test_a_number_that_comes_with_one_name_everywhere_is_the_names_and_one_note():
    from validators.probes.fidelity import names_with_numbers

    # the authors' English of VitaBench: 恒隆广场 is 'Center 66' in every address naming it
    named = [
        _added("人民中路139号恒隆广场5楼", "5th Floor, Center 66, No. 139 Renmin Middle Road"),
        _added("无锡恒隆广场商场533铺位", "Unit 533, Center 66 Shopping Mall"),
        _added("恒隆广场B1层", "B1, Center 66"),
    ]
    notes = names_with_numbers(named)
    assert {h.severity for h in notes} == {Severity.NOTE} and len({h.pattern for h in notes}) == 1
    assert "'恒隆广场'" in notes[0].message and "'Center 66'" in notes[0].message
    # twice is not yet a name's; nor a number each target writes with another word; nor a source with no name
    assert names_with_numbers(named[:2]) == named[:2]
    other = [*named[:2], _added("恒隆广场B1层", "B1, Tower 66")]
    assert names_with_numbers(other) == other
    apart = [*named[:2], _added("万象城3楼", "3rd floor, Center 66")]
    assert names_with_numbers(apart) == apart


def test_a_word_the_translator_capitalised_is_no_second_token():
    """'durian pizza' -> 'durián Pizza' beside the protected 'Pizza Hut': the source writes the word twice, once
    in lower case; a second 'Pizza Hut', or a third 'Pizza', is still a duplicate."""
    source = "Go to Pizza Hut and buy her favorite durian pizza"
    assert "token_duplicated" not in kinds(source, "Ve a Pizza Cabaña y compra su durián Pizza", "es", ("Pizza",))
    assert "token_duplicated" in kinds(source, "Ve a Pizza Pizza y compra su durián Pizza", "es", ("Pizza",))
