"""`babelflow analyze` keeps its IR in the state folder and reuses it only when nothing it depends on changed:
the analyzer, the source files, the harness and the profile (issue 26: warm analysis in seconds)."""

from __future__ import annotations

from pathlib import Path

import orjson
from typer.testing import CliRunner

from flows.cli.app import app

BENCHMARK = "fixture-library"
REUSED = "IR unchanged"


def _analyze(project: Path, out: Path, *extra: str) -> str:
    result = CliRunner().invoke(
        app,
        ["analyze", BENCHMARK, "--out", str(out), *extra],
        env={
            "BABELFLOW_PROJECT_ROOT": str(project),
            "BABELFLOW_STATE_DIR": "",  # empty is the default, <project>/.babelflow
            "COLUMNS": "200",
        },
    )
    assert result.exit_code == 0, result.output
    return result.output


def test_a_rerun_reuses_the_saved_ir_and_any_changed_input_analyses_again(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    first = _analyze(project, tmp_path / "first.json")
    assert REUSED not in first
    saved = project / ".babelflow" / "ir" / f"{BENCHMARK}.json"
    assert saved.read_bytes() == (tmp_path / "first.json").read_bytes()

    second = _analyze(project, tmp_path / "second.json")
    assert REUSED in second
    assert (tmp_path / "second.json").read_bytes() == (tmp_path / "first.json").read_bytes()

    assert REUSED not in _analyze(project, tmp_path / "forced.json", "--reanalyze")
    assert (tmp_path / "forced.json").read_bytes() == (tmp_path / "first.json").read_bytes()

    # an IR another analyzer wrote, or one made against another harness, is never reused
    for field, value in (("analyzer_version", "0-older"), ("source_version", "another-harness")):
        document = orjson.loads(saved.read_bytes())
        document[field] = value
        saved.write_bytes(orjson.dumps(document))
        assert REUSED not in _analyze(project, tmp_path / f"after-{field}.json")
        assert (tmp_path / f"after-{field}.json").read_bytes() == (tmp_path / "first.json").read_bytes()


def test_a_profile_change_analyses_again_and_no_profile_leaves_the_saved_ir_alone(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    _analyze(project, tmp_path / "first.json")
    saved = project / ".babelflow" / "ir" / f"{BENCHMARK}.json"
    before = saved.read_bytes()

    no_profile = _analyze(project, tmp_path / "bare.json", "--no-profile")
    assert REUSED not in no_profile
    assert saved.read_bytes() == before  # a one-off typing without reviewed rules is not what `flow` reuses

    from analyzers.profile import load_profile  # noqa: PLC0415 - the packaged profile's own file

    packaged = load_profile(BENCHMARK).sources[0]
    edited = tmp_path / "profile.toml"
    edited.write_text(Path(packaged).read_text() + "\n# reviewed again\n")
    assert REUSED not in _analyze(project, tmp_path / "edited.json", "--profile", str(edited))
    assert (
        orjson.loads((tmp_path / "edited.json").read_bytes())["profile_sha256"]
        != orjson.loads(before)["profile_sha256"]
    )


def test_two_languages_of_one_flow_analyse_their_benchmark_once(tmp_path, monkeypatch):
    """The languages of `flow --lang es --lang en-XA` start together: the second waits for the first
    one's IR instead of replaying the benchmark a second time at once."""
    import threading  # noqa: PLC0415

    import flows.components as components  # noqa: PLC0415
    from source_benchmarks import get_benchmark  # noqa: PLC0415

    real = components.analyze_benchmark
    calls: list[str] = []

    def counted(bench, profile, progress=None):
        calls.append(bench.id)
        return real(bench, profile, progress=progress)

    monkeypatch.setattr(components, "analyze_benchmark", counted)
    ir_path = tmp_path / "state" / "ir" / f"{BENCHMARK}.json"
    results: list = []
    threads = [
        threading.Thread(
            target=lambda: results.append(
                components.analyze_or_reuse(get_benchmark(BENCHMARK), None, ir_path, lambda m: None)
            )
        )
        for _ in range(2)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert calls == [BENCHMARK]
    assert len(results) == 2 and results[0].content_sha256() == results[1].content_sha256()
