"""`babelflow adopt` (issue 40): a variant made elsewhere (here a pseudo-locale variant of τ² mock, copied out
of the project that made it, as the issue allows where no real one is at hand) is read against the source IR
field by field; its texts carry provenance 'adopted from <origin>' into `units` and the XLIFF state; a value
rendered two ways gets the catalogue record's rendering and its prose mentions follow; bad input exits 2 with
nothing written."""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path

import orjson
import pytest

from babelflow.adapt_request import AdaptRequest
from babelflow.canonical_map import CanonicalEntry, CanonicalMap
from babelflow.settings import BabelflowSettings
from flows.pipeline.variant_reading import VariantReading
from translators.adoption import repair_mentions

BENCH, LANG = "tau2-mock", "en-XA"


@pytest.fixture
def made_elsewhere(tmp_path, monkeypatch, analyzed):
    """(a fresh project, a variant another project made): the adoption reads the second from the first."""
    from babelflow.ir import save_ir
    from flows.pipeline.adapt import adapt

    other = tmp_path / "other"
    other.mkdir()
    settings = BabelflowSettings(project_root=other)
    save_ir(analyzed(BENCH), settings.layout.ir(BENCH))
    adapt(AdaptRequest.of_options(BENCH, LANG), settings=settings)
    elsewhere = tmp_path / "their-variant"
    shutil.copytree(settings.layout.variant(BENCH, LANG) / "data", elsewhere)  # their copy of the data folder
    project = tmp_path / "project"
    project.mkdir()
    save_ir(analyzed(BENCH), BabelflowSettings(project_root=project).layout.ir(BENCH))
    monkeypatch.setenv("BABELFLOW_PROJECT_ROOT", str(project))
    monkeypatch.chdir(project)
    return project, elsewhere


def _cli(*args: str):
    from typer.testing import CliRunner

    from flows.cli.app import app

    return CliRunner().invoke(app, list(args), env={"COLUMNS": "160"})


def _adopted_record(project: Path) -> Path:
    return BabelflowSettings(project_root=project).layout.adopted_translations(BENCH, LANG)


def test_adopted_texts_carry_their_provenance(made_elsewhere):
    project, elsewhere = made_elsewhere
    result = _cli("adopt", BENCH, "--lang", LANG, "--from", str(elsewhere), "--origin", "OtherTeam")
    assert result.exit_code == 0, result.output
    record = orjson.loads(_adopted_record(project).read_bytes())
    reasons = Counter(item["reason"] for item in record["not_adopted"])
    # every field the copy holds is adopted; what it cannot hold (code texts) is listed with its reason
    assert set(reasons) == {"code_not_in_variant"}, reasons
    data_fields = record["translatable_fields"] - reasons["code_not_in_variant"]
    assert len(record["texts"]) + sum(1 for _ in record["terms"]) >= 0.95 * data_fields - 2
    from flows.review.workbench import Workbench

    records = Workbench.of_variant(BabelflowSettings(project_root=project), BENCH, LANG).records
    adopted = [r for r in records if r.origin_class == "adopted"]
    assert len(adopted) >= 0.95 * sum(1 for r in records if r.stratum != "tool" and r.stratum != "prompt")
    assert {r.origin for r in adopted} == {"adopted from OtherTeam", "canonical map (adopted)"}
    assert {r.state for r in adopted} == {"needs-review-translation"}
    units = _cli("units", BENCH, "--lang", LANG, "--origin", "adopted")
    assert units.exit_code == 0, units.output
    assert f"{len(adopted)} unit(s)" in units.output


def test_declared_human_review_makes_the_xliff_state_translated():
    from flows.review.unit_records import origin_class, xliff_state
    from translators.adoption import Adoption

    plain = Adoption(origin="T", origin_dir="/x", ir_sha256="0", texts={}, translatable_fields=0)
    reviewed = plain.model_copy(update={"human_reviewed": True})
    assert xliff_state("x", origin_class(plain.unit_origin, None), signed=False) == "needs-review-translation"
    assert xliff_state("x", origin_class(reviewed.unit_origin, None), signed=False) == "translated"


def test_the_catalogue_record_wins_and_competitors_are_counted():
    reading = VariantReading()
    key = ("product_name", "Tea Kettle")
    # the fields holding each rendering: 40 lines say 'Ấm pha trà', 79 'Ấm đun trà'
    reading.renderings[key].update(
        {"Ấm pha trà": [f"a{n}" for n in range(40)], "Ấm đun trà": [f"b{n}" for n in range(79)]}
    )
    reading.in_catalogue[key].update({"Ấm pha trà": 1})
    (term,) = reading.terms()
    assert (term.target, term.chosen_by) == ("Ấm pha trà", "catalogue record")
    assert [(c.rendering, c.count) for c in term.competing] == [("Ấm đun trà", 79)]


def test_a_prose_mention_becomes_the_maps_rendering():
    cmap = CanonicalMap(benchmark="b", language="vi")
    cmap.upsert(CanonicalEntry(group="p", source="E-Reader", target="Máy đọc sách điện tử", origin="adopted"))
    variant = {("p", "E-Reader"): {"Máy đọc sách điện tử", "Máy đọc sách"}}
    text, n = repair_mentions("Có một Máy đọc sách và một Máy đọc sách điện tử.", [("p", "E-Reader")], variant, cmap)
    # the shorter rendering is replaced; the map's own, which contains it, is left as it is
    assert (text, n) == ("Có một Máy đọc sách điện tử và một Máy đọc sách điện tử.", 1)


