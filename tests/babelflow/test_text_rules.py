"""The core's shared text rules: one definition each, exercised directly."""

from __future__ import annotations

import pytest

from babelflow.language_pack import load_pack
from babelflow.markdown_blocks import split_markdown
from babelflow.target_language import accentable, in_pack_language, language_problem
from babelflow.text import (
    CONTROL_TOKEN,
    FORMAT_SLOT,
    MODEL_ANSWER,
    PLACEHOLDER,
    PSEUDO_ACCENTS,
    TRANSLATOR_COMMENTARY,
    ascii_fold,
    in_script,
    placeholder,
    script_share,
    unmirror,
    without_tokens,
)


def test_placeholders_round_trip_through_the_pattern():
    text = f"Cancel {placeholder(0)} and {placeholder(12)}"
    assert [int(m.group(1)) for m in PLACEHOLDER.finditer(text)] == [0, 12]
    assert not PLACEHOLDER.search("⟦x⟧ and [0]")


def test_control_tokens_and_format_slots():
    assert CONTROL_TOKEN.findall("done ###STOP### then ###OUT-OF-SCOPE###") == ["###STOP###", "###OUT-OF-SCOPE###"]
    assert not CONTROL_TOKEN.search("## heading ##")
    assert FORMAT_SLOT.findall("Hi {user_id}, order {order.id} costs {{literal}}") == [
        "{user_id}",
        "{order.id}",
        "{literal}",
    ]


def test_pseudo_alphabet_changes_every_letter_and_mirrored_runs_undo():
    assert len(PSEUDO_ACCENTS) == 52 and all(k != v and not v.isascii() for k, v in PSEUDO_ACCENTS.items())
    assert unmirror("\u202esnaol\u202c 42") == "loans 42"


def test_without_tokens_removes_the_longest_first():
    assert without_tokens("pay #W123 and #W1", ["#W1", "#W123"]) == "pay   and  "


def test_scripts_by_iso_code():
    assert in_script("ก", "Thai") and in_script("か", "Jpan") and in_script("漢", "Hans") and in_script("e", "Latn")
    assert not in_script("a", "Thai")
    assert script_share("ab กข", "Thai") == 0.5
    assert script_share("42 !", "Thai") is None


@pytest.mark.parametrize(
    ("text", "answer", "commentary"),
    [
        ("Sûre, here is the translation", True, False),
        ("Cancel the order (translator's note: formal)", False, True),
        ("Cancel the order", False, False),
    ],
)
def test_answer_and_commentary_signs(text, answer, commentary):
    folded = ascii_fold(text)
    assert bool(MODEL_ANSWER.search(folded)) is answer
    assert bool(TRANSLATOR_COMMENTARY.search(folded)) is commentary


def test_target_language_rule():
    assert language_problem("Çåñçéļ ţĥé öŕðéŕ", "Cancel the order", "en-XA", []) is None
    assert language_problem("Cancel the order", "Cancel the order x", "en-XA", []) == "no en-XA pseudo-locale text"
    assert language_problem("ยกเลิกคำสั่งซื้อ #W1", "Cancel order #W1", "th", ["#W1"]) is None
    assert "of letters are Thai" in language_problem("Cancel the order", "Cancel the order", "th", [])
    assert language_problem("Hủy đơn hàng", "Cancel the order", "vi", []) is None  # Latin script: no signal
    assert language_problem("#W1", "#W1", "th", ["#W1"]) is None  # nothing but kept tokens
    pack = load_pack("ar-XB")
    assert in_pack_language("\u202eredro\u202c", pack) and not in_pack_language("order", pack)


def test_the_accenting_pseudo_locale_is_judged_only_where_it_has_letters_to_mark():
    from translators.pseudo_locale import pseudo_translate_text

    chinese = pseudo_translate_text("下单的米线商家必须支持可堂食服务", "en-XA", "accented")
    english = pseudo_translate_text("The store must offer dine-in service", "en-XA", "accented")
    assert not accentable(chinese) and accentable(english)  # Han letters kept, ASCII filler added
    assert accentable("The store must offer dine-in service")  # source English: judged (and found unaccented)
    assert not in_pack_language("The store must offer dine-in service", load_pack("en-XA"))


def test_markdown_blocks_join_back_byte_identically():
    text = "# Policy\n\nIntro line\nsecond line\n\n```\ncode\n\nstill code\n```\n- a\n- b\n\n\n| x |\n"
    document = split_markdown(text)
    assert document.join() == text
    assert [b.kind for b in document.blocks] == ["heading", "paragraph", "code", "list", "table"]
    assert document.join({1: "Intro"}) == text.replace("Intro line\nsecond line", "Intro")
