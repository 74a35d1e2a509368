"""Issue 23: each language renders the canonical entity classes by policy (keep / translate / localize),
with defaults by kind and script, overridable by the pack and the command line; renderings stay distinct."""

from __future__ import annotations

import pytest

from babelflow.canonical_map import CanonicalMap, map_problems
from babelflow.entity_policy import EntityRendering, default_rendering, entity_renderings, parse_entity_options
from babelflow.errors import BabelflowError
from babelflow.ir import EntityKind, TranslationType
from tests.translators.test_engine import Recording
from translators.engine import TranslationEngine
from translators.interface import TranslationRequest, TranslationResponse
from translators.localize import faker_locale
from translators.memory import TranslationMemory
from translators.pseudo_locale import PseudoLocaleTranslator

KEEP, TRANSLATE, LOCALIZE = EntityRendering.KEEP, EntityRendering.TRANSLATE, EntityRendering.LOCALIZE


@pytest.mark.parametrize(
    ("kind", "script", "pseudo", "expected"),
    [
        (EntityKind.CATALOGUE, "Latn", False, TRANSLATE),
        (EntityKind.PERSON, "Latn", False, KEEP),  # a Spanish user may be called Yusuf Rossi
        (EntityKind.PLACE, "Hans", False, LOCALIZE),  # a Latin name inside Chinese reads as untranslated
        (EntityKind.PERSON, "Arab", True, TRANSLATE),  # ar-XB: the pseudo transform is its transliteration
    ],
)
def test_defaults_by_kind_and_script(kind, script, pseudo, expected):
    assert default_rendering(kind, script, pseudo) is expected


def test_the_command_line_beats_the_pack_and_a_class_name_beats_its_kind(analyzed):
    classes = analyzed("tau2-retail").entity_classes
    chosen = entity_renderings(
        classes,
        script="Latn",
        pseudo=False,
        pack={"person": LOCALIZE, "option_value": KEEP},
        overrides=parse_entity_options(["catalogue=keep", "product_name=translate"]),
    )
    assert chosen == {"person_name": LOCALIZE, "product_name": TRANSLATE, "option_value": KEEP, "address": KEEP}


@pytest.mark.parametrize("option", ["person", "person=bogus", "=keep"])
def test_a_malformed_entity_option_is_an_input_error(option):
    with pytest.raises(BabelflowError) as error:
        parse_entity_options([option])
    assert error.value.field == "--entity"


def test_faker_locale_follows_the_likely_region():
    assert faker_locale("zh-Hans") == "zh_CN" and faker_locale("es") == "es_ES" and faker_locale("th") == "th_TH"


def _translate(ir, renderings, tmp_path, language="en-XA", translator=None):
    cmap = CanonicalMap(benchmark=ir.benchmark, language=language)
    engine = TranslationEngine(translator or PseudoLocaleTranslator("en-XA"), language, TranslationMemory(None))
    return engine.translate(ir, cmap, renderings=renderings), cmap


def _entries(cmap, group):
    return {e.source: e for e in cmap.entries if e.group == group}


def test_keep_translate_and_localize_on_retail(analyzed, tmp_path):
    ir = analyzed("tau2-retail")
    renderings = {"person_name": LOCALIZE, "product_name": TRANSLATE, "option_value": KEEP, "address": KEEP}
    outcome, cmap = _translate(ir, renderings, tmp_path)
    assert not outcome.failures and map_problems(cmap) == []
    people, products, options = (_entries(cmap, g) for g in ("person_name", "product_name", "option_value"))
    assert all(e.origin == "localized" and e.target != e.source for e in people.values())
    assert len({e.target for e in people.values()}) == len(people)  # two customers never merge
    assert all(e.origin == "translator" and e.target != e.source for e in products.values())
    assert all(e.origin == "kept" and e.target == e.source for e in options.values())
    # the golden argument follows the DB: every canonical element of a value carries the map's rendering
    yusuf = people["Yusuf"].target
    canonical = TranslationType.TRANSLATE_CANONICAL
    golden = [e for e in ir.elements if e.source_text == "Yusuf" and e.translation_type is canonical]
    assert any(e.artifact.endswith("tasks.json") for e in golden)
    assert {outcome.targets[e.id] for e in golden} == {yusuf}
    again, cmap_again = _translate(ir, renderings, tmp_path)
    assert _entries(cmap_again, "person_name")["Yusuf"].target == yusuf  # seeded: the same identity on a rerun


class SameWordForTwo(PseudoLocaleTranslator):
    """An MT engine that renders 'on-ear' and 'over-ear' alike, as Apertium does ('Encima-oreja')."""

    def translate(self, request: TranslationRequest) -> TranslationResponse:
        response = super().translate(request)
        sent = {segment.segment_id: segment.text for segment in request.segments}
        for segment in response.segments:
            if sent[segment.segment_id] in ("on-ear", "over-ear"):
                segment.text = "encima-oreja"
        return response


def test_two_terms_of_a_class_never_share_a_rendering(analyzed, tmp_path):
    ir = analyzed("tau2-retail")
    kept = {"person_name": KEEP, "address": KEEP}
    outcome, cmap = _translate(ir, kept, tmp_path, translator=SameWordForTwo("en-XA"))
    options = _entries(cmap, "option_value")
    assert {options["on-ear"].target, options["over-ear"].target} == {"encima-oreja", "encima-oreja (over-ear)"}
    assert outcome.stats.disambiguated_terms == ["over-ear -> encima-oreja (over-ear)"]
    assert map_problems(cmap) == []


def test_prose_gets_the_maps_renderings_as_glossary_terms(analyzed, tmp_path):
    """'desk lamp' in a task (lowercase, so no inline token) reaches the translator with the catalogue's
    rendering of 'Desk Lamp' as a glossary term; a lone lowercase option value ('light') does not."""
    ir = analyzed("tau2-retail")
    translator = Recording()
    _, cmap = _translate(ir, {"person_name": KEEP, "address": KEEP}, tmp_path, translator=translator)
    lamp = _entries(cmap, "product_name")["Desk Lamp"].target
    options = _entries(cmap, "option_value")
    # brands among common nouns stay ('Amazona Alexa' is no rendering of Amazon Alexa); common nouns do not
    assert options["Amazon Alexa"].origin == "kept" and options["Amazon Alexa"].target == "Amazon Alexa"
    assert options["leather"].origin == "translator" and options["leather"].target != "leather"
    free = [
        (segment.text, request.glossary)
        for request in translator.requests
        for segment in request.segments
        if segment.kind == "free"
    ]
    mentioning = [glossary for text, glossary in free if "desk lamp" in text]
    assert mentioning and all(any(t.source == "Desk Lamp" and t.target == lamp for t in g) for g in mentioning)
    assert not any(t.source == "light" for _, glossary in free for t in glossary)
