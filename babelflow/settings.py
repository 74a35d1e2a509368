"""Project settings: where state lives, and the environment every Prefect process must see."""

from __future__ import annotations

import os
from pathlib import Path

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from babelflow.errors import BabelflowError
from babelflow.state_layout import StateLayout


class BabelflowSettings(BaseSettings):
    """Read from BABELFLOW_* environment variables; defaults keep everything inside the project."""

    model_config = SettingsConfigDict(env_prefix="BABELFLOW_", extra="ignore")

    project_root: Path = Field(default_factory=lambda: Path.cwd())
    state_dir: Path | None = Field(default=None, description="default: <project_root>/.babelflow")
    adapted_dir: Path | None = Field(default=None, description="default: <project_root>/adapted")
    canonical_maps_dir: Path | None = Field(default=None, description="default: <project_root>/canonical_maps")

    @field_validator("state_dir", "adapted_dir", "canonical_maps_dir", mode="before")
    @classmethod
    def _empty_means_default(cls, value: object) -> object:
        # `export BABELFLOW_STATE_DIR=` would otherwise be Path(""): the current folder, not the default
        return None if isinstance(value, str) and not value.strip() else value

    def resolved_state_dir(self) -> Path:
        return (self.state_dir or self.project_root / ".babelflow").resolve()

    def resolved_adapted_dir(self) -> Path:
        return (self.adapted_dir or self.project_root / "adapted").resolve()

    def resolved_canonical_maps_dir(self) -> Path:
        return (self.canonical_maps_dir or self.project_root / "canonical_maps").resolve()

    @property
    def layout(self) -> StateLayout:
        return StateLayout(
            state=self.resolved_state_dir(),
            adapted=self.resolved_adapted_dir(),
            canonical_maps=self.resolved_canonical_maps_dir(),
        )


PREFECT_OFFLINE_ENV = {
    # Telemetry off: the machine is offline and analytics errors lock a fresh SQLite DB.
    "DO_NOT_TRACK": "1",
    "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
    "PREFECT_SERVER_UI_V2_ENABLED": "false",
    # litellm (imported by tau2.registry) must not fetch its price map from the network.
    "LITELLM_LOCAL_MODEL_COST_MAP": "True",
}


def apply_offline_environment(settings: BabelflowSettings | None = None) -> None:
    """Set the offline/telemetry variables and keep PREFECT_HOME inside the state folder."""
    settings = settings or BabelflowSettings()
    for key, value in PREFECT_OFFLINE_ENV.items():
        os.environ.setdefault(key, value)
    os.environ.setdefault("PREFECT_HOME", str(settings.layout.prefect_home()))
    # task results (the cache of every stage) stay in the project's state folder
    os.environ.setdefault("PREFECT_LOCAL_STORAGE_PATH", str(settings.layout.prefect_home() / "storage"))
    os.environ.setdefault("PREFECT_RESULTS_PERSIST_BY_DEFAULT", "true")
    # a flow's own result is JSON too (the stages' are babelflow's records: flows/pipeline/result_store.py)
    os.environ.setdefault("PREFECT_RESULTS_DEFAULT_SERIALIZER", "json")
    ensure_state_dirs(settings)


def ensure_state_dirs(settings: BabelflowSettings) -> None:
    """Create every folder Prefect and the stages read before they read it.

    Prefect does not create PREFECT_HOME's parent, and SQLite cannot open a database in a folder
    that does not exist: a fresh clone has no `.babelflow/` until this runs."""
    folders = [
        settings.resolved_state_dir(),
        Path(os.environ["PREFECT_HOME"]),
        Path(os.environ["PREFECT_LOCAL_STORAGE_PATH"]),
    ]
    for folder in folders:
        try:  # made owner-only: other users of the machine read no run, result or review decision
            folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        except OSError as exc:
            raise BabelflowError(
                f"Cannot create the state folder {folder}: {exc.strerror}",
                file=folder,
                fix="make the project folder writable, or set BABELFLOW_STATE_DIR to a writable folder",
            ) from exc


# What a process that needs no provider (the Prefect server) keeps of the environment: the
# interpreter's and locale's variables and Prefect's own settings. Everything else (provider keys,
# tokens, proxy URLs with passwords, cloud credentials) stays out of it.
_KEEP_EXACT = frozenset(
    {
        "PATH",
        "HOME",
        "USER",
        "LOGNAME",
        "SHELL",
        "LANG",
        "LANGUAGE",
        "TZ",
        "TMPDIR",
        "TERM",
        "VIRTUAL_ENV",
        "LD_LIBRARY_PATH",
        "SSL_CERT_FILE",
        "SSL_CERT_DIR",
        "DO_NOT_TRACK",
        "LITELLM_LOCAL_MODEL_COST_MAP",
        "COLUMNS",
        "NO_COLOR",
    }
)
_KEEP_PREFIXES = ("LC_", "PYTHON", "PREFECT_")
# a Prefect client credential or a secret-looking name is dropped even under a kept prefix
_SECRET_SUFFIXES = ("_KEY", "_TOKEN", "_SECRET", "_PASSWORD", "_CREDENTIALS", "AUTH_STRING")
_CLIENT_ONLY = frozenset({"PREFECT_API_URL", "PREFECT_API_KEY", "PREFECT_API_AUTH_STRING"})


def is_secret_name(name: str) -> bool:
    return name.upper().endswith(_SECRET_SUFFIXES) or "API_KEY" in name.upper()


def without_secrets(env: dict[str, str]) -> dict[str, str]:
    """`env` reduced to what a process that calls no provider needs (the allowlist above)."""
    kept = {k: v for k, v in env.items() if k in _KEEP_EXACT or k.startswith(_KEEP_PREFIXES)}
    return {k: v for k, v in kept.items() if k not in _CLIENT_ONLY and not is_secret_name(k)}
