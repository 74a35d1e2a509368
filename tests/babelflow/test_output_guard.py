"""`--out` owns nothing it did not write: sources, code and foreign folders are refused."""

from __future__ import annotations

import os
from pathlib import Path

import orjson
import pytest

from babelflow.errors import BabelflowError
from babelflow.output_guard import check_variant_out, project_code_folders
from babelflow.variant import BUILD_MARK_NAME, MANIFEST_NAME


def _refused(out: Path, match: str, **kwargs) -> str:
    with pytest.raises(BabelflowError, match=match) as caught:
        check_variant_out(out, "tau2-mock", **kwargs)
    text = caught.value.render()
    assert "fix:" in text and caught.value.exit_code == 2
    return text


def test_a_new_or_empty_folder_is_accepted_and_resolved(tmp_path: Path) -> None:
    assert check_variant_out(tmp_path / "new" / "variant", "tau2-mock") == tmp_path / "new" / "variant"
    (tmp_path / "empty" / "sub").mkdir(parents=True)
    (tmp_path / "link").symlink_to(tmp_path / "empty")
    assert check_variant_out(tmp_path / "link", "tau2-mock") == tmp_path / "empty"


def test_a_folder_with_only_a_killed_writers_temp_files_counts_as_empty(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / ".db.json.babelflow-4242-0123abcd.tmp").write_bytes(b"half")
    assert check_variant_out(tmp_path, "tau2-mock") == tmp_path


def test_the_source_folder_its_parent_and_a_link_to_it_are_refused(tmp_path: Path) -> None:
    source = tmp_path / "release" / "data"
    (source / "tau2" / "domains" / "mock").mkdir(parents=True)
    (tmp_path / "alias").symlink_to(source)
    for out in (source, tmp_path / "release", tmp_path / "alias", tmp_path):
        _refused(out, "source folder", sources=[source])
    assert check_variant_out(tmp_path / "elsewhere", "tau2-mock", sources=[source])


def test_installed_packages_and_the_project_code_are_refused_inside_and_around(tmp_path: Path) -> None:
    package = tmp_path / "site-packages" / "tau2"
    (package / "data").mkdir(parents=True)
    for out in (package, package / "data" / "variant", tmp_path / "site-packages"):
        _refused(out, "holds code or data", packages=[package])
    code = project_code_folders()
    assert any(folder.name == "babelflow" for folder in code)
    _refused(code[0] / "variant", "lies inside")
    _refused(code[0].parent, "contains")


def test_a_non_empty_foreign_folder_is_refused(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    assert "not babelflow's" in _refused(tmp_path, "non-empty folder")


def test_a_link_to_a_folder_inside_is_content(tmp_path: Path) -> None:
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "data").symlink_to(tmp_path)
    _refused(tmp_path / "out", "non-empty folder")


def test_a_variant_of_the_same_benchmark_or_its_build_mark_is_accepted(tmp_path: Path) -> None:
    variant = tmp_path / "v"
    variant.mkdir()
    (variant / "db.json").write_text("{}")
    (variant / BUILD_MARK_NAME).write_bytes(orjson.dumps({"benchmark": "tau2-mock", "language": "es"}))
    assert check_variant_out(variant, "tau2-mock") == variant
    with pytest.raises(BabelflowError, match="holds a variant of tau2-mock, not of tau2-retail"):
        check_variant_out(variant, "tau2-retail")


def test_a_damaged_manifest_does_not_make_a_folder_ours(tmp_path: Path) -> None:
    (tmp_path / MANIFEST_NAME).write_bytes(b"{not json")
    _refused(tmp_path, "non-empty folder")


@pytest.mark.parametrize("kind", ["loop", "dangling", "file", "inside a file"])
def test_bad_out_paths_are_errors_not_tracebacks(tmp_path: Path, kind: str) -> None:
    if kind == "loop":
        (tmp_path / "a").symlink_to(tmp_path / "b")
        (tmp_path / "b").symlink_to(tmp_path / "a")
        out, match = tmp_path / "a", "loop"
    elif kind == "dangling":
        (tmp_path / "a").symlink_to(tmp_path / "nowhere")
        out, match = tmp_path / "a", "link to nothing"
    elif kind == "file":
        (tmp_path / "a").write_text("x")
        out, match = tmp_path / "a", "is a file"
    else:
        (tmp_path / "a").write_text("x")
        out, match = tmp_path / "a" / "v", "file"
    _refused(out, match)
    assert os.path.lexists(tmp_path / "a")
