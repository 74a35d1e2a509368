"""bench/entity_localization.py on a real variant: tau2-mock adapted to en-XA (built once, in a temporary project;
those tests are slow), and its word-value filter."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.console import Console

from babelflow.adapt_request import AdaptRequest
from babelflow.settings import BabelflowSettings
from bench.entity_localization import is_word_value, measure


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("Water Bottle", True),
        ("blue", True),
        ("Test User", True),
        ("task_1", False),  # identifier
        ("mia.garcia@example.com", False),
        ("2024-05-01", False),
        ("445 Maple Drive", False),  # house number
        ("USA", False),  # abbreviation
        ("EHGLP3", False),  # code
        ("---", False),
    ],
)
def test_word_value_filter(text, word):
    assert is_word_value(text) is word


@pytest.fixture(scope="module")
def mock_variant(tmp_path_factory):
    from flows.pipeline.adapt import adapt

    root = tmp_path_factory.mktemp("entity-localization")
    settings = BabelflowSettings(project_root=root)
    result = adapt(AdaptRequest.of_options("tau2-mock", "en-XA"), settings=settings)
    return settings, Path(result.paths.variant)


@pytest.mark.slow  # builds the mock variant once (~10-20 s on the shared machine)
def test_mock_en_xa_clean(mock_variant):
    settings, variant = mock_variant
    report = measure("tau2-mock", "en-XA", variant, settings=settings)
    classes = {c.entity_class: c for c in report.classes}
    # the catalogue class (task titles) is translated by the en-XA policy, every value one way
    assert classes["task_title"].values >= 1 and classes["task_title"].localized == classes["task_title"].values
    # people's names are kept for a Latin-script target (babelflow/entity_policy.py)
    assert classes["person_name"].values == 1 and classes["person_name"].localized == 0
    assert report.multi_rendered == 0
    # mock's tasks never name the DB's one task: nothing to follow
    assert report.mentions == 0 and report.left_in_english == 0


@pytest.mark.slow  # builds the mock variant once (~10-20 s on the shared machine)
def test_a_value_rendered_two_ways_is_counted(mock_variant):
    """Two DB locations of one value holding different texts: the count `one value, one rendering` watches."""
    from bench.entity_localization import db_values, render_values, variant_ir

    settings, variant = mock_variant
    ir = variant_ir(settings, "tau2-mock", variant, Console(stderr=True))
    value, elements = next((v, es) for v, es in db_values(ir).items() if v == "Test task")
    twin = elements[0].model_copy(update={"id": "planted-twin"})

    class Variant:  # the variant's text at each location: the twin got another rendering
        @staticmethod
        def target_text(element):
            return "Tést tásk" if element.id == "planted-twin" else "Ŧéšŧ ŧåšķ"

    rows = render_values(Variant(), {value: [*elements, twin]})
    assert rows[0].renderings == ["Tést tásk", "Ŧéšŧ ŧåšķ"] and rows[0].localized
    assert render_values(Variant(), {value: elements})[0].renderings == ["Ŧéšŧ ŧåšķ"]


@pytest.mark.slow  # builds the mock variant once (~10-20 s on the shared machine)
def test_a_mention_left_in_english_is_caught(mock_variant):
    """Prose mentioning a localized value: its rendering in the variant is fine, the English value is not."""
    from babelflow.canonical_map import load_canonical_map
    from babelflow.ir import TranslationType
    from bench.entity_localization import prose_mentions, variant_ir

    settings, variant = mock_variant
    ir = variant_ir(settings, "tau2-mock", variant, Console(stderr=True))
    cmap = load_canonical_map(settings.layout.canonical_map("tau2-mock", "en-XA"), "tau2-mock", "en-XA")
    rendering = cmap.target_of("task_title", "Test task")
    assert rendering and rendering != "Test task"
    prose = next(e for e in ir.elements if e.translation_type is TranslationType.TRANSLATE_FREE)
    followed = prose.model_copy(update={"id": "followed", "source_text": "Mark 'Test task' done; test TASK twice."})
    left = prose.model_copy(update={"id": "left", "source_text": "Is Test task done?"})
    # a longer name the prose keeps (an inline token) holding the value is no mention of it
    shielded = prose.model_copy(
        update={"id": "shielded", "source_text": "Ask the Test task force.", "inline_tokens": ["Test task force"]}
    )
    texts = {
        "followed": f"Ɱåŕķ '{rendering}' ðöñé; ţéšţ {rendering} ţŵîçé.",
        "left": "Îš Test task ðöñé?",
        "shielded": "Åšķ ţĥé Test task force.",
    }

    class Variant:
        language = "en-XA"

        def __init__(self):
            self.ir = ir.model_copy(update={"elements": [followed, left, shielded]})

        @staticmethod
        def target_text(element):
            return texts[element.id]

        code_target = target_text

    read, rows, unreadable = prose_mentions(Variant(), cmap, {"task_title", "person_name"})
    assert (read, unreadable) == (3, 0)
    assert [(r.value, r.mentions, r.left_in_english, r.elements) for r in rows] == [("Test task", 3, 1, 2)]
    assert "Test task" in rows[0].example
