"""The Apertium translator with the real binary: placeholders as inline tags, batching, fallback,
recorded failures; the default translator per language; Apertium absent; CLDR default packs."""

from __future__ import annotations

import shutil

import pytest

from translators.interface import ProtectedSegment, TranslationRequest

pytestmark = pytest.mark.skipif(
    shutil.which("apertium") is None,
    reason="apertium is not installed (scripts/install.sh installs apertium-eng-spa as root; CI does)",
)


def _request(*texts: str) -> TranslationRequest:
    return TranslationRequest(
        source_language="en",
        target_language="es",
        segments=[
            ProtectedSegment(segment_id=f"u{i}", text=text, context="test", kind="free") for i, text in enumerate(texts)
        ],
    )


def _cli(*args):
    from typer.testing import CliRunner

    from flows.cli.app import app

    return CliRunner().invoke(app, list(args))


def test_placeholders_travel_as_tags_and_come_back_restorable():
    from translators.apertium import ApertiumTranslator
    from translators.placeholders import protect, restore

    translator = ApertiumTranslator("es")
    protected = protect(
        "Cancel the reservation EHGLP3 only if the user confirms (yes) by 2024-05-15.", preserve_tokens=["EHGLP3"]
    )
    markup = protect("Check the order status & the <b>refund</b> amount, then tell the user.")
    response = translator.translate(
        _request(
            protected.text,
            markup.text,
            "# Retail agent policy\n\n- You can help users cancel orders.\n- You must not lie.",
        )
    )
    assert response.failed == {} and translator.stats.calls == 1  # three segments, one process call
    by_id = {s.segment_id: s.text for s in response.segments}
    spanish = restore(by_id["u0"], protected)
    assert "EHGLP3" in spanish and "2024-05-15" in spanish and "reserva" in spanish
    assert "EHGLP3 sólo" in spanish  # no capitalised word after an inline tag (Transfuse is bypassed)
    assert "&" in restore(by_id["u1"], markup) and "<b>" in restore(by_id["u1"], markup)
    lines = by_id["u2"].split("\n")
    assert lines[0].startswith("# ") and lines[1] == "" and lines[2].startswith("- ") and lines[3].startswith("- ")
    assert translator.translator_id.startswith("apertium:eng-spa@")


def test_a_number_after_an_abbreviation_stays_a_word_of_its_own():
    """'No.61 Hong Kong Middle Road' came out 'Hong Kong61 de Núm.': the placeholder glued to 'No.' was
    glued to the word Apertium reordered it after (VitaBench instore addresses)."""
    from translators.apertium import ApertiumTranslator
    from translators.placeholders import protect, restore

    protected = protect("Room 1203, Yuanyang Building, No.61 Hong Kong Middle Road, Shinan District")
    response = ApertiumTranslator("es").translate(_request(protected.text))
    spanish = restore(response.segments[0].text, protected)
    # a word of its own (Apertium may still move it: 'Hong Kong 61 de Núm.'; the number checks read it)
    assert " 61 " in spanish and "Kong61" not in spanish, spanish


def test_a_segment_broken_in_the_batch_is_retried_alone_and_recorded_when_still_broken():
    from translators.apertium import ApertiumTranslator

    class Breaking(ApertiumTranslator):
        """Real Apertium output; the tag is dropped from 'batch' segments in a batch and from
        'always' segments every time."""

        def _batch(self, texts):
            out = super()._batch(texts)
            alone = len(texts) == 1
            broken = {k for k, text in enumerate(texts) if "always" in text or ("batch" in text and not alone)}
            return {k: (v.replace("⟦0⟧", "") if k in broken else v) for k, v in out.items()}

    translator = Breaking("es")
    response = translator.translate(
        _request("The batch breaks ⟦0⟧ here.", "It always breaks ⟦0⟧ here.", "Fine ⟦0⟧ text.")
    )
    assert {s.segment_id for s in response.segments} == {"u0", "u2"}  # u0 recovered alone
    assert (
        list(response.failed) == ["u1"] and "⟦0⟧" in response.failed["u1"][0] and "missing" in response.failed["u1"][0]
    )
    assert translator.stats.fallbacks == 2 and translator.stats.failed == 1


