"""A family from outside the repository, found through the `babelflow.families` entry point.

The toy package (tests/data/toy_family/toy_greeter) is installed the way a wheel installs it: the
package and a dist-info folder with `entry_points.txt` on the import path. Nothing in the project
names it; the CLI lists it, replays it with the shared commands, the shared analysis types its
texts, and `adapt`, `validate` and `flow` (the Prefect flow, with the project's own server) run it
like a built-in family. A fourth family is one folder plus one entry-point line."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from babelflow.errors import BabelflowError
from source_benchmarks import registry
from tests.test_architecture import PACKAGES

TOY = Path(__file__).resolve().parents[1] / "data" / "toy_family" / "toy_greeter"
PROJECT = Path(__file__).resolve().parents[2]


def install_toy(site: Path, value: str = "toy_greeter:FAMILY") -> Path:
    shutil.copytree(TOY, site / "toy_greeter")
    info = site / "toy_greeter-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toy-greeter\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[babelflow.families]\ntoy = {value}\n")
    return site


def babelflow(site: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess:
    env = {
        # the project's own server, never one another test's process pointed this one at
        **{k: v for k, v in os.environ.items() if k not in ("PREFECT_API_URL", "PREFECT_API_AUTH_STRING")},
        "PYTHONPATH": os.pathsep.join([str(site), str(PROJECT)]),
        "DO_NOT_TRACK": "1",
        "NO_COLOR": "1",
        "COLUMNS": "200",
    }
    return subprocess.run(
        [sys.executable, "-m", "flows.cli.app", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=600
    )


def test_no_engine_module_names_it():
    named = [
        str(path.relative_to(PROJECT))
        for package in PACKAGES
        for path in sorted((PROJECT / package).rglob("*.py"))
        if "toy" in path.read_text(encoding="utf-8").lower()
    ]
    assert named == []


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    return install_toy(tmp_path_factory.mktemp("site"))


def test_the_installed_family_is_listed(site, tmp_path):
    run = babelflow(site, tmp_path, "families")
    assert run.returncode == 0, run.stderr
    out = run.stdout + run.stderr
    assert "toy-greeter" in out and "installed from outside babelflow" in out
    assert "tau2-retail" in out and "agentdojo-travel" in out  # the built-in families beside it


def test_the_shared_replay_command_runs_it(site, tmp_path):
    run = babelflow(site, tmp_path, "replay", "toy-greeter")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "2 tasks" in run.stdout + run.stderr


def test_the_shared_analysis_types_its_texts(site, tmp_path):
    out = tmp_path / "ir.json"
    run = babelflow(site, tmp_path, "analyze", "toy-greeter", "--no-profile", "--out", str(out))
    assert run.returncode == 0, run.stdout + run.stderr
    ir = orjson.loads(out.read_bytes())
    assert ir["benchmark"] == "toy-greeter"
    by_text = {e["source_text"]: e for e in ir["elements"]}
    # the golden call read the greeting ids and the evaluator compared the texts: kept as they are
    assert by_text["g1"]["translation_type"] == "preserve"
    assert "Greet every visitor" in " ".join(by_text)  # the policy's prose is inventoried


def _tasks(variant: Path) -> list[dict]:
    return orjson.loads((variant / "data" / "tasks.json").read_bytes())


def test_adapt_and_validate_run_it_from_its_own_profile(site, tmp_path):
    """Its profile ships in its package (family.profile_choice); the shared replay of the variant shows
    a broken expected answer as a behaviour finding."""
    run = babelflow(site, tmp_path, "adapt", "toy-greeter", "--lang", "en-XA")
    assert run.returncode == 0, run.stdout + run.stderr
    variant = tmp_path / "adapted" / "toy-greeter" / "en-XA"
    tasks = _tasks(variant)
    assert [t["id"] for t in tasks] == ["t1", "t2"] and tasks[0]["action"]["name"] == "get_greeting"  # preserved
    greetings = orjson.loads((variant / "data" / "db.json").read_bytes())["greetings"]
    assert tasks[0]["expected"] == greetings["g1"]["text"] != "Hello there, how can I help you?"  # one rendering

    clean = babelflow(site, tmp_path, "validate", "toy-greeter", "--lang", "en-XA")
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert "0 finding group(s)" in clean.stdout

    tasks[0]["expected"] = "Hola"  # the answer the greeting book no longer gives
    (variant / "data" / "tasks.json").write_bytes(orjson.dumps(tasks))
    broken = babelflow(site, tmp_path, "validate", "toy-greeter", "--lang", "en-XA")
    assert broken.returncode == 1, broken.stdout + broken.stderr  # a critical finding blocks
    assert "golden_reward_changed" in broken.stdout and "golden replay reward 1.0 -> 0.0" in broken.stdout


@pytest.mark.slow
def test_the_prefect_flow_runs_it(site, tmp_path):
    try:
        run = babelflow(site, tmp_path, "flow", "toy-greeter", "--lang", "en-XA")
        assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-4000:]
        assert "Beginning flow run 'toy-greeter · en-XA'" in run.stdout + run.stderr
        assert "next (en-XA): read the sample and sign: babelflow review toy-greeter --lang en-XA --sign" in run.stdout
        assert (tmp_path / "adapted" / "toy-greeter" / "en-XA" / "babelflow_manifest.json").exists()
    finally:
        babelflow(site, tmp_path, "server", "--stop")


def test_an_unknown_id_lists_the_installed_ones(site, tmp_path):
    run = babelflow(site, tmp_path, "replay", "toy-nothing")
    assert run.returncode == 2
    assert "toy-greeter" in run.stdout + run.stderr and "Traceback" not in run.stderr


def test_a_broken_plug_in_names_itself(tmp_path, monkeypatch):
    site = install_toy(tmp_path, value="toy_greeter:NOT_THERE")
    monkeypatch.syspath_prepend(str(site))
    try:
        with pytest.raises(BabelflowError) as caught:
            registry.reload_families()
        assert "toy" in str(caught.value) and "NOT_THERE" in caught.value.field
    finally:
        monkeypatch.undo()
        registry.reload_families()
