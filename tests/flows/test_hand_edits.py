"""A variant edited by hand reaches review instead of being rebuilt over: on tau2-mock es (Apertium
drafts), an edited translated field becomes a logged correction that the next rebuild writes back;
a changed kept value stops the rebuild with nothing written. A variant as the pipeline wrote it reads
back field by field as exactly what was written (no false hand edit), on es and on ar-XB."""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson
import pytest

from babelflow.adapt_request import AdaptRequest
from babelflow.ir import TranslationType
from babelflow.settings import BabelflowSettings

pytestmark = pytest.mark.skipif(
    shutil.which("apertium") is None,
    reason="apertium is not installed (scripts/install.sh installs apertium-eng-spa as root; CI does)",
)

BENCH = "tau2-mock"
TASKS = "data/tau2/domains/mock/tasks.json"


@pytest.fixture(scope="module")
def built(tmp_path_factory, analyzed) -> Path:
    from babelflow.ir import save_ir
    from flows.pipeline.adapt import adapt

    root = tmp_path_factory.mktemp("mock-hand")
    settings = BabelflowSettings(project_root=root)
    save_ir(analyzed(BENCH), settings.layout.ir(BENCH))
    for language in ("es", "ar-XB"):
        adapt(AdaptRequest.of_options(BENCH, language), settings=settings, ir=analyzed(BENCH))
    return root


@pytest.fixture
def project(built, tmp_path, monkeypatch) -> Path:
    root = tmp_path / "project"
    shutil.copytree(built, root, symlinks=True, ignore=shutil.ignore_patterns("locks"))
    monkeypatch.setenv("BABELFLOW_PROJECT_ROOT", str(root))
    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.chdir(root)
    return root


def _cli(*args: str):
    from typer.testing import CliRunner

    from flows.cli.app import app

    return CliRunner().invoke(app, list(args))


def _tasks(root: Path) -> tuple[Path, list]:
    path = root / "adapted" / BENCH / "es" / TASKS
    return path, orjson.loads(path.read_bytes())


def _at(document, path):
    for segment in path[:-1]:
        document = document[segment]
    return document, path[-1]


def _element(analyzed, kind: TranslationType, role_part: str):
    return next(
        e
        for e in analyzed(BENCH).elements
        if e.artifact == TASKS and e.translation_type is kind and e.locator.kind == "data_value" and role_part in e.role
    )


@pytest.mark.parametrize("language", ["es", "ar-XB"])
def test_a_variant_as_written_reads_back_with_no_hand_edit(project, analyzed, language):
    from babelflow.variant import load_manifest
    from flows.review.hand_edits import edited_files, read_hand_edits
    from flows.review.workbench import Workbench
    from flows.run_setup import resolve_run

    settings = BabelflowSettings(project_root=project)
    run = resolve_run(settings, AdaptRequest.of_options(BENCH, language))
    assert edited_files(run.paths.variant) == []
    outputs = [o.path for o in load_manifest(run.paths.variant).outputs]
    bench = Workbench.of_variant(settings, BENCH, language)
    edits, problems = read_hand_edits(run, bench, analyzed(BENCH), outputs)
    assert edits == []  # every field reads back as the rebuild wrote it
    assert len(problems) == len(outputs)  # ... so each file, "edited", shows no changed text


def test_a_hand_edit_becomes_a_logged_correction_the_rebuild_keeps(project, analyzed):
    element = _element(analyzed, TranslationType.TRANSLATE_FREE, "instructions")
    path, document = _tasks(project)
    node, key = _at(document, element.locator.path)
    previous = node[key]
    edited = previous + " Gracias por la ayuda."  # numbers, ids and glossary terms kept: the checks pass
    node[key] = edited
    path.write_bytes(orjson.dumps(document, option=orjson.OPT_INDENT_2))

    result = _cli("adapt", BENCH, "--lang", "es")
    assert result.exit_code == 0, result.output
    assert "hand-edited unit(s)" in result.output and "kept as corrections" in result.output
    node, key = _at(_tasks(project)[1], element.locator.path)
    assert node[key] == edited  # the rebuild wrote the edit, not the draft
    log = project / ".babelflow" / "review" / BENCH / "es" / "corrections.jsonl"
    [entry] = [orjson.loads(line) for line in log.read_bytes().splitlines()]
    assert (entry["via"], entry["previous"], entry["text"], entry["detail"]) == ("hand_edit", previous, edited, TASKS)
    shown = _cli("units", BENCH, "--lang", "es", "--origin", "corrected", "--limit", "0")
    assert "edited by hand in" in shown.output and "1 of 1" in shown.output, shown.output
    again = _cli("adapt", BENCH, "--lang", "es")  # nothing edited since: nothing adopted twice
    assert again.exit_code == 0 and "hand-edited" not in again.output
    assert len(log.read_bytes().splitlines()) == 1


def test_a_changed_kept_value_stops_the_rebuild_and_nothing_is_lost(project, analyzed):
    element = _element(analyzed, TranslationType.PRESERVE, "")
    path, document = _tasks(project)
    node, key = _at(document, element.locator.path)
    node[key] = node[key] + "-edited"
    path.write_bytes(orjson.dumps(document, option=orjson.OPT_INDENT_2))
    edited = path.read_bytes()
    reviewed = project / ".babelflow" / "runs"

    result = _cli("adapt", BENCH, "--lang", "es")
    assert result.exit_code == 2, result.output
    assert "a kept field (Preserve" in result.output and element.id in result.output and "fix:" in result.output
    assert path.read_bytes() == edited  # the hand edit is still there
    assert not list(reviewed.rglob("reviewed_translations.json"))


