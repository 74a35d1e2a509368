"""The terms stage's signals (issue 41) on real drafts: Apertium's own renderings of τ² retail catalogue
terms into Spanish, the ones the maintainers corrected beside ones they kept. Each signal says why it
fired; right renderings stay quiet. The unit signal needs only CLDR and always runs."""

from __future__ import annotations

import shutil

import pytest

from translators.terms.confidence import chance_wrong, fit_weights, shipped_weights
from translators.terms.signals import SignalKind, TermDraft, term_signals

needs_apertium = pytest.mark.skipif(
    shutil.which("apertium") is None or shutil.which("lt-proc") is None,
    reason="apertium is not installed (scripts/install.sh installs apertium-eng-spa as root; CI does)",
)


def _fired(drafts: list[TermDraft], language: str = "es") -> dict[str, dict[SignalKind, str]]:
    return {
        d.source: {s.kind: s.evidence + (f" => {s.proposal}" if s.proposal else "") for s in signals}
        for d, signals in zip(drafts, term_signals(drafts, language), strict=True)
    }


def _d(source: str, rendering: str, group: str = "option_value") -> TermDraft:
    return TermDraft(group=group, source=source, rendering=rendering)


def test_a_unit_word_that_is_not_cldrs_is_flagged_with_cldrs_form():
    fired = _fired([_d("28 inch", "28 pulgada"), _d("10 inches", "10 pulgadas"), _d("2 cups", "2 copas")])
    assert "28 pulgadas" in fired["28 inch"][SignalKind.UNIT_CHANGED]  # the plural CLDR writes, proposed
    assert "tazas" in fired["2 cups"][SignalKind.UNIT_CHANGED]
    assert SignalKind.UNIT_CHANGED not in fired["10 inches"]


def test_units_in_a_language_without_apertium_still_get_cldrs_word():
    fired = _fired([_d("110 degrees", "110 タイトル"), _d("130 degrees", "130 度")], language="ja")
    assert SignalKind.UNIT_CHANGED in fired["110 degrees"] and SignalKind.UNIT_CHANGED not in fired["130 degrees"]


@needs_apertium
def test_wrong_renderings_fire_with_their_evidence():
    drafts = [
        _d("Running Shoes", "Corriendo Zapatos", "product_name"),
        _d("Luggage Set", "El equipaje Puso", "product_name"),
        _d("HEPA filter", "HEPA Filtro"),
        _d("bagged", "bagged"),
        _d("Tea Kettle", "Tea Pava", "product_name"),
        _d("on-ear", "encima-oreja"),
        _d("over-ear", "encima-oreja"),
        _d("glass", "vaso"),
        _d("smart sensors", "sensores listos"),
    ]
    fired = _fired(drafts)
    assert "run<vblex><ger>" in fired["Running Shoes"][SignalKind.SOURCE_READ_AS_VERB]
    assert "Corriendo" in fired["Running Shoes"][SignalKind.VERB_IN_RENDERING]
    assert "Puso" in fired["Luggage Set"][SignalKind.VERB_IN_RENDERING]
    assert "'HEPA'" in fired["HEPA filter"][SignalKind.ENGLISH_WORD_ORDER]
    assert "bagged" in fired["bagged"][SignalKind.UNTRANSLATED]
    assert "Tea" in fired["Tea Kettle"][SignalKind.HALF_TRANSLATED]  # 'tea' is Spanish too, but the dictionary says té
    assert "over-ear" in fired["on-ear"][SignalKind.SHARED_RENDERING]
    assert "vaso / cristal" in fired["glass"][SignalKind.SEVERAL_SENSES]
    assert "smart" in fired["smart sensors"][SignalKind.ROUND_TRIP_DIFFERS]


@needs_apertium
def test_right_renderings_stay_quiet():
    drafts = [
        _d("black", "negro"),
        _d("Desk Lamp", "Lámpara de escritorio", "product_name"),
        _d("stainless steel", "acero inoxidable"),
        _d("Running Shoes", "Zapatillas de correr", "product_name"),  # an infinitive after 'de' names a use
        _d("10 hours", "10 horas"),
        _d("USB-C", "USB-C"),
    ]
    fired = _fired(drafts)
    assert {source: kinds for source, kinds in fired.items() if kinds} == {
        "Running Shoes": fired["Running Shoes"]
    } or not any(fired.values())
    assert SignalKind.VERB_IN_RENDERING not in fired["Running Shoes"]


def test_the_shipped_weights_say_where_they_were_fitted_and_doubt_what_fires():
    weights = shipped_weights()
    assert weights.calibrated_on and weights.labelled_terms > 100 and weights.labeller
    assert chance_wrong([]) < 0.5  # a term nothing doubts goes on
    assert set(weights.weights) == set(SignalKind)


def test_fit_weights_learns_which_signal_predicts_a_wrong_rendering():
    rows = [({SignalKind.UNTRANSLATED}, True)] * 20 + [({SignalKind.SEVERAL_SENSES}, False)] * 20
    rows += [(set(), False)] * 40
    rows += [({SignalKind.SEVERAL_SENSES}, True)] * 2 + [({SignalKind.UNTRANSLATED}, False)] * 2
    bias, weights = fit_weights(rows)
    assert weights[SignalKind.UNTRANSLATED] > 2 > weights[SignalKind.SEVERAL_SENSES]
    assert bias < -2


def test_a_term_no_signal_fires_on_is_never_doubtful():
    from translators.terms.term_base import TermEntry

    quiet = TermEntry(
        group="book_title", source="The Salt Road", rendering="[Ţĥé Šåļţ Ŕöåð]", draft="[Ţĥé Šåļţ Ŕöåð]",
        origin="translator", state="proposed", chance_wrong=chance_wrong([]),
    )  # fmt: skip
    assert not quiet.doubtful
