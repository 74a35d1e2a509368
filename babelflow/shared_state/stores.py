"""Open the configured stores once per process."""

from __future__ import annotations

import functools
from dataclasses import dataclass

from babelflow.errors import BabelflowError
from babelflow.shared_state.config import SharedStateConfig
from babelflow.shared_state.documents import DocumentStore, LocalDocumentStore, PostgresDocumentStore
from babelflow.shared_state.objects import LocalObjectStore, ObjectStore, open_object_store


@dataclass(frozen=True)
class SharedStores:
    config: SharedStateConfig
    objects: ObjectStore
    documents: DocumentStore


@functools.cache
def _open(config_json: str) -> SharedStores:
    config = SharedStateConfig.model_validate_json(config_json)
    objects = open_object_store(config)
    documents: DocumentStore
    if config.database_url:
        documents = PostgresDocumentStore(config.database_url, config.namespace)
    elif isinstance(objects, LocalObjectStore):
        documents = LocalDocumentStore(objects.root / "_documents")
    else:
        raise BabelflowError(
            "S3 object storage needs a database for memories, maps and the review log (S3 has no locks)",
            field="BABELFLOW_SHARED_DATABASE",
            fix="set BABELFLOW_SHARED_DATABASE=postgresql://USER@HOST:PORT/DB",
        )
    return SharedStores(config=config, objects=objects, documents=documents)


def open_stores(config: SharedStateConfig) -> SharedStores:
    return _open(config.model_dump_json())
