"""Where the shared state lives: read from the environment, so a worker and the CLI agree without flags."""

from __future__ import annotations

import os

from pydantic import Field

from babelflow.errors import BabelflowError
from babelflow.ir import Record

OBJECTS_ENV = "BABELFLOW_SHARED_OBJECTS"  # s3://bucket/prefix, or a folder (file:///… or a path)
DATABASE_ENV = "BABELFLOW_SHARED_DATABASE"  # postgresql://user@127.0.0.1:5432/db; unset: documents beside objects
ENDPOINT_ENV = "BABELFLOW_S3_ENDPOINT_URL"  # an S3-compatible server (MinIO, moto, Ceph); unset: AWS
FIX = f"set {OBJECTS_ENV} to s3://BUCKET/PREFIX or a folder, {DATABASE_ENV} to postgresql://USER@HOST:PORT/DB"


class SharedStateConfig(Record):
    objects_url: str = Field(description="object storage for results, IR, variants and reports")
    database_url: str | None = Field(default=None, description="PostgreSQL for memories, maps and the review log")
    endpoint_url: str | None = Field(default=None, description="S3-compatible endpoint (None: the provider's)")

    @property
    def namespace(self) -> str:
        """One name for the shared state: cache keys of two workers' projects agree on it."""
        return self.objects_url.rstrip("/")

    @property
    def is_s3(self) -> bool:
        return self.objects_url.startswith("s3://")


def shared_config(environ: dict[str, str] | None = None) -> SharedStateConfig | None:
    """The configured shared state, or None (local mode: everything stays in the project's folders)."""
    env = os.environ if environ is None else environ
    objects = env.get(OBJECTS_ENV, "").strip()
    database = env.get(DATABASE_ENV, "").strip() or None
    endpoint = env.get(ENDPOINT_ENV, "").strip() or None
    if not objects:
        if database:
            raise BabelflowError(f"{DATABASE_ENV} is set but {OBJECTS_ENV} is not", field=OBJECTS_ENV, fix=FIX)
        return None
    if "://" in objects and not objects.startswith(("s3://", "file://")):
        raise BabelflowError(f"{OBJECTS_ENV} must be s3://… or a folder, not {objects!r}", field=OBJECTS_ENV, fix=FIX)
    if database and not database.startswith(("postgresql://", "postgres://")):
        raise BabelflowError(f"{DATABASE_ENV} must be a postgresql:// URL", field=DATABASE_ENV, fix=FIX)
    return SharedStateConfig(objects_url=objects, database_url=database, endpoint_url=endpoint)


def require_shared_config(option: str = "--pool") -> SharedStateConfig:
    """The shared state a pool run needs: refused (exit 2) before any work when none is configured."""
    config = shared_config()
    if config is None:
        raise BabelflowError(
            f"{option} needs shared state: workers in other folders cannot read this project's files",
            field=option,
            fix=f"set {OBJECTS_ENV}=s3://BUCKET/PREFIX and {DATABASE_ENV} here and on every worker "
            "(README: Past one machine)",
        )
    return config
