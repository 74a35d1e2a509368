"""Where the stages' cached results live, and what may be read back from there (issue 44).

Prefect's default result store pickles, and it trusts the serializer a stored record names: even its
existence check unpickles whatever sits at a cache key, so a file planted in the result folder ran
code on the next `flow`. babelflow's stage results are pydantic records, so they are stored as JSON
(`RecordSerializer`, which loads only the result models listed in `RESULT_MODELS`), and the local
store (`TrustedResultStorage`) hands Prefect only records written that way: anything else at a key
reads as absent, so the stage runs again and overwrites it.

On a work pool the results live in the pool's shared storage block with Prefect's JSON serializer
(flows/pipeline/pools.py); its writers are the pool's own workers.
"""

from __future__ import annotations

import hashlib
import os
import threading
from pathlib import Path
from typing import Any

import orjson
from prefect._internal.compatibility.async_dispatch import async_dispatch
from prefect.exceptions import ObjectAlreadyExists
from prefect.filesystems import LocalFileSystem
from prefect.serializers import Serializer
from pydantic import BaseModel, Field

SERIALIZER_TYPE = "babelflow-records"
RESULT_MODELS: dict[str, type[BaseModel]] = {}


def result_model(cls: type[BaseModel]) -> type[BaseModel]:
    """Register a stage result model: only registered models are ever loaded from the store."""
    RESULT_MODELS[f"{cls.__module__}.{cls.__qualname__}"] = cls
    return cls


class RecordSerializer(Serializer):  # not Serializer[Any]: that registers a class with no dispatch key
    """JSON of a registered pydantic result model, loaded back only as that model."""

    type: str = Field(default=SERIALIZER_TYPE, frozen=True)

    def dumps(self, obj: Any) -> bytes:
        name = f"{type(obj).__module__}.{type(obj).__qualname__}"
        if RESULT_MODELS.get(name) is not type(obj):
            raise TypeError(f"{name} is not a registered stage result model (flows/pipeline/result_store.py)")
        return orjson.dumps({"model": name, "data": obj.model_dump(mode="json")})

    def loads(self, blob: bytes) -> Any:
        stored = orjson.loads(blob)
        model = RESULT_MODELS.get(stored.get("model", "")) if isinstance(stored, dict) else None
        if model is None:
            raise ValueError("not a babelflow stage result")
        return model.model_validate(stored["data"])


def trusted_record(content: bytes, path: str) -> bytes:
    """`content` when it is a result record our serializer wrote, else ValueError (read as absent)."""
    try:
        record = orjson.loads(content)
        serializer = record["metadata"]["serializer"]["type"]
    except (orjson.JSONDecodeError, KeyError, TypeError) as exc:
        raise ValueError(f"{path}: not a result record babelflow wrote; ignored") from exc
    if serializer != SERIALIZER_TYPE:
        raise ValueError(f"{path}: a result record with serializer {serializer!r}, not babelflow's; ignored")
    return content


class TrustedResultStorage(LocalFileSystem):
    """The local result folder, read only through `trusted_record`."""

    _block_type_name = "Babelflow Trusted Result Storage"
    _block_type_slug = "babelflow-trusted-result-storage"

    async def aread_path(self, path: str) -> bytes:
        return trusted_record(await super().aread_path(path), path)

    @async_dispatch(aread_path)
    def read_path(self, path: str) -> bytes:  # type: ignore[override]  # async_dispatch: sync when called sync
        content = LocalFileSystem.read_path(self, path, _sync=True)  # type: ignore[call-arg]
        assert isinstance(content, bytes)  # _sync: the synchronous read, never a coroutine
        return trusted_record(content, path)


_SAVED: dict[tuple[str, str], str] = {}
_SAVING = threading.Lock()


def trusted_storage(folder: Path, api_url: str) -> str:
    """The block reference of `folder`'s trusted storage on the run's Prefect API, saved once per
    process (Prefect takes only saved storage blocks for a task's results). Languages run as threads
    of one flow save it at once: one at a time here, and a block type another process registered
    first is simply there."""
    key = (str(folder), api_url)
    with _SAVING:
        if key not in _SAVED:
            name = "results-" + hashlib.sha256(str(folder).encode()).hexdigest()[:20]
            for attempt in range(3):
                try:
                    TrustedResultStorage(basepath=str(folder)).save(name, overwrite=True)
                    break
                except ObjectAlreadyExists:  # registered meanwhile by another process: save again
                    if attempt == 2:
                        raise
            _SAVED[key] = f"{TrustedResultStorage.get_block_type_slug()}/{name}"
    return _SAVED[key]


def stage_result_options() -> dict[str, Any]:
    """The options a cached stage task runs with: JSON records always; the trusted local folder unless a
    work pool's storage block is the default (PREFECT_RESULTS_DEFAULT_STORAGE_BLOCK)."""
    options: dict[str, Any] = {"result_serializer": RecordSerializer()}
    if not os.environ.get("PREFECT_RESULTS_DEFAULT_STORAGE_BLOCK"):
        from prefect.settings import get_current_settings  # noqa: PLC0415

        current = get_current_settings()
        options["result_storage"] = trusted_storage(current.results.local_storage_path, str(current.api.url))
    return options