def test_validate_review_queues_a_hand_edited_or_foreign_variant_for_review(project, analyzed, tmp_path):
    element = _element(analyzed, TranslationType.TRANSLATE_FREE, "instructions")
    path, document = _tasks(project)
    node, key = _at(document, element.locator.path)
    draft = node[key]
    node[key] = element.source_text  # a hand edit that put the English back
    path.write_bytes(orjson.dumps(document, option=orjson.OPT_INDENT_2))

    elsewhere = tmp_path / "elsewhere"
    shutil.copytree(project / "adapted" / BENCH / "es", elsewhere)
    checked = _cli("validate", BENCH, "--lang", "es", "--review")
    assert checked.exit_code == 1, checked.output
    assert "queued for review: babelflow review tau2-mock --lang es" in checked.output
    queue = orjson.loads((project / ".babelflow" / "review" / BENCH / "es" / "queue.json").read_bytes())
    finding = next(f for f in queue["findings"] if f["element_id"] == element.id)
    english = _cli("correct", BENCH, "--lang", "es", "--finding", finding["id"], "--text", node[key] + ".")
    assert english.exit_code == 2 and "refused by the checks" in english.output  # the same checks as any text
    text = draft + " Gracias por la ayuda."
    fixed = _cli("correct", BENCH, "--lang", "es", "--finding", finding["id"], "--text", text, "--author", "ana")
    assert fixed.exit_code == 0, fixed.output
    node, key = _at(_tasks(project)[1], element.locator.path)
    assert node[key] == text  # the correction replaced the hand edit of its unit (the later text wins)
    log = project / ".babelflow" / "review" / BENCH / "es" / "corrections.jsonl"
    assert [orjson.loads(line)["via"] for line in log.read_bytes().splitlines()] == ["finding"]

    # a copy made elsewhere (taken with the English edit): its own queue, never the project's; not signable
    foreign = _cli("validate", BENCH, "--lang", "es", "--variant", str(elsewhere), "--review")
    assert f"--variant {elsewhere}" in foreign.output, foreign.output
    [queued] = (project / ".babelflow" / "review" / BENCH / "es" / "variants").glob("elsewhere-*/queue.json")
    same = next(f for f in orjson.loads(queued.read_bytes())["findings"] if f["element_id"] == element.id)
    decided = _cli("review", BENCH, "--lang", "es", "--variant", str(elsewhere), "--decide", f"{same['id']}=confirm")
    assert decided.exit_code == 0 and "made elsewhere" in decided.output, decided.output
    own_log = project / ".babelflow" / "review" / BENCH / "es" / "decisions.jsonl"
    assert len(own_log.read_bytes().splitlines()) == 1  # the correction's; the foreign decision has its own folder
    assert _cli("review", BENCH, "--lang", "es", "--variant", str(elsewhere), "--sign").exit_code == 2


def test_a_hand_edit_that_breaks_a_task_is_set_aside_with_a_finding_not_a_traceback(project, analyzed):
    from flows.pipeline.stages import TranslateResult
    from flows.pipeline.validation_stages import translation_failures

    element = next(
        e
        for e in analyzed(BENCH).elements
        if e.artifact == TASKS and e.translation_type is TranslationType.TRANSLATE_FREE and "task_1" in e.source_text
    )
    path, document = _tasks(project)
    node, key = _at(document, element.locator.path)
    draft = node[key]
    node[key] = draft.replace("task_1", "task_9")  # a wrong id: the task no longer says what its actions need
    path.write_bytes(orjson.dumps(document, option=orjson.OPT_INDENT_2))

    result = _cli("adapt", BENCH, "--lang", "es")
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output and "set aside" in result.output and "task_1" in result.output
    node, key = _at(_tasks(project)[1], element.locator.path)
    assert node[key] == draft  # the variant keeps the machine text; the edit is kept as a correction
    log = project / ".babelflow" / "review" / BENCH / "es" / "corrections.jsonl"
    [entry] = [orjson.loads(line) for line in log.read_bytes().splitlines()]
    assert entry["via"] == "hand_edit" and "task_9" in entry["text"]

    # the flow's translate stage carries it to the review queue as a finding with the refused text
    from flows.pipeline.adapt import adapt

    adapted = adapt(AdaptRequest.of_options(BENCH, "es"), settings=BabelflowSettings(project_root=project))
    [aside] = adapted.outcome.set_aside
    translated = TranslateResult(
        targets_path=path,
        targets_sha256="",
        canonical_map_version="",
        translator_id="",
        language_pack_version="",
        stats=adapted.outcome.stats,
        failures=[],
        set_aside=[aside],
        retranslated_units=0,
    )
    [finding] = translation_failures(
        translated, BabelflowSettings(project_root=project).layout.ir(BENCH), BENCH
    ).findings
    assert finding.kind == "human_text_set_aside" and finding.element_id in aside.element_ids
    assert "task_9" in (finding.evidence[0].target or "") and "babelflow correct" in finding.message