def _refused(project: Path, *args: str) -> str:
    result = _cli("adopt", BENCH, "--lang", LANG, *args)
    assert result.exit_code == 2, result.output
    assert not _adopted_record(project).exists()
    assert not (project / "adapted").exists()
    return " ".join(result.output.split())


def test_a_truncated_file_is_refused_naming_it(made_elsewhere):
    project, elsewhere = made_elsewhere
    tasks = elsewhere / "tau2" / "domains" / "mock" / "tasks.json"
    tasks.write_bytes(tasks.read_bytes()[:200])
    assert "tasks.json" in _refused(project, "--from", str(elsewhere))


def test_another_task_set_is_refused(made_elsewhere):
    project, elsewhere = made_elsewhere
    tasks = elsewhere / "tau2" / "domains" / "mock" / "tasks.json"
    document = orjson.loads(tasks.read_bytes())
    for task in document:
        task["id"] = "other_" + str(task["id"])
    tasks.write_bytes(orjson.dumps(document))
    assert "task ids" in _refused(project, "--from", str(elsewhere))


def test_the_source_itself_is_refused(made_elsewhere):
    from source_benchmarks import get_benchmark
    from translators.rebuild import source_folders

    project, _ = made_elsewhere
    sources, _ = source_folders(get_benchmark(BENCH))
    assert "source benchmark itself" in _refused(project, "--from", str(sources[0]))


def test_a_folder_of_another_benchmark_is_refused(made_elsewhere, tmp_path):
    project, _ = made_elsewhere
    empty = tmp_path / "unrelated"
    (empty / "something").mkdir(parents=True)
    assert "holds none of" in _refused(project, "--from", str(empty))


def test_a_flow_from_an_existing_translation_takes_one_language(made_elsewhere):
    project, elsewhere = made_elsewhere
    result = _cli("flow", BENCH, "--lang", LANG, "--lang", "ar-XB", "--adopt", str(elsewhere))
    assert result.exit_code == 2 and "--adopt takes one --lang" in " ".join(result.output.split())
    assert not (project / ".babelflow" / "prefect" / "server.json").exists()  # refused before the server starts


def test_a_flow_refuses_a_bad_adopt_folder_before_the_server_starts(made_elsewhere):
    project, elsewhere = made_elsewhere
    tasks = elsewhere / "tau2" / "domains" / "mock" / "tasks.json"
    tasks.write_bytes(tasks.read_bytes()[:200])
    result = _cli("flow", BENCH, "--lang", LANG, "--adopt", str(elsewhere))
    assert result.exit_code == 2 and "tasks.json" in result.output
    assert not _adopted_record(project).exists()
    assert not (project / ".babelflow" / "prefect" / "server.json").exists()


def test_the_flow_seeds_its_run_with_the_adopted_translations(made_elsewhere):
    """What `flow --adopt` does before its stages run: the same record `adopt` writes, read by the same
    translate stage (tests above), under the flow's own request (no translator offline)."""
    from flows.cli.flow import adopted_request
    from flows.pipeline.adopting import AdoptedFrom, seed_adoption
    from flows.run_setup import resolve_run

    project, elsewhere = made_elsewhere
    request = adopted_request(AdaptRequest.of_options(BENCH, LANG), [LANG])
    run = resolve_run(BabelflowSettings(project_root=project), request)
    adoption = seed_adoption(run, AdoptedFrom(elsewhere, "OtherTeam"), lambda message: None)
    assert _adopted_record(project).is_file() and adoption.origin == "OtherTeam"
    # everything but the code (a copied data folder carries no code overlay) comes from the variant
    assert adoption.adopted_fields > 0 and {n.reason for n in adoption.not_adopted} == {"code_not_in_variant"}


def test_a_later_run_of_an_adopted_language_asks_what_adopt_asked(made_elsewhere):
    """`flow` rerun after `adopt` (the hint it prints) keeps the variant's own people and places and no
    translator offline; an explicit --entity still wins."""
    from babelflow.adapt_request import AutoSpec
    from babelflow.entity_policy import EntityRendering
    from flows.run_setup import resolve_run

    project, elsewhere = made_elsewhere
    settings = BabelflowSettings(project_root=project)
    before = resolve_run(settings, AdaptRequest.of_options(BENCH, LANG)).request
    assert "person" not in before.entities
    assert _cli("adopt", BENCH, "--lang", LANG, "--from", str(elsewhere)).exit_code == 0
    later = resolve_run(settings, AdaptRequest.of_options(BENCH, LANG)).request
    assert (
        later.entities["person"] is EntityRendering.TRANSLATE and later.entities["place"] is EntityRendering.TRANSLATE
    )
    assert later.translator == AutoSpec(otherwise="none")
    asked = resolve_run(settings, AdaptRequest.of_options(BENCH, LANG, entities=["person=localize"])).request
    assert asked.entities["person"] is EntityRendering.LOCALIZE
