"""The PostgreSQL document store (issue 29) on a real server started for the test (initdb + postgres on a
free loopback port, ~5 s): compare-and-swap writes, and a run lock that a SIGKILLed holder loses at once."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from babelflow.errors import BabelflowError
from babelflow.shared_state.documents import PostgresDocumentStore, VersionConflict

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(
    not (Path(os.environ.get("BABELFLOW_PG_BIN", "/usr/local/bin")) / "initdb").exists()
    or (os.geteuid() == 0 and shutil.which("runuser") is None),
    reason="PostgreSQL binaries (initdb, postgres) are not installed",
)


@pytest.fixture(scope="module")
def database() -> Iterator[str]:
    sys.path.insert(0, str(ROOT))
    from scripts.shared_services import Services  # noqa: PLC0415

    # a folder of its own, not pytest's: other pytest sessions of this user prune old basetemp folders,
    # and the postgres user must be able to enter it (pytest's are 0700)
    root = Path(tempfile.mkdtemp(prefix="babelflow-pg-test-"))
    os.chmod(root, 0o755)
    services = Services(root)
    try:
        services.start_postgres()
        yield services.database_url
    finally:
        services.stop()
        shutil.rmtree(root, ignore_errors=True)


def test_compare_and_swap(database: str) -> None:
    store = PostgresDocumentStore(database, "cas")
    assert store.write("state/tm/x.jsonl", b"a\n", 0) == 1
    with pytest.raises(VersionConflict):
        store.write("state/tm/x.jsonl", b"b\n", 0)  # another writer read version 0 too
    assert store.write("state/tm/x.jsonl", b"a\nb\n", 1) == 2
    assert [d.key for d in store.read_prefix("state/tm/")] == ["state/tm/x.jsonl"]
    with pytest.raises(VersionConflict):
        store.delete("state/tm/x.jsonl", 1)
    store.delete("state/tm/x.jsonl", 2)
    assert store.read("state/tm/x.jsonl") is None
    assert PostgresDocumentStore(database, "other").read_prefix("") == []  # namespaces are apart
    store.close()


def test_a_killed_holder_loses_the_run_lock_at_once(database: str) -> None:
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time\n"
            "from babelflow.shared_state.documents import PostgresDocumentStore\n"
            f"store = PostgresDocumentStore({database!r}, 'locks')\n"
            "with store.lock('run:tau2-mock:es', 'host:1 run-a'):\n"
            "    print('held', flush=True)\n"
            "    time.sleep(120)\n",
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    store = PostgresDocumentStore(database, "locks")
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        current = store.holder("run:tau2-mock:es")
        assert current is not None and current.alive and current.holder == "host:1 run-a"
        with pytest.raises(BabelflowError, match="held by host:1 run-a"), store.lock("run:tau2-mock:es", "b"):
            pass
    finally:
        os.kill(holder.pid, signal.SIGKILL)
        holder.wait()
    deadline = time.monotonic() + 10
    while (current := store.holder("run:tau2-mock:es")) is not None and current.alive:
        assert time.monotonic() < deadline, "the server kept a dead session's lock"
        time.sleep(0.1)
    assert current is not None and current.holder == "host:1 run-a"  # who died holding it
    with store.lock("run:tau2-mock:es", "b", wait=5):
        assert store.holder("run:tau2-mock:es").alive  # type: ignore[union-attr]
    store.close()


def test_the_database_refuses_a_client_without_its_password(database: str) -> None:
    """Loopback is reachable by every user of the machine: the shared state asks for the password."""
    without = re.sub(r"//postgres:[^@]+@", "//postgres@", database)
    assert without != database
    with pytest.raises(BabelflowError, match="password authentication failed"):
        PostgresDocumentStore(without, "intruder")
