"""English an MT engine passed through for want of an entry (validators/probes/language_checks.py).

The rule runs only on a variant the manifest says Apertium made, and only on words its own analyser lacks;
the end-to-end case is tests/flows/test_apertium_variants.py (τ² mock es). These are its parts."""

from __future__ import annotations

from babelflow.apertium import passes_unknown_words
from validators.probes.language_checks import _CODE_LIKE, _reads_as_english


def test_only_a_variant_apertium_made_is_read_for_its_passed_through_words():
    assert passes_unknown_words("apertium:eng-spa@a5e2fa8104/v5")
    assert not passes_unknown_words("pseudo:en-XA/v1")
    assert not passes_unknown_words("openai:gpt-4o")
    assert not passes_unknown_words(None)  # made elsewhere: no manifest, nothing known of how


def test_code_the_translator_keeps_is_masked():
    text = "Ejecuta `grep -r x .` en rhobank.com/help o INDEX.md con get_status(user_id: str) y el info"
    left = _CODE_LIKE.sub(" ", text)
    assert all(word not in left for word in ("grep", "rhobank", "INDEX", "str", "user_id"))
    assert "info" in left


def test_a_field_reads_as_english_by_a_phrase_or_a_share_of_its_words():
    four = [("upcoming", "word"), ("nonstop", "word"), ("upgrade", "word"), ("waived", "word")]
    assert _reads_as_english(four, "upcoming nonstop upgrade waived vuelo")
    assert not _reads_as_english(four, "palabra " * 40 + "upcoming nonstop upgrade waived")
    assert _reads_as_english([("The KTV should be within", "phrase")], "El KTV tendría que ser …")
