"""The per-field target check that `correct`, `import`, review-form replacements and translator output
share (validators/probes/pair_checks.py `wrong_language`) refuses an English sentence given as the
target for es, ca or zh-Hans, on tau2-mock's own fields, with what was found and the fix; a real
translation of the same field passes. Kept values inside the field are not judged."""

from __future__ import annotations

import pytest

from babelflow.ir import TranslationType
from babelflow.language_pack import load_pack
from validators.probes.pair_checks import FieldPair, check_pair

ENGLISH = "Please check every detail with the user before you change anything in the account."
TRANSLATIONS = {
    "es": "Compruebe cada detalle con el usuario antes de cambiar nada en la cuenta.",
    "ca": "Comproveu cada detall amb l'usuari abans de canviar res al compte.",
    "zh-Hans": "在更改账户中的任何内容之前，请与用户核实每一个细节。",
}


@pytest.fixture(scope="module")
def field(analyzed):
    return next(
        e
        for e in analyzed("tau2-mock").elements
        if e.translation_type is TranslationType.TRANSLATE_FREE and len(e.source_text) > 60 and not e.inline_tokens
    )


@pytest.mark.parametrize("language", ["es", "ca", "zh-Hans"])
def test_an_english_sentence_is_refused_with_the_fix_and_a_translation_passes(field, language):
    pack = load_pack(language)
    found = check_pair("review", FieldPair.of(field, ENGLISH), language, pack)
    [finding] = [f for f in found if f.kind == "wrong_language"]
    assert finding.severity.value == "major"
    if language == "zh-Hans":  # the script says it before the identifier is asked
        assert "not written in" in finding.message, finding.message
    else:
        assert "English left in place" in finding.message and "Translate it into" in finding.message
    assert not [
        f
        for f in check_pair("review", FieldPair.of(field, TRANSLATIONS[language]), language, pack)
        if f.kind == "wrong_language"
    ]


def test_kept_values_inside_a_target_are_not_judged_as_english(field):
    kept = ("Premium Wireless Headphones Pro", "Order #W2378156")
    target = "Su pedido Order #W2378156 de Premium Wireless Headphones Pro llega mañana."
    pair = FieldPair.of(field, target).model_copy(update={"tokens": kept})
    assert not [f for f in check_pair("review", pair, "es", load_pack("es")) if f.kind == "wrong_language"]
    english = FieldPair.of(field, "Your order Order #W2378156 of Premium Wireless Headphones Pro arrives tomorrow.")
    assert "wrong_language" in [f.kind for f in check_pair("review", english, "es", load_pack("es"))]
