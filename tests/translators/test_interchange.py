"""XLIFF 1.2 / PO export and import with translate-toolkit: protections, checks, round trips.

The all-or-nothing import cases are in tests/flows/test_import_all_or_nothing.py."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from lxml import etree

from babelflow.adapt_request import AdaptRequest
from babelflow.settings import BabelflowSettings

REPO = Path(__file__).resolve().parents[2]
SCHEMA = REPO / ".babelflow" / "schemas" / "xliff-core-1.2-strict.xsd"


def _schema() -> etree.XMLSchema:
    assert SCHEMA.exists(), "run scripts/fetch_xliff_schema.sh (CI does) to get the official XLIFF 1.2 schema"
    xsd = etree.parse(str(SCHEMA))
    for node in xsd.getroot().iter("{http://www.w3.org/2001/XMLSchema}import"):
        if node.get("schemaLocation", "").endswith("xml.xsd"):
            node.set("schemaLocation", str(SCHEMA.parent / "xml.xsd"))  # never fetch from the web
    return etree.XMLSchema(xsd)


@pytest.fixture
def project(tmp_path, monkeypatch, analyzed):
    from flows.pipeline.adapt import adapt

    monkeypatch.setenv("BABELFLOW_PROJECT_ROOT", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    from babelflow.ir import save_ir

    settings = BabelflowSettings(project_root=tmp_path)
    save_ir(analyzed("fixture-library"), settings.layout.ir("fixture-library"))
    adapt(AdaptRequest.of_options("fixture-library", "en-XA"), settings=settings)
    return tmp_path


def _cli(*args):
    from typer.testing import CliRunner

    from flows.cli.app import app

    return CliRunner().invoke(app, list(args))


def _variant_files(root: Path) -> dict[str, bytes]:
    base = root / "adapted" / "fixture-library" / "en-XA"
    return {
        str(p.relative_to(base)): p.read_bytes()
        for p in base.rglob("*")
        if p.is_file() and p.name != "babelflow_manifest.json"
    }


def test_xliff_export_validates_against_the_official_schema(project):
    out = project / "fx.xlf"
    assert _cli("export", "fixture-library", "--lang", "en-XA", "--format", "xliff", "--out", str(out)).exit_code == 0
    schema = _schema()
    document = etree.parse(str(out))
    assert schema.validate(document), schema.error_log
    assert document.getroot().get("version") == "1.2"
    assert document.getroot().findall(".//{urn:oasis:names:tc:xliff:document:1.2}ph")  # inline codes


@pytest.mark.parametrize("fmt,suffix", [("xliff", "xlf"), ("po", "po")])
def test_untouched_round_trip_changes_nothing(project, fmt, suffix):
    before = _variant_files(project)
    out = project / f"fx.{suffix}"
    assert _cli("export", "fixture-library", "--lang", "en-XA", "--format", fmt, "--out", str(out)).exit_code == 0
    result = _cli("import", "fixture-library", str(out), "--lang", "en-XA")
    assert result.exit_code == 0, result.output
    assert _variant_files(project) == before


def test_three_edited_segments_change_exactly_their_fields(project):
    from translate.storage import xliff

    out = project / "fx.xlf"
    _cli("export", "fixture-library", "--lang", "en-XA", "--format", "xliff", "--out", str(out))
    store = xliff.xlifffile.parsestring(out.read_bytes())
    ph = "{urn:oasis:names:tc:xliff:document:1.2}ph"
    edited = [u for u in store.units if u.target and u.xmlelement.find(f".//{ph}") is None and len(u.source) > 30][:3]
    assert len(edited) == 3
    for unit in edited:  # a translator's edit in their own tool (translate-toolkit here)
        unit.target = "REVISED " + unit.target
    out.write_bytes(bytes(store))
    before = _variant_files(project)
    result = _cli("import", "fixture-library", str(out), "--lang", "en-XA")
    assert result.exit_code == 0, result.output
    after = _variant_files(project)
    assert after.keys() == before.keys()
    revised = sum(data.decode("utf-8").count("REVISED ") for data in after.values())
    assert revised >= 3  # each edited unit lands in every field that shares its text
    for name, data in after.items():  # and nothing else changed anywhere in the variant
        assert data.decode("utf-8").replace("REVISED ", "") == before[name].decode("utf-8"), name


def test_broken_inline_code_refuses_the_whole_import(project):
    out = project / "fx.xlf"
    _cli("export", "fixture-library", "--lang", "en-XA", "--format", "xliff", "--out", str(out))
    text = out.read_text(encoding="utf-8")
    target_with_code = re.search(r"<target[^>]*>[^<]*<ph id=\"0\">[^<]*</ph>", text).group(0)
    text = text.replace(target_with_code, re.sub(r"<ph id=\"0\">[^<]*</ph>", "", target_with_code), 1)
    text = text.replace("</target>", " REVISED</target>", 3)  # good edits elsewhere are not imported either
    out.write_text(text, encoding="utf-8")
    before = _variant_files(project)
    result = _cli("import", "fixture-library", str(out), "--lang", "en-XA")
    assert result.exit_code == 2, result.output
    assert "missing" in result.output and "nothing was written" in result.output and "fix:" in result.output
    assert _variant_files(project) == before
    assert not (project / ".babelflow" / "runs" / "fixture-library" / "en-XA" / "reviewed_translations.json").exists()
