"""`babelflow terms` on the fixture library (issue 41): the term base per class at 100 columns; a corrected
term reaches the DB, the golden arguments and the prose in one rerun while only the units that mention it are
translated again; decisions are logged with author and time, append-only; a colliding batch is refused
whole; TBX out and back keeps approvals and authors, and a TBX with a conflicting or empty term is refused
whole (exit 2, nothing written)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import orjson
import pytest
from lxml import etree

from babelflow.adapt_request import AdaptRequest
from babelflow.settings import BabelflowSettings

BENCH, LANG = "fixture-library", "en-XA"
WATCHED = (".babelflow/runs", "adapted", "canonical_maps")


@pytest.fixture
def project(tmp_path, monkeypatch, analyzed):
    from babelflow.ir import save_ir
    from flows.pipeline.adapt import adapt

    monkeypatch.setenv("BABELFLOW_PROJECT_ROOT", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    settings = BabelflowSettings(project_root=tmp_path)
    save_ir(analyzed(BENCH), settings.layout.ir(BENCH))
    adapt(AdaptRequest.of_options(BENCH, LANG), settings=settings)
    return tmp_path


def _cli(*args: str, columns: int = 100):
    from typer.testing import CliRunner

    from flows.cli.app import app

    return CliRunner().invoke(app, list(args), env={"COLUMNS": str(columns)})


def _state(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for folder in WATCHED
        for p in sorted((root / folder).rglob("*"))
        if p.is_file()
    }


def _log(root: Path) -> list[dict]:
    path = root / "canonical_maps" / BENCH / f"{LANG}.terms-log.jsonl"
    return [orjson.loads(line) for line in path.read_bytes().splitlines()] if path.exists() else []


def test_the_term_base_fits_100_columns(project):
    result = _cli("terms", BENCH, "--lang", LANG)
    assert result.exit_code == 0, result.output
    assert "book_title: 8 term(s)" in result.output and "The Salt Road" in result.output
    assert max(len(line) for line in result.output.splitlines()) <= 100
    assert _cli("terms", BENCH, "--lang", LANG, "--class", "nope").exit_code == 2


def test_a_corrected_term_reaches_db_gold_and_prose_and_retranslates_only_its_units(project):
    from flows.pipeline.adapt import adapt
    from translators.units import extract_units

    result = _cli("terms", BENCH, "--lang", LANG, "--correct", "The Salt Road=La Ruta de la Sal", "--author", "Ana")
    assert result.exit_code == 0, result.output
    [decision] = _log(project)
    assert (decision["author"], decision["action"], decision["rendering"]) == ("Ana", "correct", "La Ruta de la Sal")
    assert decision["previous"].startswith("[") and decision["at"]
    reviewed = orjson.loads((project / "canonical_maps" / BENCH / f"{LANG}.json").read_bytes())["entries"]
    assert [(e["source"], e["origin"]) for e in reviewed] == [("The Salt Road", "reviewer")]

    rerun = adapt(AdaptRequest.of_options(BENCH, LANG), settings=BabelflowSettings(project_root=project))
    variant = rerun.paths.variant
    db = (variant / "data" / "db.json").read_text(encoding="utf-8")
    tasks = (variant / "data" / "tasks.json").read_text(encoding="utf-8")
    assert "La Ruta de la Sal" in db and "Ţĥé Šåļţ Ŕöåð" not in db
    assert "La Ruta de la Sal" in tasks and "Ţĥé Šåļţ Ŕöåð" not in tasks  # gold arguments and task prose
    _, free = extract_units(rerun.ir)
    mentioning = [u for u in free if "The Salt Road" in u.text]
    assert mentioning
    stats = rerun.outcome.stats
    # the title travels in the prose as a placeholder restored to the map's rendering: no unit is sent again
    # (with a translator that reads it as a glossary term, only units that mention it would be)
    assert stats.units_by_origin.get(stats.translator_id, 0) <= len(mentioning)
    assert stats.units_by_origin[f"{stats.translator_id} (memory)"] >= len(free) - len(mentioning)


def test_a_batch_that_makes_two_titles_alike_is_refused_whole(project):
    before = _state(project)
    rendering = "[Ţĥé Šåļţ Ŕöåð one two]"
    result = _cli(
        "terms", BENCH, "--lang", LANG, "--correct", "Letters in Winter=Cartas", "--correct",
        f"Murder at Millbrook={rendering}",
    )  # fmt: skip
    assert result.exit_code == 2 and "Murder at Millbrook" in result.output and "fix:" in result.output
    assert _state(project) == before and _log(project) == []


def test_tbx_round_trip_keeps_approvals_and_authors(project, tmp_path_factory):
    out = tmp_path_factory.mktemp("tbx") / "terms.tbx"
    assert _cli("terms", BENCH, "--lang", LANG, "--approve", "The Quiet Harbor", "--author", "Ana").exit_code == 0
    assert _cli("terms", BENCH, "--lang", LANG, "--export-tbx", str(out)).exit_code == 0
    tree = etree.parse(str(out))
    assert "Ana" in [n.text for n in tree.iter("transacNote")]
    before = _state(project)
    unchanged = _cli("terms", BENCH, "--lang", LANG, "--import-tbx", str(out))
    assert unchanged.exit_code == 0 and "nothing changed" in unchanged.output and _state(project) == before

    # a terminologist renders one title and approves another in their tool
    for entry in tree.iter("termEntry"):
        source = entry.find("langSet/tig/term").text
        target_tig = entry.findall("langSet/tig")[1]
        if source == "Rivers of Memory":
            target_tig.find("term").text = "Ríos de la memoria"
        if source == "Letters in Winter":
            target_tig.find("termNote").text = "preferredTerm-admn-sts"
            group = etree.SubElement(target_tig, "transacGrp")
            etree.SubElement(group, "transacNote", type="responsibility").text = "Bea"
    tree.write(str(out), xml_declaration=True, encoding="UTF-8")
    result = _cli("terms", BENCH, "--lang", LANG, "--import-tbx", str(out), "--author", "Carla")
    assert result.exit_code == 0, result.output
    logged = {d["source"]: (d["action"], d["author"]) for d in _log(project)}
    assert logged == {
        "The Quiet Harbor": ("approve", "Ana"),
        "Rivers of Memory": ("correct", "Carla"),  # the file names no approver for it
        "Letters in Winter": ("approve", "Bea"),
    }
    again = tmp_path_factory.mktemp("tbx") / "again.tbx"
    assert _cli("terms", BENCH, "--lang", LANG, "--export-tbx", str(again)).exit_code == 0
    approvers = {n.text for n in etree.parse(str(again)).iter("transacNote")}
    assert {"Ana", "Bea", "Carla"} <= approvers


@pytest.mark.parametrize("damage", ["conflict", "empty", "unknown"])
def test_a_bad_tbx_is_refused_whole(project, tmp_path_factory, damage):
    out = tmp_path_factory.mktemp("tbx") / "terms.tbx"
    assert _cli("terms", BENCH, "--lang", LANG, "--export-tbx", str(out)).exit_code == 0
    tree = etree.parse(str(out))
    entries = list(tree.iter("termEntry"))
    entries[0].findall("langSet/tig")[1].find("term").text = "Una corrección válida"  # would apply alone
    if damage == "conflict":  # the same term again with another rendering
        twin = etree.fromstring(etree.tostring(entries[1]))
        twin.findall("langSet/tig")[1].find("term").text = "Otra"
        entries[1].getparent().append(twin)
    elif damage == "empty":
        entries[2].findall("langSet/tig")[1].find("term").text = "  "
    else:
        entries[2].find("langSet/tig/term").text = "A Book We Do Not Have"
    tree.write(str(out), xml_declaration=True, encoding="UTF-8")
    before = _state(project)
    result = _cli("terms", BENCH, "--lang", LANG, "--import-tbx", str(out))
    assert result.exit_code == 2 and "nothing was imported" in result.output and "fix:" in result.output
    assert _state(project) == before and _log(project) == []
