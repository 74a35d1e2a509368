"""`--source-dir` is confined to its folder (issue 28, item 10): a file reached through a symlink
that resolves outside it is refused with the file and the fix, and never read into the IR."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from babelflow.errors import BabelflowError
from source_benchmarks import get_benchmark
from source_benchmarks.fixture.adapter import FIXTURE_ROOT
from source_benchmarks.formats import confined_file

SECRET = "root:x:0:0:do-not-read-me:/root:/bin/bash\n"


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    secret = tmp_path / "outside" / "passwd"
    secret.parent.mkdir()
    secret.write_text(SECRET)
    return secret


def _fixture_copy(tmp_path: Path) -> Path:
    source = tmp_path / "src"
    shutil.copytree(FIXTURE_ROOT, source)
    return source.resolve()


def test_confined_file_accepts_files_and_links_that_stay_inside(tmp_path: Path) -> None:
    root = _fixture_copy(tmp_path)
    (root / "data" / "policy-link.md").symlink_to(root / "data" / "policy.md")
    assert confined_file(root, "data/policy.md") == root / "data" / "policy.md"
    assert confined_file(root, "data/policy-link.md") == root / "data" / "policy-link.md"
    assert confined_file(root, "data/missing.md") is None


@pytest.mark.parametrize("how", ["file link", "folder link", "dangling link", "link loop"])
def test_links_out_of_the_folder_are_refused(tmp_path: Path, outside: Path, how: str) -> None:
    root = _fixture_copy(tmp_path)
    policy = root / "data" / "policy.md"
    if how == "file link":
        policy.unlink()
        policy.symlink_to(outside)
    elif how == "folder link":  # data/ itself points elsewhere: every file in it leaves the folder
        real = tmp_path / "outside" / "data"
        shutil.move(root / "data", real)
        (root / "data").symlink_to(real)
    elif how == "dangling link":
        policy.unlink()
        policy.symlink_to(tmp_path / "nowhere.md")
    else:
        policy.unlink()
        policy.symlink_to(root / "data" / "policy.md")
    with pytest.raises(BabelflowError) as raised:
        confined_file(root, "data/policy.md")
    message = raised.value.render()
    assert "policy.md" in message and "--source-dir" in message and "fix:" in message


def test_fixture_benchmark_never_reads_a_linked_file(tmp_path: Path, outside: Path) -> None:
    root = _fixture_copy(tmp_path)
    (root / "data" / "policy.md").unlink()
    (root / "data" / "policy.md").symlink_to(outside)
    bench = get_benchmark("fixture-library", source_dir=root)
    with pytest.raises(BabelflowError, match="outside"):
        bench.fingerprints()
    spec = next(s for s in bench.artifacts() if s.path.endswith("policy.md"))
    with pytest.raises(BabelflowError, match="outside"):
        bench.load_artifact(spec)


def test_analyze_with_a_link_to_etc_passwd_exits_2_and_writes_nothing(tmp_path: Path, outside: Path) -> None:
    """The issue's case through the CLI, on tau2-mock (refused while loading, before any replay)."""
    import tau2

    from flows.cli.app import app

    src = tmp_path / "tau2-src"
    shutil.copytree(
        Path(tau2.__file__).parent / "data" / "tau2" / "domains" / "mock", src / "tau2" / "domains" / "mock"
    )
    policy = src / "tau2" / "domains" / "mock" / "policy.md"
    policy.unlink()
    policy.symlink_to(outside)
    out = tmp_path / "ir.json"
    result = CliRunner().invoke(
        app,
        ["analyze", "tau2-mock", "--out", str(out), "--source-dir", str(src)],
        env={"BABELFLOW_PROJECT_ROOT": str(tmp_path / "project"), "COLUMNS": "300"},
    )
    assert result.exit_code == 2, result.output
    assert "policy.md" in result.output and "fix:" in result.output and "Traceback" not in result.output
    assert "do-not-read-me" not in result.output
    assert not out.exists()
