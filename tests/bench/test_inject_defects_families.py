"""Issue 24's defect kinds, planted and caught without a model (bench/defects/families.py):

- tau2-mock en-XA: one English word left in a translated evaluation assertion, a status literal
  forced into a sentence that says the word in its ordinary sense, a status written twice;
- agentdojo-banking en-XA: a quoted file name of a prompt, compared by the task's own check, renamed
  with a capital (the general reference check forgives case; this one must not);
- fixture-library en-XA: a book the task's prose names, written with another book's rendering
  (the Chinese retail variant's 水壶 for the water bottle): critical, naming the other;
- each clean variant has no finding above note, and so has agentdojo-banking es (Apertium: the
  injection vectors' descriptions, which no task reads, are no fidelity target).
"""

from __future__ import annotations

import shutil

import pytest
from rich.console import Console

from babelflow.target_lexicon import target_lexicon
from bench.defects import CATALOGUE, caught_by
from bench.inject_defects import Prepared, draft_english
from validators.findings import Severity

TAU2_KINDS = {
    "pseudo_word_left_in_assertion": "source_words_left",
    "status_literal_forced_in_prose": "status_rendering_in_prose",
    "status_rendering_doubled": "status_rendering_doubled",
}


def _above_note(failures) -> list[tuple]:
    return [(f.layer.value, f.kind, f.location) for f in failures.findings if f.severity != Severity.NOTE]


def _caught(prepared: Prepared, kind: str, tmp_path) -> list:
    defect, failures = prepared.plant(kind, tmp_path / kind)
    hits = caught_by(failures, defect)
    assert hits, f"{kind} missed: {[(f.kind, f.location) for f in failures.findings]}"
    return hits


@pytest.fixture(scope="module")
def mock_en_xa(tmp_path_factory, analyzed):
    root = tmp_path_factory.mktemp("family-defects-mock")
    return Prepared("tau2-mock", "en-XA", root, Console(quiet=True), ir=analyzed("tau2-mock"))


@pytest.fixture(scope="module")
def banking_en_xa(tmp_path_factory, analyzed):
    root = tmp_path_factory.mktemp("family-defects-banking")
    return Prepared("agentdojo-banking", "en-XA", root, Console(quiet=True), ir=analyzed("agentdojo-banking"))


def test_the_kinds_are_catalogued():
    for kind in TAU2_KINDS:
        assert CATALOGUE[kind].benchmarks[0] == "tau2-mock"
    assert "agentdojo-banking" in CATALOGUE["agentdojo_prompt_entity_changed"].benchmarks


def test_clean_mock_en_xa_has_nothing_above_note(mock_en_xa):
    assert _above_note(mock_en_xa.clean) == []


@pytest.mark.parametrize("kind", sorted(TAU2_KINDS))
def test_pseudo_locale_defect_is_caught(mock_en_xa, kind, tmp_path):
    hits = _caught(mock_en_xa, kind, tmp_path)
    assert TAU2_KINDS[kind] in {f.kind for f in hits}
    # at the grade of what it breaks: a doubled status word only costs the reading (minor), the rest more
    expected = Severity.MINOR if kind == "status_rendering_doubled" else Severity.MAJOR
    assert all(f.severity is expected for f in hits if f.kind == TAU2_KINDS[kind])


@pytest.fixture(scope="module")
def library_en_xa(tmp_path_factory, analyzed):
    root = tmp_path_factory.mktemp("family-defects-library")
    return Prepared("fixture-library", "en-XA", root, Console(quiet=True), ir=analyzed("fixture-library"))


def test_task_prose_naming_another_entity_is_critical(library_en_xa, tmp_path):
    assert _above_note(library_en_xa.clean) == []
    defect, failures = library_en_xa.plant("task_names_another_product", tmp_path / "plant")
    hits = [f for f in caught_by(failures, defect) if f.kind == "entity_rendering_unknown"]
    assert hits and all(f.severity is Severity.CRITICAL for f in hits)
    assert hits[0].evidence[0].detail["other"]  # it names the entity the prose now points at


def test_pseudo_renderings_compare_across_fields():
    """A map's en-XA rendering ('[Ŵåţéŕ Ɓöţţļé one two]') and the same words in prose ('ŵåţéŕ ƀöţţļé')
    are one name: accented capitals are no case pairs of the accented small letters."""
    from babelflow.text import comparable

    assert comparable("[Ŵåţéŕ Ɓöţţļé one two]", "accented").casefold() == "water bottle"
    assert comparable("ţĥé ŵåţéŕ ƀöţţļé", "accented").casefold() == "the water bottle"
    assert comparable("\u202eelttob\u202c", "mirrored") == "bottle"
    assert comparable("botella", None) == "botella"


def test_clean_banking_en_xa_has_nothing_above_note(banking_en_xa):
    assert _above_note(banking_en_xa.clean) == []


def test_prompt_entity_the_check_compares_is_caught(banking_en_xa, tmp_path):
    hits = _caught(banking_en_xa, "agentdojo_prompt_entity_changed", tmp_path)
    critical = [f for f in hits if f.kind == "reference_lost" and f.severity is Severity.CRITICAL]
    assert critical and "checks compare" in critical[0].message


@pytest.mark.skipif(shutil.which("apertium") is None, reason="apertium is not installed (scripts/install.sh)")
def test_clean_banking_es_has_nothing_above_note_but_the_drafts_english(tmp_path, analyzed):
    """Above note, only words Apertium had no entry for and passed through (minor, one field each), each
    a word the Spanish analyser does not know: a true defect of the draft, no false alarm."""
    prepared = Prepared("agentdojo-banking", "es", tmp_path, Console(quiet=True), ir=analyzed("agentdojo-banking"))
    above = [f for f in prepared.clean.findings if f.severity is not Severity.NOTE]
    words = {draft_english(f) for f in above}
    assert None not in words, _above_note(prepared.clean)
    assert not target_lexicon("es").known(words)


def _context(prepared: Prepared):
    from validators.context import ValidationContext

    return ValidationContext(prepared.source, prepared.variant, prepared.ir, prepared.language, prepared.canonical_map)


def test_fields_no_model_reads(mock_en_xa, banking_en_xa):
    """A task's maintainer description and AgentDojo's injection-vector descriptions are no fidelity
    target; what the user simulator, the agent or an evaluator reads is."""
    from validators.probes.readers import read_by_no_model

    ctx = _context(mock_en_xa)
    unread = {e.role for e in ctx.translatable() if read_by_no_model(ctx, e)}
    read = {e.role for e in ctx.translatable() if not read_by_no_model(ctx, e)}
    assert "tasks.json[*].description.purpose" in unread
    assert {"tasks.json[*].user_scenario.instructions", "tasks.json[*].evaluation_criteria.nl_assertions[*]"} <= read
    ctx = _context(banking_en_xa)
    unread = {e.role for e in ctx.translatable() if read_by_no_model(ctx, e)}
    assert unread and all(role.startswith("injection_vectors.yaml:") for role in unread)
    assert all(role.endswith(".description") for role in unread)
