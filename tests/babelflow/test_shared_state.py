"""Shared state (issue 29): two projects exchange a run's slice through the stores; writes are
compare-and-swap; run locks refuse a live holder and die with a killed one; S3 through a moto server."""

from __future__ import annotations

import os
import signal
import socket
import time
from pathlib import Path

import pytest

from babelflow.errors import BabelflowError
from babelflow.settings import BabelflowSettings
from babelflow.shared_state.config import shared_config
from babelflow.shared_state.documents import LocalDocumentStore, VersionConflict
from babelflow.shared_state.objects import LocalObjectStore, S3ObjectStore
from babelflow.shared_state.sync import RunScope, StateSync


def _sync(project: Path, shared: Path) -> StateSync:
    layout = BabelflowSettings(project_root=project).layout
    return StateSync(
        layout, LocalObjectStore(shared), LocalDocumentStore(shared / "_documents"), RunScope("tau2-mock", "es")
    )


def test_a_run_slice_moves_between_two_projects(tmp_path: Path) -> None:
    shared, one, two = tmp_path / "shared", tmp_path / "one", tmp_path / "two"
    writer = _sync(one, shared)
    writer.pull()
    files = {
        ".babelflow/ir/tau2-mock.json": b'{"ir": 1}',
        ".babelflow/tm/tau2-mock/es/apertium.jsonl": b'{"s": "a"}\n',
        ".babelflow/review/tau2-mock/es/decisions.jsonl": b'{"d": 1}\n',
        ".babelflow/runs/tau2-mock/es/targets.json": b"{}",
        "adapted/tau2-mock/es/tasks.json": b"[]",
        "adapted/tau2-mock/es.evaluation.json": b"{}",
        "canonical_maps/tau2-mock/es.json": b"{}",
        ".babelflow/runs/tau2-mock/ar-XB/targets.json": b"other language",  # not this run's
    }
    for name, data in files.items():
        (one / name).parent.mkdir(parents=True, exist_ok=True)
        (one / name).write_bytes(data)
    pushed = writer.push()
    assert ".babelflow" not in " ".join(pushed.pushed)  # keys name roots, not the worker's folders
    assert "state/runs/tau2-mock/ar-XB/targets.json" not in pushed.pushed
    reader = _sync(two, shared)
    pulled = reader.pull()
    assert len(pulled.pulled) == 7
    for name, data in files.items():
        if "ar-XB" not in name:
            assert (two / name).read_bytes() == data
    assert not (two / ".babelflow/runs/tau2-mock/ar-XB").exists()
    # the second project's run deletes a file and changes another: the first sees both after its pull
    (two / "adapted/tau2-mock/es/tasks.json").write_bytes(b"[1]")
    (two / ".babelflow/runs/tau2-mock/es/targets.json").unlink()
    assert reader.push().deleted == ["state/runs/tau2-mock/es/targets.json"]
    again = _sync(tmp_path / "three", shared)
    again.pull()
    assert (tmp_path / "three/adapted/tau2-mock/es/tasks.json").read_bytes() == b"[1]"
    assert not (tmp_path / "three/.babelflow/runs/tau2-mock/es/targets.json").exists()


