"""The stages' result store (issue 44): results are JSON records of registered models, and a record
babelflow did not write (a pickle planted at a stage's cache key, a JSON record naming an arbitrary
class) reads as absent, so it is never deserialized. Prefect's default store, for contrast, runs the
planted pickle on its existence check alone."""

from __future__ import annotations

import base64
import pickle
from pathlib import Path

import orjson
import pytest
from prefect.filesystems import LocalFileSystem
from prefect.results import ResultStore
from prefect.serializers import PickleSerializer

from flows.pipeline.result_store import RecordSerializer, TrustedResultStorage, trusted_record
from flows.pipeline.stages import RebuildResult


class _Poison:
    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return (open, (str(self.marker), "w"))


def _planted_pickle(folder: Path, key: str, marker: Path) -> None:
    """A result record as Prefect's pickle serializer writes one, whose payload creates `marker` when loaded."""
    payload = base64.b64encode(pickle.dumps(_Poison(marker))).decode()
    pickled = {"type": "pickle", "picklelib": "cloudpickle"}
    metadata = {"storage_key": key, "expiration": None, "serializer": pickled, "storage_block_id": None}
    record = {"metadata": metadata, "result": payload}
    (folder / key).write_bytes(orjson.dumps(record))


def test_a_planted_pickle_runs_in_prefects_default_store_and_never_in_babelflows(tmp_path: Path) -> None:
    marker = tmp_path / "EXECUTED"
    _planted_pickle(tmp_path, "translate-2-abc", marker)
    default = ResultStore(result_storage=LocalFileSystem(basepath=str(tmp_path)), serializer=PickleSerializer())
    default.exists("translate-2-abc")  # Prefect's existence check deserializes the record
    assert marker.exists()  # the attack the issue reports, on the store babelflow used before
    marker.unlink()

    ours = ResultStore(result_storage=TrustedResultStorage(basepath=str(tmp_path)), serializer=RecordSerializer())
    assert ours.exists("translate-2-abc") is False  # read as absent: the stage runs again and overwrites it
    with pytest.raises(ValueError, match="not babelflow's"):
        ours.read("translate-2-abc")
    assert not marker.exists()


def test_records_round_trip_only_as_registered_models(tmp_path: Path) -> None:
    import flows.pipeline.stage_tasks  # noqa: F401  registers the stage result models

    store = ResultStore(result_storage=TrustedResultStorage(basepath=str(tmp_path)), serializer=RecordSerializer())
    result = RebuildResult(variant_dir=tmp_path / "v", manifest_sha256="ab" * 32)
    store.persist_result_record(store.create_result_record(result, key="rebuild-1-k"))
    assert store.exists("rebuild-1-k") and store.read("rebuild-1-k").result == result
    stored = orjson.loads((tmp_path / "rebuild-1-k").read_bytes())
    assert stored["metadata"]["serializer"]["type"] == "babelflow-records"
    # a JSON record naming any other class is not loaded
    forged = {"model": "subprocess.Popen", "data": {"args": ["touch", str(tmp_path / "EXECUTED")]}}
    with pytest.raises(ValueError, match="not a babelflow stage result"):
        RecordSerializer().loads(orjson.dumps(forged))
    with pytest.raises(TypeError, match="not a registered"):
        RecordSerializer().dumps({"a": 1})
    json_record = {"metadata": {"serializer": {"type": "json"}}, "result": "{}"}
    with pytest.raises(ValueError, match="not babelflow's"):
        trusted_record(orjson.dumps(json_record), "k")
    assert not (tmp_path / "EXECUTED").exists()


@pytest.mark.slow  # the session's Prefect test server
def test_two_languages_save_the_storage_block_at_once(prefect_harness, tmp_path: Path) -> None:
    """The main job runs es and en-XA as threads of one flow: both saved the trusted storage block at
    once and one died registering its type (ObjectAlreadyExists). Both get the one block now."""
    from concurrent.futures import ThreadPoolExecutor

    from prefect.blocks.core import Block
    from prefect.settings import get_current_settings

    from flows.pipeline import result_store

    with prefect_harness():
        url = str(get_current_settings().api.url)
        result_store._SAVED.clear()
        with ThreadPoolExecutor(4) as pool:
            refs = list(pool.map(lambda _: result_store.trusted_storage(tmp_path / "storage", url), range(4)))
        assert len(set(refs)) == 1
        loaded = Block.load(refs[0])
        assert isinstance(loaded, TrustedResultStorage) and loaded.basepath == str(tmp_path / "storage")
