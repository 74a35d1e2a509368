from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest
import tau2

from translators.interface import ProtectedSegment, TranslationRequest, check_response
from translators.placeholders import protect, restore
from translators.pseudo_locale import SUPPORTED_PSEUDO_LOCALES, PseudoLocaleTranslator, pseudo_translate_text

DOMAINS = Path(tau2.__file__).parent / "data" / "tau2" / "domains"
TOKEN = re.compile(r"⟦[0-9]+⟧")
RLO, PDF = "\u202e", "\u202c"


def _strings(value: object) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _retail_strings() -> list[str]:
    tasks = orjson.loads((DOMAINS / "retail" / "tasks.json").read_bytes())
    return sorted(set(_strings(tasks)))


def _has_ascii_letter_outside_placeholders(text: str) -> bool:
    return re.search(r"[A-Za-z]", TOKEN.sub("", text)) is not None


def test_en_xa_accents_pads_and_brackets() -> None:
    assert pseudo_translate_text("Hello", "en-XA") == "[Ĥéļļö one]"
    out = pseudo_translate_text("Order ⟦0⟧ costs ⟦1⟧, thanks!", "en-XA")
    assert out == "[Öŕðéŕ ⟦0⟧ çöšţš ⟦1⟧, ţĥåñķš! one two three]"


def test_en_xa_maps_every_ascii_letter_to_one_non_ascii_code_point() -> None:
    letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
    body = pseudo_translate_text(letters, "en-XA")[1 : 1 + len(letters)]
    assert len(body) == len(letters)
    assert all(not ch.isascii() and ch.isalpha() for ch in body)


def test_en_xa_expands_long_text_by_about_a_third_without_commas() -> None:
    text = "The agent needs to explain the cancellation detail and ask for explicit user confirmation"
    out = pseudo_translate_text(text, "en-XA")
    assert 1.3 * len(text) <= len(out) <= 1.5 * len(text)
    assert "," not in out


def test_en_xa_keeps_whitespace_lines_and_markdown_structure() -> None:
    text = "  \n# Title\n\n1. Step one\n- item\n| a | b |\n|---|---|\n⟦3⟧. Next step\n  trailing  \n"
    out = pseudo_translate_text(text, "en-XA")
    assert out == (
        "  \n# [Ţîţļé one]\n\n1. [Šţéþ öñé one]\n- [îţéɱ one]\n| [å one] | [ƀ one] |\n|---|---|\n"
        "⟦3⟧. [Ñéẋţ šţéþ one]\n  [ţŕåîļîñĝ one]  \n"
    )


def test_text_without_letters_is_left_alone() -> None:
    for text in ("", "  ", "⟦0⟧ ⟦1⟧", "1628 $43.50 2024-05-15", "\n\n---\n"):
        for locale in SUPPORTED_PSEUDO_LOCALES:
            assert pseudo_translate_text(text, locale) == text


def test_ar_xb_reverses_each_word_inside_an_rtl_override() -> None:
    out = pseudo_translate_text(" Hello ⟦0⟧ 42 you'd\nok ", "ar-XB")
    assert out == f" {RLO}olleH{PDF} ⟦0⟧ 42 {RLO}uoy{PDF}'{RLO}d{PDF}\n{RLO}ko{PDF} "


def test_unknown_locale_names_the_supported_ones() -> None:
    with pytest.raises(ValueError, match="en-XA, ar-XB"):
        pseudo_translate_text("x", "fr-XX")
    with pytest.raises(ValueError, match="en-XA, ar-XB"):
        PseudoLocaleTranslator("de")


def test_output_is_identical_in_another_process() -> None:
    text = "You received your order ⟦0⟧ and wish to exchange it.\n  Second line"
    code = (
        "import sys; from translators.pseudo_locale import pseudo_translate_text as p; "
        f"sys.stdout.buffer.write((p({text!r}, 'en-XA') + '|' + p({text!r}, 'ar-XB')).encode())"
    )
    other = subprocess.run([sys.executable, "-c", code], capture_output=True, check=True, cwd=Path(__file__).parents[2])
    here = pseudo_translate_text(text, "en-XA") + "|" + pseudo_translate_text(text, "ar-XB")
    assert other.stdout.decode() == here


@pytest.mark.parametrize("locale", SUPPORTED_PSEUDO_LOCALES)
def test_every_retail_task_string_changes_and_keeps_its_placeholders(locale: str) -> None:
    strings = _retail_strings()
    assert len(strings) > 1000
    changed = 0
    for text in strings:
        protected = protect(text)
        translated = pseudo_translate_text(protected.text, locale)
        assert sorted(TOKEN.findall(translated)) == sorted(TOKEN.findall(protected.text))
        restored = restore(translated, protected)  # raises if any placeholder was damaged
        for placeholder in protected.placeholders:
            assert placeholder.original in restored
        if _has_ascii_letter_outside_placeholders(protected.text):
            assert translated != protected.text and restored != text
            changed += 1
        else:
            assert translated == protected.text
        assert translated.count(",") == protected.text.count(",")
        assert len(translated.split("\n")) == len(protected.text.split("\n"))
    assert changed > 300


def test_translator_returns_every_segment_with_honest_usage() -> None:
    texts = {"a": "You are Yusuf Rossi in zip code ⟦0⟧.", "b": "⟦0⟧", "c": "Thanks\nbye"}
    request = TranslationRequest(
        source_language="en",
        target_language="en-XA",
        segments=[ProtectedSegment(segment_id=k, text=v, context="retail task", kind="free") for k, v in texts.items()],
    )
    response = PseudoLocaleTranslator("en-XA").translate(request)
    assert check_response(request, response) == []
    assert response.translator_id == "pseudo:en-XA/v1"
    assert {s.segment_id: s.text for s in response.segments} == {
        k: pseudo_translate_text(v, "en-XA") for k, v in texts.items()
    }
    assert response.usage.input_characters == sum(len(v) for v in texts.values())
    assert response.usage.output_characters == sum(len(s.text) for s in response.segments)
    assert (response.usage.input_tokens, response.usage.output_tokens, response.usage.requests) == (None, None, 1)


def test_translator_refuses_another_target_language() -> None:
    request = TranslationRequest(source_language="en", target_language="ar-XB", segments=[])
    with pytest.raises(ValueError, match="ar-XB"):
        PseudoLocaleTranslator("en-XA").translate(request)
