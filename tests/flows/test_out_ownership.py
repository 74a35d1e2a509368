"""`adapt --out` owns only what it writes: sources and foreign folders are refused before any work,
the output folder is locked for the whole run, and a rebuild deletes no user file."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import orjson
import pytest

from babelflow.adapt_request import AdaptRequest
from babelflow.errors import BabelflowError
from babelflow.run_lock import output_lock
from babelflow.settings import BabelflowSettings
from babelflow.variant import BUILD_MARK_NAME, MANIFEST_NAME
from source_benchmarks import get_benchmark

BENCH = "fixture-library"


def _adapt(root: Path, out: Path | None, language: str = "en-XA", **kwargs):
    from flows.pipeline.adapt import adapt

    return adapt(
        AdaptRequest.of_options(BENCH, language, out=out), settings=BabelflowSettings(project_root=root), **kwargs
    )


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_a_variant_is_written_owned_and_rewritten(tmp_path: Path) -> None:
    out = tmp_path / "variant"
    first = _adapt(tmp_path, out)
    # the build mark goes once the manifest is there
    assert (out / MANIFEST_NAME).exists() and not (out / BUILD_MARK_NAME).exists()
    (out / "README.mine").write_text("the harness team's notes")
    second = _adapt(tmp_path, out)  # babelflow's own folder (same benchmark's manifest): written again
    assert second.manifest == first.manifest
    assert (out / "README.mine").read_text() == "the harness team's notes"


def test_the_fixture_source_folder_and_its_parent_are_refused_before_any_work(tmp_path: Path) -> None:
    root = Path(get_benchmark(BENCH).root)
    before = _files(root)
    for out in (root, root.parent, root / "variant"):
        with pytest.raises(BabelflowError, match="holds code or data") as caught:
            _adapt(tmp_path, out)
        assert caught.value.field == "--out"
    assert _files(root) == before
    assert not (tmp_path / ".babelflow" / "ir").exists()  # refused before the analysis


def test_a_foreign_non_empty_folder_is_refused_and_untouched(tmp_path: Path) -> None:
    out = tmp_path / "mine"
    (out / "data").mkdir(parents=True)
    (out / "data" / "notes.json").write_text('{"mine": 1}')
    with pytest.raises(BabelflowError, match="non-empty folder"):
        _adapt(tmp_path, out)
    assert _files(out) == {"data/notes.json": b'{"mine": 1}'}


def test_a_first_rebuild_killed_mid_way_is_resumed(tmp_path: Path) -> None:
    """A folder a killed first rebuild left (build mark, some files, no manifest) is still ours."""
    out = tmp_path / "variant"
    reference = _files(_adapt(tmp_path / "a", tmp_path / "a" / "v").paths.variant)
    out.mkdir()
    (out / BUILD_MARK_NAME).write_bytes(orjson.dumps({"benchmark": BENCH, "language": "en-XA"}))
    (out / "half.json").write_text("{")  # a file of the killed run (kept: the variant does not own that name)
    (out / f".x.babelflow-{2**22 + 7}-0123abcd.tmp").write_text("half")  # a dead writer's temp file
    _adapt(tmp_path, out)
    assert {k: v for k, v in _files(out).items() if k != "half.json"} == reference


def test_a_link_inside_the_variant_cannot_carry_writes_out(tmp_path: Path) -> None:
    out = tmp_path / "variant"
    _adapt(tmp_path, out)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    folder = next(p for p in out.rglob("*") if p.is_dir())
    os.rename(folder, tmp_path / "moved")
    folder.symlink_to(elsewhere)
    (out / MANIFEST_NAME).unlink()  # force every file to be written again
    (out / BUILD_MARK_NAME).write_bytes(orjson.dumps({"benchmark": BENCH, "language": "en-XA"}))
    with pytest.raises(BabelflowError, match="link out of it"):
        _adapt(tmp_path, out)
    assert list(elsewhere.iterdir()) == []


def test_two_languages_into_one_out_the_second_is_refused(tmp_path: Path) -> None:
    """The lock is keyed by the resolved folder: a symlinked spelling of it is the same folder."""
    settings = BabelflowSettings(project_root=tmp_path)
    out = tmp_path / "shared"
    out.mkdir()
    (tmp_path / "alias").symlink_to(out)
    held, release = threading.Event(), threading.Event()

    def first() -> None:
        with output_lock(settings.layout.locks(), out, f"{BENCH} en-XA"):
            held.set()
            release.wait(30)

    thread = threading.Thread(target=first)
    thread.start()
    try:
        assert held.wait(30)
        with pytest.raises(BabelflowError, match="in use") as caught:
            _adapt(tmp_path, tmp_path / "alias", "ar-XB")
        text = caught.value.render()
        assert str(out) in text and f"{BENCH} en-XA (pid {os.getpid()})" in text and "fix:" in text
        assert list(out.iterdir()) == []
    finally:
        release.set()
        thread.join()
    assert _adapt(tmp_path, out, "ar-XB").manifest.language == "ar-XB"  # released: the folder is free again