def test_concurrent_writers_never_lose_a_write(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    log = ".babelflow/review/tau2-mock/es/decisions.jsonl"
    cmap = "canonical_maps/tau2-mock/es.json"
    first, second = _sync(tmp_path / "a", shared), _sync(tmp_path / "b", shared)
    first.pull(), second.pull()
    for project, line in ((tmp_path / "a", b'{"d": "a"}\n'), (tmp_path / "b", b'{"d": "b"}\n')):
        (project / log).parent.mkdir(parents=True)
        (project / log).write_bytes(line)
    first.push()
    merged = second.push()  # it read version 0; the log merges: both decisions kept
    assert merged.merged == ["state/review/tau2-mock/es/decisions.jsonl"]
    assert (tmp_path / "b" / log).read_bytes() == b'{"d": "a"}\n{"d": "b"}\n'
    # the same bytes written by two runs are no conflict (a benchmark's profile overrides, per language run)
    overrides = ".babelflow/review/tau2-mock/profile_overrides.json"
    for project in (tmp_path / "a", tmp_path / "b"):
        (project / overrides).write_bytes(b"[]")
    first.push()
    assert second.push().merged == []
    # any other document (a canonical map) is refused rather than overwritten
    for project in (tmp_path / "a", tmp_path / "b"):
        (project / cmap).parent.mkdir(parents=True)
        (project / cmap).write_bytes(project.name.encode())
    first.push()
    with pytest.raises(VersionConflict):
        second.push()
    store = LocalDocumentStore(shared / "_documents")
    assert store.read("canonical_maps/tau2-mock/es.json").body == b"a"  # type: ignore[union-attr]


def test_run_lock_refuses_a_live_holder_and_dies_with_a_killed_one(tmp_path: Path) -> None:
    store = LocalDocumentStore(tmp_path)
    child = os.fork()
    if child == 0:  # the holder: takes the lock and waits to be killed
        with store.lock("run:tau2-mock:es", "host:1 run-a"):
            time.sleep(60)
        os._exit(0)
    try:
        deadline = time.monotonic() + 10
        while (held := store.holder("run:tau2-mock:es")) is None or not held.alive:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        with pytest.raises(BabelflowError, match="held by host:1 run-a"), store.lock("run:tau2-mock:es", "b"):
            pass
    finally:
        os.kill(child, signal.SIGKILL)
        os.waitpid(child, 0)
    dead = store.holder("run:tau2-mock:es")
    assert dead is not None and not dead.alive and dead.holder == "host:1 run-a"  # who died holding it
    with store.lock("run:tau2-mock:es", "b"):
        assert store.holder("run:tau2-mock:es").alive  # type: ignore[union-attr]


def test_configuration_is_local_unless_set() -> None:
    assert shared_config({}) is None
    config = shared_config({"BABELFLOW_SHARED_OBJECTS": "s3://b/p", "BABELFLOW_SHARED_DATABASE": "postgresql://x"})
    assert config is not None and config.is_s3 and config.namespace == "s3://b/p"
    with pytest.raises(BabelflowError, match="postgresql"):
        shared_config({"BABELFLOW_SHARED_OBJECTS": "s3://b/p", "BABELFLOW_SHARED_DATABASE": "mysql://x"})
    with pytest.raises(BabelflowError):
        shared_config({"BABELFLOW_SHARED_DATABASE": "postgresql://x"})


def test_s3_objects_on_a_moto_server(monkeypatch: pytest.MonkeyPatch) -> None:
    server_module = pytest.importorskip("moto.server")
    pytest.importorskip("s3fs")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(name, "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    server = server_module.ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    try:
        store = S3ObjectStore("s3://bucket/state", endpoint_url=f"http://127.0.0.1:{port}")
        store.ensure_bucket()
        assert store.get("adapted/x.json") is None
        store.put("adapted/x.json", b"\x00bytes")
        store.put("_index/x.json", b"{}")
        assert store.get("adapted/x.json") == b"\x00bytes"
        assert store.keys("adapted/") == ["adapted/x.json"]
        store.delete("adapted/x.json")
        assert store.keys() == ["_index/x.json"]
        with pytest.raises(BabelflowError):
            store.put("../escape", b"")
    finally:
        server.stop()


def test_a_reviewer_command_runs_on_the_shared_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`python -m flows.pipeline.shared_run B --lang L -- CMD`: what CMD writes (a decision) reaches the store, and
    the next command elsewhere finds it in its own folder."""
    import sys  # noqa: PLC0415

    from flows.pipeline.shared_run import run_with_shared_state  # noqa: PLC0415

    monkeypatch.setenv("BABELFLOW_SHARED_OBJECTS", str(tmp_path / "shared"))
    monkeypatch.delenv("BABELFLOW_SHARED_DATABASE", raising=False)
    log = Path(".babelflow/review/tau2-mock/es/decisions.jsonl")
    write = f"import pathlib; p = pathlib.Path({str(log)!r}); p.parent.mkdir(parents=True); p.write_text('d1\\n')"
    for project in ("reviewer", "worker"):
        (tmp_path / project).mkdir()
    monkeypatch.chdir(tmp_path / "reviewer")
    reviewer = BabelflowSettings(project_root=tmp_path / "reviewer")
    assert run_with_shared_state("tau2-mock", "es", [sys.executable, "-c", write], reviewer) == 0
    stored = LocalDocumentStore(tmp_path / "shared" / "_documents").read("state/review/tau2-mock/es/decisions.jsonl")
    assert stored is not None and stored.body == b"d1\n"
    monkeypatch.chdir(tmp_path / "worker")
    worker = BabelflowSettings(project_root=tmp_path / "worker")
    check = f"import pathlib, sys; sys.exit(pathlib.Path({str(log)!r}).read_text() != 'd1\\n')"
    assert run_with_shared_state("tau2-mock", "es", [sys.executable, "-c", check], worker) == 0