def test_engine_records_an_apertium_failure_as_a_unit_failure_never_patched(analyzed, tmp_path):
    from babelflow.canonical_map import CanonicalMap
    from translators.apertium import ApertiumTranslator
    from translators.engine import TranslationEngine
    from translators.memory import TranslationMemory

    class DropsFirstTag(ApertiumTranslator):
        def _batch(self, texts):
            return {k: v.replace("⟦0⟧", "", 1) for k, v in super()._batch(texts).items()}

    ir = analyzed("tau2-mock")
    outcome = TranslationEngine(DropsFirstTag("es"), "es", TranslationMemory(tmp_path / "tm.jsonl")).translate(
        ir, CanonicalMap(benchmark="tau2-mock", language="es")
    )
    assert outcome.failures and all(any("apertium eng-spa" in p for p in f.problems) for f in outcome.failures)
    failed = {e for f in outcome.failures for e in f.element_ids}
    assert not failed & set(outcome.targets)  # no target for a broken unit: the source text stays
    assert any("sólo" in t or "tarea" in t for t in outcome.targets.values())


def test_default_translator_per_language(tmp_path, monkeypatch):
    from babelflow.adapt_request import ApertiumSpec, AutoSpec, NoSpec, PseudoSpec
    from babelflow.errors import BabelflowError
    from babelflow.language_pack import load_pack
    from translators.spec import default_spec, resolve_spec

    assert default_spec("en-XA", load_pack("en-XA")) == PseudoSpec()
    assert default_spec("es", load_pack("es")) == ApertiumSpec()
    assert default_spec("fr", load_pack("fr")) is None  # no eng-fra pair in Debian's apertium
    assert resolve_spec(AutoSpec(otherwise="none"), "fr", load_pack("fr")) == NoSpec()  # export: empty targets
    with pytest.raises(BabelflowError) as error:
        resolve_spec(AutoSpec(), "fr", load_pack("fr"))
    message = error.value.render()
    assert "--translator PROVIDER:MODEL" in message and "babelflow import" in message and "apertium-eng-fra" in message


def test_without_apertium_a_real_language_exits_2_naming_the_install_and_pseudo_still_works(
    tmp_path, monkeypatch, seed_analysis_cache
):
    seed_analysis_cache(tmp_path, "tau2-mock")  # about the translator choice, not a cold analysis
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("BABELFLOW_PROJECT_ROOT", str(tmp_path))
    monkeypatch.setenv("BABELFLOW_APERTIUM_BIN", "off")  # the same as no `apertium` on PATH
    result = _cli("adapt", "tau2-mock", "--lang", "es")
    assert (
        result.exit_code == 2
        and "apt-get install -y apertium-eng-spa" in result.output
        and "Apertium is not installed" in result.output
    )
    assert not (tmp_path / "adapted" / "tau2-mock" / "es").exists()
    flow = _cli("flow", "tau2-mock", "--lang", "es", "--lang", "en-XA")  # refused before any work starts
    assert flow.exit_code == 2 and "apertium-eng-spa" in flow.output
    assert _cli("adapt", "tau2-mock", "--lang", "en-XA").exit_code == 0


