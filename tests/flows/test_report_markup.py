"""Text from a variant, a model or a user's --origin reaches the Prefect UI only as text (issue 44, low):
a variant made elsewhere may hold `<img src=…>` or `![](…)`, which the UI would render and fetch from
wherever it points the moment a reviewer opens the failure report or the review material."""

from __future__ import annotations

from pathlib import Path

from markdown_it import MarkdownIt

from flows.pipeline.reporting import failure_report_markdown
from flows.review.html_cells import fenced
from flows.review.material import review_material_markdown
from validators.finding_kinds import Severity
from validators.findings import Evidence, FailureSet, Finding

PLANTED = (
    "Hola ![x](http://203.0.113.9/pixel.png) <img src=http://203.0.113.9/a.png> "
    "[aquí](javascript:alert(1)) | col ``` fin"
)


def _failures() -> FailureSet:
    finding = Finding(
        id="F-1",
        layer="integrity",
        kind="source_words_left",
        severity="major",
        artifact="tasks.json",
        location="tasks.json[0].description " + PLANTED,
        element_id="e1",
        task_id="1",
        message="English word left: " + PLANTED,
        validators=["integrity"],
        evidence=[
            Evidence(
                validator_id="integrity",
                reasoning="a model's reasoning " + PLANTED,
                source="source " + PLANTED,
                target=PLANTED,
                detail={"word": PLANTED},
            )
        ],
        pattern="English " + PLANTED,
    )
    return FailureSet(benchmark="tau2-retail", language="es", findings=[finding], validators=["integrity"])


def _rendered(markdown: str) -> str:
    return MarkdownIt("commonmark").render(markdown)  # raw HTML on, as the UI renders artifacts


def test_planted_markup_in_a_finding_renders_as_text_in_the_report_and_the_review_material():
    for markdown in (
        failure_report_markdown(_failures(), 1, Path("/tmp/variant")),
        review_material_markdown(_failures(), 1, None),
    ):
        html = _rendered(markdown)
        assert "<img" not in html
        assert 'href="http://203.0.113.9' not in html and 'href="javascript' not in html
        assert "203.0.113.9/pixel.png" in html  # the text itself is still there for the reviewer to read
        assert "&lt;img src=http://203.0.113.9/a.png&gt;" in html


def test_a_detail_with_backticks_cannot_close_its_code_block():
    block = fenced("a ``` b ```` c")
    html = _rendered(block + "\n\n<img src=x>")
    assert html.count("<pre>") == 1 and "a ``` b ```` c" in html


def test_the_report_counts_notes_apart_and_shows_detail_names_as_written():
    note = _failures().findings[0].model_copy(update={"id": "F-2", "severity": Severity.NOTE, "kind": "number_changed"})
    major = (
        _failures()
        .findings[0]
        .model_copy(
            update={
                "evidence": [_failures().findings[0].evidence[0].model_copy(update={"detail": {"db_renderings": "x"}})]
            }
        )
    )
    failures = FailureSet(benchmark="tau2-retail", language="es", findings=[major, note], validators=["integrity"])
    html = _rendered(failure_report_markdown(failures, 1, Path("/tmp/variant")))
    assert "1 open findings in 1 groups, and 1 notes (no decision needed)." in html  # a note asks no decision
    assert "<summary>db_renderings</summary>" in html  # not 'db\\_renderings': HTML reads no Markdown escape
