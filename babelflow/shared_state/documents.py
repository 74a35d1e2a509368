"""Versioned documents with compare-and-swap writes, and run locks that die with their holder.

Translation memories, canonical maps and the review log change under several writers (two workers,
a reviewer's CLI): a write names the version it read and is refused when another landed in between,
so nothing is lost to a last-writer-wins race. Backends: PostgreSQL (a table; session advisory locks,
released by the server when the holder's connection drops, e.g. a killed worker), or a local folder
(fcntl locks, released by the kernel when the holder dies)."""

from __future__ import annotations

import asyncio
import fcntl
import hashlib
import os
import threading
import time
from collections.abc import Coroutine, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Protocol, TypeVar

from babelflow.atomic_io import write_bytes_atomic
from babelflow.errors import BabelflowError
from babelflow.ir import Record
from babelflow.run_lock import open_lock_file

T = TypeVar("T")


class Document(Record):
    key: str
    version: int
    body: bytes


class VersionConflict(BabelflowError):
    """Another writer changed the document since it was read."""


class LockHolder(Record):
    name: str
    holder: str
    alive: bool


class DocumentStore(Protocol):
    def read(self, key: str) -> Document | None: ...

    def read_prefix(self, prefix: str) -> list[Document]: ...

    def write(self, key: str, body: bytes, expected_version: int) -> int:
        """Store `body` iff the document is at `expected_version` (0: absent); returns the new version."""
        ...

    def delete(self, key: str, expected_version: int) -> None: ...

    def lock(self, name: str, holder: str, wait: float = 0) -> Any:
        """Context manager: hold `name` until exit or the holder's death; refused if held elsewhere."""
        ...

    def holder(self, name: str) -> LockHolder | None: ...

    def close(self) -> None: ...


def _conflict(key: str, expected: int) -> VersionConflict:
    return VersionConflict(
        f"Shared document {key} changed since version {expected} was read",
        field=key,
        fix="rerun: the run reads the newer version first",
    )


def _held(name: str, holder: str) -> BabelflowError:
    return BabelflowError(
        f"{name} is held by {holder}",
        field=name,
        fix="wait for that run to end (a killed holder releases it at once), or look it up in the Prefect UI",
    )


class LocalDocumentStore:
    """Documents in a folder: `<key>` holds the body, `<key>.version` its version, both rewritten atomically
    under one fcntl lock of the store."""

    def __init__(self, root: Path):
        self.root = Path(root)

    @contextmanager
    def _guard(self) -> Iterator[None]:
        self.root.mkdir(parents=True, exist_ok=True)
        with open_lock_file(self.root / ".store.lock", binary=True) as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            yield

    def _version(self, key: str) -> int:
        try:
            return int((self.root / f"{key}.version").read_text())
        except FileNotFoundError:
            return 0

    def read(self, key: str) -> Document | None:
        with self._guard():
            version = self._version(key)
            if not version:
                return None
            return Document(key=key, version=version, body=(self.root / key).read_bytes())

    def read_prefix(self, prefix: str) -> list[Document]:
        with self._guard():
            keys = sorted(p.relative_to(self.root).as_posix()[: -len(".version")] for p in self.root.rglob("*.version"))
            return [
                Document(key=k, version=self._version(k), body=(self.root / k).read_bytes())
                for k in keys
                if k.startswith(prefix)
            ]

    def write(self, key: str, body: bytes, expected_version: int) -> int:
        with self._guard():
            if self._version(key) != expected_version:
                raise _conflict(key, expected_version)
            write_bytes_atomic(self.root / key, body)
            write_bytes_atomic(self.root / f"{key}.version", str(expected_version + 1).encode())
            return expected_version + 1

    def delete(self, key: str, expected_version: int) -> None:
        with self._guard():
            if self._version(key) != expected_version:
                raise _conflict(key, expected_version)
            (self.root / f"{key}.version").unlink(missing_ok=True)
            (self.root / key).unlink(missing_ok=True)

    def _lock_path(self, name: str) -> Path:
        return self.root / ".locks" / hashlib.sha256(name.encode()).hexdigest()[:32]

    @contextmanager
    def lock(self, name: str, holder: str, wait: float = 0) -> Iterator[None]:
        path = self._lock_path(name)
        path.parent.mkdir(parents=True, exist_ok=True)
        handle = open_lock_file(path, binary=True)
        fd = handle.fileno()
        try:
            deadline = time.monotonic() + wait
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() >= deadline:
                        raise _held(name, os.pread(fd, 4096, 0).decode(errors="replace") or "another run") from None
                    time.sleep(0.5)
            os.ftruncate(fd, 0)
            os.pwrite(fd, holder.encode(), 0)
            yield
            os.ftruncate(fd, 0)
        finally:
            handle.close()  # closing drops the flock

    def close(self) -> None:
        """Nothing to release: every call opens and closes its own files."""

    def holder(self, name: str) -> LockHolder | None:
        path = self._lock_path(name)
        if not path.exists():
            return None
        with open(path, "rb") as handle:
            held = handle.read().decode(errors="replace")
            try:
                fcntl.flock(handle, fcntl.LOCK_SH | fcntl.LOCK_NB)
                alive = False
            except BlockingIOError:
                alive = True
        return LockHolder(name=name, holder=held, alive=alive) if held or alive else None


_SCHEMA = """
CREATE TABLE IF NOT EXISTS babelflow_documents (
    namespace text NOT NULL,
    key text NOT NULL,
    version bigint NOT NULL,
    body bytea NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (namespace, key)
);
CREATE TABLE IF NOT EXISTS babelflow_locks (
    namespace text NOT NULL,
    name text NOT NULL,
    holder text NOT NULL,
    backend_pid integer NOT NULL,
    since timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (namespace, name)
);
"""


