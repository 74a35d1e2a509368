"""The translation engine: closed unit results, and the language pack's glossary reaching the translator."""

from __future__ import annotations

import re

from babelflow.canonical_map import CanonicalMap
from babelflow.language_pack import load_pack
from translators.engine import TranslationEngine
from translators.interface import GlossaryEntry, TranslationRequest, TranslationResponse
from translators.memory import TranslationMemory
from translators.pseudo_locale import PseudoLocaleTranslator


class Recording(PseudoLocaleTranslator):
    def __init__(self) -> None:
        super().__init__("en-XA")
        self.requests: list[TranslationRequest] = []

    def translate(self, request: TranslationRequest) -> TranslationResponse:
        self.requests.append(request)
        return super().translate(request)


def _sent(translator: Recording) -> dict[str, tuple[str, list[GlossaryEntry]]]:
    return {
        segment.segment_id: (segment.text, request.glossary)
        for request in translator.requests
        for segment in request.segments
    }


def test_glossary_terms_reach_the_requests_that_mention_them(analyzed, tmp_path):
    ir = analyzed("tau2-mock")
    term = GlossaryEntry(source="task", target="ţåšķ")
    translator = Recording()
    engine = TranslationEngine(
        translator, "en-XA", TranslationMemory(tmp_path / "tm.jsonl"), glossary=[term], max_items=1
    )
    outcome = engine.translate(ir, CanonicalMap(benchmark="tau2-mock", language="en-XA"))
    assert not outcome.failures
    sent = _sent(translator)
    mentioning = [key for key, (text, _) in sent.items() if "task" in text.lower().replace("tasks", "")]
    assert mentioning, "the mock domain's prose mentions tasks"
    for text, glossary in sent.values():
        assert (glossary == [term]) == bool(re.search(r"(?<!\w)task(?!\w)", text, re.I)), text


def test_a_changed_term_retranslates_exactly_the_units_that_mention_it(analyzed, tmp_path):
    ir = analyzed("tau2-mock")
    memory = tmp_path / "tm.jsonl"
    cmap = CanonicalMap(benchmark="tau2-mock", language="en-XA")
    TranslationEngine(
        Recording(), "en-XA", TranslationMemory(memory), glossary=[GlossaryEntry(source="meeting", target="ɱééţîñĝ")]
    ).translate(ir, cmap)
    again = Recording()
    TranslationEngine(
        again, "en-XA", TranslationMemory(memory), glossary=[GlossaryEntry(source="meeting", target="ɱéţ")]
    ).translate(ir, cmap)
    resent = [text for text, _ in _sent(again).values()]
    assert resent and all("meeting" in text.lower() for text in resent)


def test_a_term_code_a_reviewer_rendered_is_no_code_of_that_term():
    from translators.placeholders import restore
    from translators.unit_protection import protect_as_rendered, protect_unit
    from translators.units import TranslationUnit

    unit = TranslationUnit(
        key="k", text="AC adapter", kind="canonical", context="", canonical_group="option_value", inline_tokens=()
    )
    assert [p.original for p in protect_unit(unit, None, {}).placeholders] == ["AC"]  # a translator keeps it
    rendered = protect_as_rendered(unit, "adaptador de CA")  # a reviewer did not: the rendering is the term's
    assert rendered.placeholders == [] and restore("adaptador de CA", rendered) == "adaptador de CA"
    kept = protect_as_rendered(unit, "adaptador AC")
    assert [p.original for p in kept.placeholders] == ["AC"]


def test_a_term_inside_a_longer_term_or_a_kept_token_is_not_owed_its_rendering():
    """The pack check asks of a field what the translator could do: 'themed' inside the pack's own
    'horror-themed' takes the longer term's rendering, and 'session' inside '8-session' (kept as it is, like
    an id) is kept with it."""
    from babelflow.glossary import term_matcher

    matcher = term_matcher(("themed", "horror-themed", "session"))
    assert matcher.outermost("a horror-themed game") == [1]
    assert matcher.outermost("a horror-themed game in a themed room") == [0, 1]
    from babelflow.language_pack_model import GlossaryTerm
    from translators.pack_checks import _field_problems

    pack = load_pack("es")
    glossary = [
        GlossaryTerm(benchmark="*", source="themed", target="temático"),
        GlossaryTerm(benchmark="*", source="horror-themed", target="de terror"),
        GlossaryTerm(benchmark="*", source="session", target="sesión"),
    ]
    element = _Element("a horror-themed game (8-session package)")
    problems = _field_problems(pack, glossary, term_matcher(tuple(g.source for g in glossary)), [], element, "x")
    assert problems == ["tasks.json instructions: glossary term 'horror-themed' is not rendered as 'de terror'"]
    element = _Element("a themed session")
    problems = _field_problems(pack, glossary, term_matcher(tuple(g.source for g in glossary)), [], element, "x")
    assert len(problems) == 2  # both words stand alone: both are owed


class _Element:
    def __init__(self, source: str):
        from babelflow.ir import TranslationType

        self.source_text = source
        self.artifact = "tasks.json"
        self.role = "instructions"
        self.inline_tokens: list[str] = []
        self.translation_type = TranslationType.TRANSLATE_FREE
