"""Pseudo-locale leaks, doubled statuses and kept name lists, on texts (no benchmark: milliseconds)."""

from __future__ import annotations

from babelflow.language_data import language_data
from babelflow.text import ACCENT_TABLE, PDF, RLO
from validators.findings import apply_fixes
from validators.probes.language_checks import _english_clauses
from validators.probes.pseudo_checks import doubled_statuses, forced_literals, plain_source_words
from validators.probes.status_words import status_doubled, status_in_prose

SOURCE = "The agent should confirm that the order was delivered and refund the pending amount to user_12."


def _accented(text: str) -> str:
    return f"[{text.translate(ACCENT_TABLE)} one two three four]"


def test_a_clean_en_xa_text_has_no_leak():
    assert plain_source_words(SOURCE, _accented(SOURCE), [], "accented", frozenset()) == []


def test_one_word_left_in_english_is_a_leak():
    target = _accented(SOURCE).replace("ŕéƒûñð", "refund")
    assert plain_source_words(SOURCE, target, [], "accented", frozenset()) == ["refund"]


def test_a_sentence_initial_word_left_is_a_leak_a_name_is_not():
    source = "Refund the order. Ask Refund Bank for the rest."
    target = "[Refund ţĥé öŕðéŕ. Åšķ Refund Bank ƒöŕ ţĥé ŕéšţ. one two]"
    assert plain_source_words(source, target, [], "accented", frozenset()) == []  # 'Refund' is also a name here
    source = "Refund the order. Ask the bank for the rest."
    target = "[Refund ţĥé öŕðéŕ. Åšķ ţĥé ƀåñķ ƒöŕ ţĥé ŕéšţ. one two]"
    assert plain_source_words(source, target, [], "accented", frozenset()) == ["Refund"]


def test_an_enum_literal_forced_where_the_source_says_its_words():
    statuses = frozenset({"gift_card", "no longer needed", "pending", "delivered"})
    source = "You want to pay with a gift card because the item is no longer needed."
    target = "[Ŷöû ŵåñţ ţö þåý ŵîţĥ å gift_card ƀéçåûšé ţĥé îţéɱ îš no longer needed. one two]"
    assert forced_literals(source, target, [], statuses) == ["gift_card", "no longer needed"]
    assert forced_literals(source, target, ["no longer needed"], statuses) == ["gift_card"]  # quoted: kept
    clean = "[Ŷöû ŵåñţ ţö þåý ŵîţĥ å ĝîƒţ çåŕð ƀéçåûšé ţĥé îţéɱ îš ñö ļöñĝéŕ ñééðéð. one two]"
    assert forced_literals(source, clean, [], statuses) == []
    # telecom: a format slot's name is code ('Charge for line {line.line_id}')
    assert forced_literals("Charge for line {line.line_id}", "[Çĥåŕĝé ƒöŕ ļîñé {line.line_id} one]", [], {"line"}) == []


def test_kept_things_are_no_leak():
    source = "Ask for the 'pending' status of order #W123 at https://shop.example/orders, not Paypal."
    target = "[Åšķ ƒöŕ ţĥé 'pending' šţåţûš öƒ öŕðéŕ #W123 åţ https://shop.example/orders, ñöţ paypal. one two]"
    # the inline token, the id, the URL, the padding words and a value the variant keeps on purpose
    assert plain_source_words(source, target, ["pending"], "accented", frozenset({"paypal"})) == []
    assert plain_source_words(source, target, [], "accented", frozenset({"paypal"})) == ["pending"]


def test_an_unreversed_word_in_ar_xb_is_a_leak():
    words = SOURCE.split(" ")
    mirrored = " ".join(f"{RLO}{w[::-1]}{PDF}" if w != "refund" else w for w in words)
    assert plain_source_words(SOURCE, mirrored, [], "mirrored", frozenset()) == ["refund"]


def test_a_status_written_twice_side_by_side():
    source = "Only orders with status 'delivered' can be returned."
    target = "[Öñļý öŕðéŕš ŵîţĥ šţåţûš ðéļîṽéŕéð 'delivered' çåñ ƀé ŕéţûŕñéð one two]"
    assert doubled_statuses(source, target, frozenset({"delivered", "pending"}), "accented") == ["delivered"]
    clean = "[Öñļý öŕðéŕš ŵîţĥ šţåţûš 'delivered' çåñ ƀé ŕéţûŕñéð one two]"
    assert doubled_statuses(source, clean, frozenset({"delivered"}), "accented") == []


class _Element:
    artifact, role, id = "policy.md", "policy:paragraph", "e1"
    source_text = "If the order is 'delivered', the user can return it."


def test_a_learned_rendering_after_its_own_first_characters_is_doubled():
    """The Chinese corpus's '已 已送达': the aspect marker, then the status term inserted whole."""
    data = language_data("zh")
    statuses = {"delivered": "已送达"}
    doubled = status_doubled(_Element(), "如果订单状态为 已 已送达，用户可以退货。", statuses, data)
    assert [f.kind for f in doubled] == ["status_rendering_doubled"]
    assert [(fix.find, fix.replace) for fix in doubled[0].fixes] == [("已 已送达", "已送达")]  # the proposed repair
    assert status_doubled(_Element(), "如果订单状态为已送达，用户可以退货。", statuses, data) == []


