"""rebuild_variant deletes only its own writers' temp files and checks its folder itself."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from babelflow.errors import BabelflowError
from babelflow.variant import VariantBuild
from source_benchmarks import get_benchmark
from translators.rebuild import rebuild_variant, source_folders


def _rebuild(bench, ir, out: Path):
    return rebuild_variant(
        bench,
        ir,
        {},
        out,
        VariantBuild(
            language="en-XA", domain_name="library_en-XA", canonical_map_version="v", translator_id="t", failed_units=0
        ),
    )


@pytest.fixture
def fixture_bench_ir(analyzed):
    return get_benchmark("fixture-library"), analyzed("fixture-library")


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_user_tmp_files_survive_a_rebuild_a_dead_writers_do_not(tmp_path: Path, fixture_bench_ir) -> None:
    bench, ir = fixture_bench_ir
    manifest = _rebuild(bench, ir, tmp_path)
    folder = (tmp_path / manifest.outputs[0].path).parent
    users = [tmp_path / "notes.tmp", tmp_path / ".x.tmp", folder / ".books.json.4f2a.tmp"]
    for path in users:
        path.write_text("mine")
    stale = folder / f".books.json.babelflow-{_dead_pid()}-0123abcd.tmp"
    stale.write_text("half")
    _rebuild(bench, ir, tmp_path)
    assert all(p.read_text() == "mine" for p in users) and not stale.exists()


def test_rebuild_refuses_the_source_itself(tmp_path: Path, fixture_bench_ir) -> None:
    bench, ir = fixture_bench_ir
    sources, packages = source_folders(bench)
    assert Path(bench.root) in packages and all(s.is_dir() for s in sources)
    with pytest.raises(BabelflowError, match="--out"):
        _rebuild(bench, ir, Path(bench.root))