class _Loop:
    """asyncpg needs an event loop; the flow's code is synchronous and may run inside Prefect's own loop
    thread, so the store keeps a private loop in a daemon thread."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        threading.Thread(target=self.loop.run_forever, daemon=True, name="babelflow-shared-db").start()

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result()


class PostgresDocumentStore:
    def __init__(self, url: str, namespace: str):
        import asyncpg  # noqa: PLC0415 - optional dependency of shared mode

        self.url = url
        self.namespace = namespace
        self._loop = _Loop()
        try:
            self._pool = self._loop.run(self._create_pool(url))
        except (OSError, asyncpg.PostgresError) as exc:
            raise BabelflowError(
                f"Cannot reach the shared database: {exc}",
                field="BABELFLOW_SHARED_DATABASE",
                fix="start PostgreSQL (python -m scripts.shared_services) or fix the URL",
            ) from exc
        self._loop.run(self._execute(_SCHEMA))

    @staticmethod
    async def _create_pool(url: str) -> Any:
        import asyncpg  # noqa: PLC0415

        return await asyncpg.create_pool(url, min_size=1, max_size=4)  # inside the store's loop: its connections

    async def _acquire(self) -> Any:
        return await self._pool.acquire()

    async def _release(self, connection: Any) -> None:
        await self._pool.release(connection)

    async def _execute(self, sql: str, *args: Any) -> str:
        async with self._pool.acquire() as connection:
            return await connection.execute(sql, *args)

    async def _fetch(self, sql: str, *args: Any) -> list[Any]:
        async with self._pool.acquire() as connection:
            return await connection.fetch(sql, *args)

    def read(self, key: str) -> Document | None:
        rows = self._loop.run(
            self._fetch(
                "SELECT key, version, body FROM babelflow_documents WHERE namespace = $1 AND key = $2",
                self.namespace,
                key,
            )
        )
        return Document(key=rows[0]["key"], version=rows[0]["version"], body=rows[0]["body"]) if rows else None

    def read_prefix(self, prefix: str) -> list[Document]:
        rows = self._loop.run(
            self._fetch(
                "SELECT key, version, body FROM babelflow_documents WHERE namespace = $1 AND starts_with(key, $2) "
                "ORDER BY key",
                self.namespace,
                prefix,
            )
        )
        return [Document(key=r["key"], version=r["version"], body=r["body"]) for r in rows]

    def write(self, key: str, body: bytes, expected_version: int) -> int:
        if expected_version == 0:
            sql = (
                "INSERT INTO babelflow_documents (namespace, key, version, body) VALUES ($1, $2, 1, $3) "
                "ON CONFLICT DO NOTHING RETURNING version"
            )
            rows = self._loop.run(self._fetch(sql, self.namespace, key, body))
        else:
            sql = (
                "UPDATE babelflow_documents SET body = $3, version = version + 1, updated_at = now() "
                "WHERE namespace = $1 AND key = $2 AND version = $4 RETURNING version"
            )
            rows = self._loop.run(self._fetch(sql, self.namespace, key, body, expected_version))
        if not rows:
            raise _conflict(key, expected_version)
        return int(rows[0]["version"])

    def delete(self, key: str, expected_version: int) -> None:
        status = self._loop.run(
            self._execute(
                "DELETE FROM babelflow_documents WHERE namespace = $1 AND key = $2 AND version = $3",
                self.namespace,
                key,
                expected_version,
            )
        )
        if status != "DELETE 1":
            raise _conflict(key, expected_version)

    def _lock_id(self, name: str) -> int:
        return int.from_bytes(
            hashlib.blake2b(f"{self.namespace}\0{name}".encode(), digest_size=8).digest(), "big", signed=True
        )

    @contextmanager
    def lock(self, name: str, holder: str, wait: float = 0) -> Iterator[None]:
        # a session-level advisory lock on a connection of its own: the server drops it when that
        # connection ends, however the holder ended (a worker killed by SIGKILL included)
        connection = self._loop.run(self._acquire())
        try:
            deadline = time.monotonic() + wait
            while not self._loop.run(connection.fetchval("SELECT pg_try_advisory_lock($1)", self._lock_id(name))):
                if time.monotonic() >= deadline:
                    current = self.holder(name)
                    raise _held(name, current.holder if current else "another run")
                time.sleep(0.5)
            self._loop.run(
                connection.execute(
                    "INSERT INTO babelflow_locks (namespace, name, holder, backend_pid) "
                    "VALUES ($1, $2, $3, pg_backend_pid()) ON CONFLICT (namespace, name) DO UPDATE "
                    "SET holder = $3, backend_pid = pg_backend_pid(), since = now()",
                    self.namespace,
                    name,
                    holder,
                )
            )
            yield
            self._loop.run(
                connection.execute(
                    "DELETE FROM babelflow_locks WHERE namespace = $1 AND name = $2 AND backend_pid = pg_backend_pid()",
                    self.namespace,
                    name,
                )
            )
            self._loop.run(connection.execute("SELECT pg_advisory_unlock($1)", self._lock_id(name)))
        finally:
            self._loop.run(self._release(connection))

    def holder(self, name: str) -> LockHolder | None:
        """Who holds (or last held and died holding) `name`: alive iff its database session still exists."""
        rows = self._loop.run(
            self._fetch(
                "SELECT l.holder, EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.pid = l.backend_pid) AS alive "
                "FROM babelflow_locks l WHERE l.namespace = $1 AND l.name = $2",
                self.namespace,
                name,
            )
        )
        return LockHolder(name=name, holder=rows[0]["holder"], alive=rows[0]["alive"]) if rows else None

    def close(self) -> None:
        self._loop.run(self._pool.close())
