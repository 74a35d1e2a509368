"""Caches cannot run code (issue 28, item 9): the IR loads from its own JSON and the analysis cache
holds typed JSON; a pickle planted where babelflow once kept one is never unpickled."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from analyzers import trace_cache
from analyzers.located_evidence import Observed
from babelflow.errors import BabelflowError
from babelflow.ir import (
    DataValueLocator,
    EvidenceScope,
    IRDocument,
    IRElement,
    LinkKind,
    TranslationType,
    element_id,
    load_ir,
    save_ir,
)
from babelflow.ir_cache import legacy_sidecar_path, load_ir_cached, remember
from source_benchmarks.tau_common.code_trials import CodeTrialResult


class _Poison:
    """Unpickling this creates `marker`: the proof that a loader ran code the file chose."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return (open, (str(self.marker), "w"))


def _ir(benchmark: str = "tau2-mock") -> IRDocument:
    locator = DataValueLocator(path=("tasks", 0, "note"))
    element = IRElement(
        id=element_id("tasks.json", locator),
        artifact="tasks.json",
        locator=locator,
        role="tasks[*].note",
        source_text="Call <x   and wait",
        translation_type=TranslationType.TRANSLATE_FREE,
        typing_rule="test",
    )
    return IRDocument(
        benchmark=benchmark,
        source_version="1",
        profile_sha256="0" * 64,
        artifacts=[],
        elements=[element],
        link_groups=[],
    )


def test_ir_loads_from_its_json_and_never_unpickles_a_planted_sidecar(tmp_path: Path) -> None:
    path = tmp_path / "tau2-mock.json"
    save_ir(_ir(), path)
    marker = tmp_path / "executed"
    legacy_sidecar_path(path).write_bytes(pickle.dumps(_Poison(marker)))
    loaded = load_ir_cached(path, "tau2-mock")
    assert loaded == load_ir(path, benchmark="tau2-mock") == _ir()
    assert not marker.exists()
    assert not legacy_sidecar_path(path).exists()  # removed, so nothing older can pick it up either
    legacy_sidecar_path(path).write_bytes(pickle.dumps(_Poison(marker)))
    remember(path, loaded)  # what the flows call after saving an IR
    assert not marker.exists() and not legacy_sidecar_path(path).exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tau2-mock.json"]


def test_a_bad_ir_gets_load_irs_message(tmp_path: Path) -> None:
    path = tmp_path / "tau2-mock.json"
    save_ir(_ir("tau2-retail"), path)
    with pytest.raises(BabelflowError, match="belongs to benchmark 'tau2-retail'"):
        load_ir_cached(path, "tau2-mock")
    path.write_bytes(b"{not json")
    with pytest.raises(BabelflowError, match="not valid JSON"):
        load_ir_cached(path, "tau2-mock")
    with pytest.raises(BabelflowError, match="not found"):
        load_ir_cached(tmp_path / "missing.json", "tau2-mock")


class _Bench:
    id = "tau2-mock"
    source_version = "test"

    def fingerprints(self) -> list:
        return []


VALUES = {
    "trace": {
        ("tasks.json", (0, "actions", 1, "user_id"), True): {"argument_name": "tool create_task"},
        ("db.json", ("users", "u1"), False): {},
    },
    "differential": {
        ("tasks.json", ("[*]", "id"), False): Observed(
            EvidenceScope.DIFFERENTIAL, frozenset({LinkKind.PERTURBATION_CHANGES_OUTCOME}), "splits change", 3
        )
    },
    "code-differential": [CodeTrialResult(key="k1", changed=None, linked=["k2"], shown=True, found=True)],
}


@pytest.mark.parametrize("what", sorted(VALUES))
def test_analysis_cache_round_trips_each_kind_as_json(tmp_path: Path, what: str) -> None:
    calls: list[int] = []

    def compute():
        calls.append(1)
        return VALUES[what]

    assert trace_cache.cached(_Bench(), what, compute, folder=tmp_path) == VALUES[what]
    again = trace_cache.cached(_Bench(), what, compute, folder=tmp_path)
    assert again == VALUES[what] and len(calls) == 1  # the second call read the file
    (entry,) = tmp_path.iterdir()
    assert entry.suffix == ".json" and entry.read_bytes().startswith(b"[")


def test_a_planted_or_tampered_cache_entry_is_recomputed_never_executed(tmp_path: Path) -> None:
    marker = tmp_path / "executed"
    key = trace_cache.cache_key(_Bench(), "trace")
    (tmp_path / f"{key}.pickle").write_bytes(pickle.dumps(_Poison(marker)))  # where the old cache read it
    entry = tmp_path / f"{key}.json"
    entry.write_bytes(b'[[["tasks.json", [0], "not a bool"], {"k": 1}]]')  # valid JSON, wrong types
    value = trace_cache.cached(_Bench(), "trace", lambda: VALUES["trace"], folder=tmp_path)
    assert value == VALUES["trace"] and not marker.exists()
    assert sorted(p.suffix for p in tmp_path.iterdir()) == [".json"]  # rewritten; the pickle is gone
    assert trace_cache.decode("trace", entry.read_bytes()) == VALUES["trace"]


def test_every_kind_the_analysis_caches_has_a_declared_type() -> None:
    for what in ("trace", "differential", "code-differential"):
        assert trace_cache.decode(what, trace_cache.encode(what, VALUES[what])) == VALUES[what]
    with pytest.raises(ValueError, match="no declared type"):
        trace_cache.encode("something-new", {})