def test_absent_binary_on_path_is_detected(monkeypatch, tmp_path):
    from translators.apertium import apertium_binary

    monkeypatch.delenv("BABELFLOW_APERTIUM_BIN", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert apertium_binary() is None


def test_a_language_without_a_pack_uses_cldr_defaults_and_exports_without_a_translator(
    tmp_path, monkeypatch, seed_analysis_cache
):
    from babelflow.language_pack import load_pack
    from translators.pack_checks import check_pack

    fr = load_pack("fr")
    assert fr.derived_from_cldr and fr.name == "French" and fr.script == "Latn" and check_pack(fr) == []
    assert load_pack("ar-EG").direction == "rtl"
    seed_analysis_cache(tmp_path, "tau2-mock")  # about packs and export, not a cold analysis
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("BABELFLOW_PROJECT_ROOT", str(tmp_path))
    out = tmp_path / "mock-fr.po"
    result = _cli("export", "tau2-mock", "--lang", "fr", "--format", "po", "--out", str(out))
    assert result.exit_code == 0, result.output
    text = out.read_text(encoding="utf-8")
    assert (
        'msgstr ""' in text
        and "Language: fr" in text
        and "translator none): 80 needs-translation" in " ".join(result.output.split())
    )
    drafts = tmp_path / "mock-es.po"
    result = _cli("export", "tau2-mock", "--lang", "es", "--format", "po", "--out", str(drafts))
    assert result.exit_code == 0 and "apertium" in result.output and "tarea" in drafts.read_text(encoding="utf-8")


def test_the_pack_glossary_reaches_apertium_as_placeholders_rendered_in_the_source_case():
    """Apertium eng-spa leaves 'referrer', 'holdings' and 'troubleshooting' in English (τ³ banking's
    documents); the pack's renderings replace them, placeholders of the segment itself still travel."""
    from translators.apertium import ApertiumTranslator
    from translators.interface import GlossaryEntry

    request = _request(
        "MAXIMIZE REFERRER BONUS. The referrer gets $⟦0⟧ once.",
        "Review your product holdings. Our referrers vary.",
        "FAQ: Troubleshooting",
    ).model_copy(
        update={
            "glossary": [
                GlossaryEntry(source="referrer", target="referente"),
                GlossaryEntry(source="holdings", target="tenencias"),
                GlossaryEntry(source="troubleshooting", target="solución de problemas"),
            ]
        }
    )
    translator = ApertiumTranslator("es")
    response = translator.translate(request)
    assert not response.failed
    first, second, third = (segment.text for segment in response.segments)
    assert "REFERENTE" in first and "referente" in first and "⟦0⟧" in first
    assert "referrer" not in first.lower() and "⟦1000000⟧" not in first
    assert "tenencias" in second
    assert "referente" not in second.lower()  # 'referrers' is another word: left to Apertium, never half-replaced
    assert third.endswith("Solución de problemas")

    plain = translator.translate(_request("The referrer gets a bonus."))
    assert "referrer" in plain.segments[0].text  # without the glossary Apertium keeps the English word


def test_glossary_terms_follow_the_case_and_take_agreeing_articles():
    """Issue 23: a catalogue rendering inserted into prose ('the water bottle' -> 'la botella de agua'):
    lowercase as the sentence wrote it, and the article Apertium guessed for the placeholder (el)
    made feminine by the Spanish analyser's gender of 'botella'."""
    from translators.apertium import ApertiumTranslator
    from translators.interface import GlossaryEntry

    translator = ApertiumTranslator("es")
    glossary = [
        GlossaryEntry(source="Water Bottle", target="Botella de agua"),
        GlossaryEntry(source="Mechanical Keyboard", target="Teclado mecánico"),
    ]
    text = "You want to exchange the water bottle for a mechanical keyboard."
    request = TranslationRequest(
        source_language="en",
        target_language="es",
        segments=[ProtectedSegment(segment_id="1", text=text, context="retail task", kind="free")],
        glossary=glossary,
    )
    (segment,) = translator.translate(request).segments
    assert "la botella de agua" in segment.text and "un teclado mecánico" in segment.text, segment.text


def test_a_clock_time_keeps_its_day_period_in_the_target_s_cldr_form():
    """Apertium reads 'AM' as 'I am': VitaBench instore's '9 AM' came out '9 SOY' (21 times in 100 tasks)."""
    from translators.apertium import ApertiumTranslator
    from translators.placeholders import protect, restore
    from validators.probes.clock_times import day_period_changes

    sources = ("You want to book for 9 AM tomorrow.", "Open from 10:00 a.m. to 6:30PM daily. I am here.")
    response = ApertiumTranslator("es").translate(_request(*sources))
    texts = [segment.text for segment in response.segments]
    assert "9 a. m." in texts[0] and "10:00 a. m." in texts[1] and "6:30 p. m." in texts[1]
    assert "SOY" not in texts[0] and "Soy" in texts[1]  # 'I am' itself is still Apertium's to translate
    assert all(day_period_changes(s, t, "es") == [] for s, t in zip(sources, texts, strict=True))
    # as the engine sends it: the hour is already a placeholder, which comes back for the engine to restore
    protected = protect("make an appointment for 10 AM tomorrow")
    spanish = restore(ApertiumTranslator("es").translate(_request(protected.text)).segments[0].text, protected)
    assert "10 a. m." in spanish and "SOY" not in spanish, spanish


def test_a_pack_term_added_after_a_run_renders_again_the_stored_terms_that_hold_it(analyzed, tmp_path):
    """A reviewer gives a word a glossary entry after a run (the fix `source_words_left` names). The map keeps
    the translator's stored renderings, but those that hold the word and miss its rendering are rendered
    again, with it; the others stay as they were."""
    from babelflow.canonical_map import CanonicalMap
    from translators.apertium import ApertiumTranslator
    from translators.engine import TranslationEngine
    from translators.interface import GlossaryEntry
    from translators.memory import TranslationMemory

    ir = analyzed("tau2-mock")
    cmap = CanonicalMap(benchmark="tau2-mock", language="es")
    memory = tmp_path / "tm.jsonl"
    TranslationEngine(ApertiumTranslator("es"), "es", TranslationMemory(memory)).translate(ir, cmap)
    before = {e.source: e.target for e in cmap.lookup().values()}
    assert "encargo" not in before["Test task"].lower()
    term = GlossaryEntry(source="task", target="encargo")
    outcome = TranslationEngine(ApertiumTranslator("es"), "es", TranslationMemory(memory), glossary=[term]).translate(
        ir, cmap
    )
    assert not outcome.failures
    after = {e.source: e.target for e in cmap.lookup().values()}
    assert "encargo" in after["Test task"].lower()
    assert after["Test User"] == before["Test User"]
