"""The independent τ³ check (bench/tau3_independent_check.py): its comparison rules here, in the
project's interpreter (the module imports no τ³ and no babelflow at the top), and a run on small
mock variants in τ³'s own interpreter (skipped when τ³ is not installed)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from bench.tau3_independent_check import compare_output, main

ROOT = Path(__file__).resolve().parents[2]
TAU3_PYTHON = ROOT / ".venv-tau3" / "bin" / "python"
TAU3_RECORD = ROOT / ".venv-tau3" / "babelflow-tau3.json"
SCRIPT = ROOT / "bench" / "tau3_independent_check.py"

OPENED = (
    "Bank account opened successfully!\n  - Account ID: 4d880a1fa314e3b3\n  - Account Class: Silver Plus Account\n"
    "  - Initial Balance: $0.00\n  - Date Opened: 11/14/2025"
)


def test_translated_strings_agree_numbers_ids_and_booleans_do_not() -> None:
    assert (
        compare_output(
            json.dumps({"title": "Test task", "done": False, "n": 2}),
            json.dumps({"title": "Tarea", "done": False, "n": 2}),
            {},
        )
        == []
    )
    assert compare_output(json.dumps({"n": 2}), json.dumps({"n": 3}), {})
    assert compare_output(json.dumps({"done": False}), json.dumps({"done": 0}), {})
    assert compare_output(json.dumps({"a": [1, 2]}), json.dumps({"a": [1]}), {})
    assert compare_output(json.dumps({"note": "3 items"}), json.dumps({"note": "4 artículos"}), {})
    assert compare_output(OPENED, OPENED.replace("Silver Plus Account", "Cuenta Plata Plus"), {}) == []
    assert compare_output(OPENED, OPENED.replace("4d880a1fa314e3b3", "836250f2861eddf6"), {})  # a seeded id changed
    assert compare_output(OPENED, OPENED.replace("$0.00", "$35.00"), {})
    assert compare_output(OPENED, "Error: Account eligibility requirements not met.", {})


def test_a_name_the_canonical_map_gives_must_read_as_rendered() -> None:
    names = {"Silver Plus Account": ["Cuenta Plata Plus"]}
    assert compare_output(OPENED, OPENED.replace("Silver Plus Account", "Cuenta Plata Plus"), names) == []
    assert compare_output(OPENED, OPENED.replace("Silver Plus Account", "Cuenta Plateada"), names)
    assert compare_output(json.dumps({"level": "Silver Plus Account"}), json.dumps({"level": "Cuenta Plateada"}), names)
    # json.dumps writes non-ASCII as \\u escapes: a rendering is recognised in that form too
    assert (
        compare_output(
            json.dumps([OPENED]), json.dumps([OPENED.replace("Silver Plus Account", "Cuenta Plata Plus")]), names
        )
        == []
    )


def test_a_variant_of_the_other_tau_line_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    variant = tmp_path / "adapted" / "tau2-retail" / "es"
    (variant / "data" / "tau2" / "domains" / "retail").mkdir(parents=True)
    (variant / "babelflow_manifest.json").write_text('{"benchmark": "tau2-retail", "language": "es"}', encoding="utf-8")
    assert main([str(variant), "--source", str(tmp_path)]) == 2
    assert "tau2-retail" in capsys.readouterr().err


def _variant(tmp_path: Path, name: str, edit) -> Path:
    """A mock variant holding only its two data files, `edit`ed (a dict of file -> text change)."""
    data_dir = Path(json.loads(TAU3_RECORD.read_text(encoding="utf-8"))["data_dir"])
    variant = tmp_path / "adapted" / "tau3-mock" / name
    domain = variant / "data" / "tau2" / "domains" / "mock"
    domain.mkdir(parents=True)
    for file in ("db.json", "tasks.json"):
        shutil.copy(data_dir / "tau2" / "domains" / "mock" / file, domain / file)
    for file, (old, new) in edit.items():
        text = (domain / file).read_text(encoding="utf-8")
        assert old in text
        (domain / file).write_text(text.replace(old, new), encoding="utf-8")
    (variant / "babelflow_manifest.json").write_text(
        json.dumps({"benchmark": "tau3-mock", "language": name}), encoding="utf-8"
    )
    return variant


def _check(variant: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(TAU3_PYTHON), str(SCRIPT), str(variant), "--show", "differ", *extra],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
    )


@pytest.mark.slow
@pytest.mark.skipif(not TAU3_RECORD.is_file(), reason="τ³ not installed: bash scripts/install.sh --tau3")
def test_on_small_mock_variants(tmp_path: Path) -> None:
    translated = _check(_variant(tmp_path, "es", {"db.json": ('"Test task"', '"Tarea de prueba"')}))
    assert translated.returncode == 0, translated.stdout + translated.stderr
    assert "10/10 tasks agree" in translated.stdout
    # a user's key renamed in the DB only: the gold calls fail where they looked the user up
    renamed = _check(_variant(tmp_path, "en-XA", {"db.json": ('"user_1": {', '"ûšéŕ_1": {')}))
    assert renamed.returncode == 1, renamed.stdout + renamed.stderr
    assert "error_flags" in renamed.stdout or "output" in renamed.stdout
    cmap = tmp_path / "map.json"
    cmap.write_text(
        json.dumps(
            {
                "benchmark": "tau3-mock",
                "language": "es-419",
                "entries": [{"group": "title", "source": "Test task", "target": "Tarea de test", "origin": "reviewer"}],
            }
        ),
        encoding="utf-8",
    )
    other = _check(
        _variant(tmp_path, "es-419", {"db.json": ('"Test task"', '"Tarea de prueba"')}), "--canonical-map", str(cmap)
    )
    assert other.returncode == 1 and "the canonical map says" in other.stdout, other.stdout + other.stderr
