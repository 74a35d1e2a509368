"""Object storage for results, IR, variants and reports: a local folder, or S3 (any S3-compatible server).

Every `put` is atomic for readers: a local folder renames a finished temp file over the key
(babelflow.atomic_io), S3 makes an object visible only once its single PUT completed. Readers that need
a consistent *set* of objects go through an index written last (babelflow/shared_state/sync.py)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Protocol
from urllib.parse import urlparse

from babelflow.atomic_io import write_bytes_atomic
from babelflow.errors import BabelflowError
from babelflow.shared_state.config import ENDPOINT_ENV, SharedStateConfig


class ObjectStore(Protocol):
    url: str

    def get(self, key: str) -> bytes | None: ...

    def put(self, key: str, data: bytes) -> None: ...

    def delete(self, key: str) -> None: ...

    def keys(self, prefix: str = "") -> list[str]: ...


def _checked(key: str) -> str:
    parts = key.split("/")
    if not key or key.startswith("/") or any(p in ("", ".", "..") for p in parts):
        raise BabelflowError(f"Object key {key!r} is not a plain relative key", field="key", fix="report this")
    return key


class LocalObjectStore:
    """A folder as object store: the embedded default, and the shape a mounted network folder takes."""

    def __init__(self, root: Path):
        self.root = Path(root)
        self.url = str(self.root)

    def get(self, key: str) -> bytes | None:
        try:
            return (self.root / _checked(key)).read_bytes()
        except FileNotFoundError:
            return None

    def put(self, key: str, data: bytes) -> None:
        write_bytes_atomic(self.root / _checked(key), data)

    def delete(self, key: str) -> None:
        (self.root / _checked(key)).unlink(missing_ok=True)

    def keys(self, prefix: str = "") -> list[str]:
        if not self.root.is_dir():
            return []
        found = (p.relative_to(self.root).as_posix() for p in self.root.rglob("*") if p.is_file())
        return sorted(k for k in found if k.startswith(prefix) and ".babelflow-" not in k)


class S3ObjectStore:
    """S3 through s3fs (fsspec). Credentials come from the usual AWS environment or profile, never
    from babelflow's settings; the endpoint from BABELFLOW_S3_ENDPOINT_URL for S3-compatible servers."""

    def __init__(self, url: str, endpoint_url: str | None = None):
        try:
            import s3fs  # noqa: PLC0415 - optional: `pip install babelflow[shared]`
        except ImportError as exc:
            raise BabelflowError(
                "S3 object storage needs s3fs", field="BABELFLOW_SHARED_OBJECTS", fix="bash scripts/install.sh --shared"
            ) from exc
        parsed = urlparse(url)
        self.url = url.rstrip("/")
        self.bucket = parsed.netloc
        self.prefix = parsed.path.strip("/")
        # no listing cache: another worker's writes must be seen at once
        self.fs = s3fs.S3FileSystem(endpoint_url=endpoint_url, use_listings_cache=False, skip_instance_cache=True)

    def _path(self, key: str) -> str:
        return "/".join(p for p in (self.bucket, self.prefix, _checked(key)) if p)

    def get(self, key: str) -> bytes | None:
        try:
            return bytes(self.fs.cat_file(self._path(key)))
        except FileNotFoundError:
            return None

    def put(self, key: str, data: bytes) -> None:
        self.fs.pipe_file(self._path(key), data)  # one PUT: visible whole or not at all

    def delete(self, key: str) -> None:
        try:
            self.fs.rm_file(self._path(key))
        except FileNotFoundError:
            pass

    def keys(self, prefix: str = "") -> list[str]:
        base = "/".join(p for p in (self.bucket, self.prefix) if p)
        try:
            found = self.fs.find(base)
        except FileNotFoundError:
            return []
        keys = (f[len(base) + 1 :] for f in found)
        return sorted(k for k in keys if k.startswith(prefix))

    def ensure_bucket(self) -> None:
        if not self.fs.exists(self.bucket):
            self.fs.mkdir(self.bucket)


def open_object_store(config: SharedStateConfig) -> ObjectStore:
    if config.is_s3:
        return S3ObjectStore(config.objects_url, config.endpoint_url or os.environ.get(ENDPOINT_ENV) or None)
    url = config.objects_url
    return LocalObjectStore(Path(url[len("file://") :] if url.startswith("file://") else url))