class _OrdinaryUse:
    artifact, role, id, inline_tokens = "policy.md", "policy:paragraph", "e2", ()
    source_text = "An order can only be cancelled if its status is 'pending'."


def test_a_status_rendering_is_forced_into_a_verb_slot_only_where_it_reads_as_a_label():
    """A one-word rendering is often the language's own participle, natural in "can only be cancelled"
    (Indonesian 'dibatalkan', Spanish 'cancelado', German 'storniert'): no finding. A phrase (the verb with
    its aspect particle) or a term set between spaces in an unspaced script is a label put in a verb's place."""

    def kinds(language: str, rendering: str, target: str) -> list[str]:
        found = status_in_prose(_OrdinaryUse(), target, {"cancelled": rendering}, language_data(language))
        return [f.kind for f in found]

    assert kinds("es", "cancelado", "Un pedido solo puede ser cancelado si su estado es 'pendiente'.") == []
    assert (
        kinds("de", "storniert", "Eine Bestellung kann nur storniert werden, wenn ihr Status 'ausstehend' ist.") == []
    )
    assert kinds("id", "dibatalkan", "Pesanan hanya dapat dibatalkan jika statusnya 'tertunda'.") == []
    assert kinds("vi", "đã hủy", "Một đơn hàng chỉ có thể được đã hủy nếu trạng thái là 'chờ'.") == [
        "status_rendering_in_prose"
    ]
    assert kinds("th", "ยกเลิกแล้ว", "คำสั่งซื้อจะถูก ยกเลิกแล้ว ได้ก็ต่อเมื่อสถานะเป็น 'รอ'") == ["status_rendering_in_prose"]
    assert kinds("th", "ยกเลิกแล้ว", "คำสั่งซื้อที่ยกเลิกแล้วจะไม่ถูกจัดส่ง") == []  # written in, no inserted spaces


def test_a_status_written_twice_proposes_it_written_once_in_its_quotes():
    data = language_data("id")
    statuses = {"delivered": "terkirim"}
    (bare,) = status_doubled(
        _Element(), "Jika pesanan telah terkirim terkirim, user dapat mengembalikannya.", statuses, data
    )
    assert [(f.find, f.replace) for f in bare.fixes] == [("terkirim terkirim", "terkirim")]
    text = "Jika status pesanan 'terkirim' 'terkirim', user dapat."
    (quoted,) = status_doubled(_Element(), text, statuses, data)
    assert apply_fixes(text, quoted.fixes) == ("Jika status pesanan 'terkirim', user dapat.", [])


def test_a_list_of_kept_names_is_no_english_clause():
    """AgentDojo workspace es: the dish names Apertium keeps read as English to lingua; a clause still does."""
    words = {"Mini", "quiches", "Bruschetta", "Queso", "platter", "please", "return", "the", "broken", "item", "today"}
    assert _english_clauses(" Mini quiches, Bruschetta, Queso platter", words, "es") == []
    assert _english_clauses(" please return the broken item today", words, "es") != []


def test_code_blocks_numbered_words_and_literals_the_source_writes_are_no_leak():
    """τ³ banking's documents (the clean en-XA variant had 14 such findings): a fenced JSON example, a
    word joined to a number the field protects, an id literal the source itself writes."""
    fenced = 'Returns:\n```json\n{"outcome": "<outcome>", "notes": "<notes>"}\n```\nDone.'
    target = '[Ŕéţûŕñš:]\n```json\n{"outcome": "<outcome>", "notes": "<notes>"}\n```\n[Ðöñé.]'
    assert plain_source_words(fenced, target, [], "accented", frozenset()) == []
    source = "Your plan defaults to a 12-month term."
    assert plain_source_words(source, "[Ýöûŕ þļåñ ðéƒåûļţš ţö å 12-month ţéŕɱ.]", ["12"], "accented", frozenset()) == []
    said = "Call it with the user's user_id (the user id of the account)."
    rendered = "[Çåļļ îţ ŵîţĥ ţĥé ûšéŕ'š user_id (ţĥé ûšéŕ îð öƒ ţĥé åççöûñţ).]"
    assert forced_literals(said, rendered, [], frozenset({"user_id"})) == []
    forced = "[Çåļļ îţ ŵîţĥ ţĥé ûšéŕ'š user_id (ţĥé user_id öƒ ţĥé åççöûñţ).]"
    assert forced_literals(said, forced, [], frozenset({"user_id"})) == ["user_id"]


def test_a_mirrored_palindrome_is_no_forced_literal():
    """ar-XB wraps 'level' as RLO 'level' PDF: the same letters as the literal, yet translated (τ³ banking)."""
    source = "Your account level decides the rate."
    target = " ".join(f"{RLO}{w[::-1]}{PDF}" for w in ("Your", "account", "level", "decides", "the", "rate")) + "."
    assert forced_literals(source, target, [], frozenset({"level"}), "mirrored") == []
    forced = target.replace(f"{RLO}level{PDF}", "level")
    assert forced_literals(source, forced, [], frozenset({"level"}), "mirrored") == ["level"]
