"""The VitaBench family on VitaBench's own data and code (skipped without `bash scripts/install.sh --vita`).

Its scripted calls stand in for golden actions; these tests hold what the analysis and the behaviour
layer read from them: every task plays, deterministically, writes what its required orders say, and
the trace sees which keys VitaBench's code reads and which a model is only shown."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from babelflow.errors import BabelflowError
from babelflow.ir import LinkKind
from source_benchmarks.registry import families, family_of, get_benchmark
from source_benchmarks.vita.runtime import INSTALL_COMMAND, find_runtime

RUNTIME = find_runtime()
pytestmark = pytest.mark.skipif(isinstance(RUNTIME, str), reason=f"VitaBench not installed: {INSTALL_COMMAND}")

INSTORE = "data/vita/domains/instore/tasks_en.json"
DELIVERY = "data/vita/domains/delivery/tasks.json"


def test_the_family_lists_both_domains_with_their_source_languages():
    family = families()["vita"]
    assert family.benchmark_ids() == ("vita-delivery", "vita-instore")
    assert family.source_language_of("vita-delivery") == "zh" and family.source_language_of("vita-instore") == "en"
    assert family.unavailable("vita-delivery") is None and family_of("vita-instore") is family


@pytest.mark.parametrize("benchmark", ["vita-delivery", "vita-instore"])
def test_every_task_plays_its_scripted_calls_the_same_way_twice(benchmark):
    bench = get_benchmark(benchmark)
    ids = bench.task_ids()
    assert len(ids) == 100
    first = bench.replay_pairs(ids[:25])
    again = bench.replay_pairs(ids[:25])
    # VitaBench names new orders by the wall clock: the probe's clock makes the same calls name them alike
    assert [[c.output for c in g.tool_calls] for g, _ in first] == [[c.output for c in g.tool_calls] for g, _ in again]
    changed = sum(golden.final_db_sha256 != nothing.final_db_sha256 for golden, nothing in first)
    assert changed >= 24  # the writes the required orders imply change the order states (measured: 99 of 100)
    writes = {c.name for golden, _ in first for c in golden.tool_calls if c.is_write}
    assert writes & {"create_delivery_order", "create_instore_product_order", "instore_book", "instore_reservation"}
    assert all(golden.reward is None and "judge" in (golden.note or "") for golden, _ in first)  # no score offline


def test_the_trace_sees_keys_read_by_code_and_keys_only_shown():
    bench = get_benchmark("vita-instore")
    seen = bench.trace(bench.task_ids()[:3])
    index = json.loads(Path(bench.artifact_path(bench.artifacts()[0])).read_text(encoding="utf-8"))

    def kinds(path: tuple, is_key: bool) -> set[str]:
        return set(seen.get((INSTORE, path, is_key), {}))

    assert LinkKind.COMPARED_IN_CODE.value in kinds((0, "environment", "shops"), True)  # get_environment reads it
    history = index[0]["environment"]["user_historical_behaviors"]
    shown = next(key for key in history if isinstance(history[key], dict))  # e.g. 'in-store dining'
    assert kinds((0, "environment", "user_historical_behaviors", shown), True) == {LinkKind.TOOL_OUTPUT.value}
    # the user simulator's prompt holds the profile: shown, never compared
    profile_key = next(iter(index[0]["user_scenario"]["user_profile"]))
    assert kinds((0, "user_scenario", "user_profile", profile_key), True) == {LinkKind.TOOL_OUTPUT.value}


def _copy_with(tmp_path: Path, relative: str, tasks: list) -> Path:
    target = tmp_path / relative
    target.parent.mkdir(parents=True)
    target.write_text(json.dumps(tasks, ensure_ascii=False), encoding="utf-8")
    return tmp_path


def _tasks(relative: str) -> list:
    return json.loads((Path(RUNTIME.source_root) / relative).read_text(encoding="utf-8"))


def test_a_task_file_of_another_domain_is_refused_naming_the_task(tmp_path):
    folder = _copy_with(tmp_path, INSTORE, _tasks(DELIVERY))
    with pytest.raises(BabelflowError) as refused:
        get_benchmark("vita-instore", source_dir=folder).validate_artifacts()
    assert refused.value.field == "[0].environment" and "not a task of instore" in refused.value.message


def test_the_english_file_given_as_the_chinese_source_is_refused(tmp_path):
    folder = _copy_with(tmp_path, DELIVERY, _tasks("data/vita/domains/delivery/tasks_en.json"))
    with pytest.raises(BabelflowError) as refused:
        get_benchmark("vita-delivery", source_dir=folder).validate_artifacts()
    assert refused.value.field == "[*].instructions" and "English" in refused.value.message


def test_an_environment_that_lost_a_store_is_refused(tmp_path):
    tasks = _tasks(INSTORE)
    lost = next(iter(tasks[3]["environment"]["shops"]))
    del tasks[3]["environment"]["shops"][lost]
    with pytest.raises(BabelflowError) as refused:
        get_benchmark("vita-instore", source_dir=_copy_with(tmp_path, INSTORE, tasks)).validate_artifacts()
    assert refused.value.field == "[3].environment.shops" and lost in refused.value.message


def test_a_copy_of_the_source_is_accepted(tmp_path):
    shutil.copytree(Path(RUNTIME.source_root) / "data", tmp_path / "data")
    assert get_benchmark("vita-instore", source_dir=tmp_path).validate_artifacts() == []
