"""Build tau2-bench environments from any data folder, through tau2's own `get_environment`.

tau2 (the NVIDIA build) has no data-dir setting: each domain's `environment` module binds its
file paths as module globals at import. Those globals are read at call time, so we rebind them for
the duration of one `get_environment` call. DBs are parsed once per folder and validated per
environment, which is what makes a replay of thousands of tasks cheap. (Validating from the parsed
dict is also the cheapest fresh copy: `copy.deepcopy` and `model_copy(deep=True)` of a validated DB
measured 3-4.5x slower on airline/retail.)

Two things replays ask of the factory beyond tau2's constructor signature:
- `untouched_hashes()`: tau2's own `get_db_hash` of the state a fresh environment is in after
  `set_state` with nothing to set, computed once; a task that sets nothing starts exactly there.
- `traced()`: a variant's environments differ from the source's only through the overlay's
  message catalog (tool results and error texts); while tracing, every catalog lookup is recorded,
  so a replay outcome can be reused for another variant whose catalog answers the same
  (`lookups_hold`).
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cached_property
from pathlib import Path
from types import ModuleType
from typing import Any

from babelflow.atomic_io import sha256_file
from babelflow.errors import validate_input
from babelflow.ir import ArtifactFormat
from babelflow.variant import CodeOverlay
from source_benchmarks.formats import load_document
from source_benchmarks.message_catalog import TextCatalog
from source_benchmarks.tau_common.domains import Tau2DomainSpec
from source_benchmarks.tau_common.localization import ToolkitLocalizer
from source_benchmarks.tau_common.plain_json import dumping_modules, plain_json_str, plain_tool_calls

_PATCH_LOCK = threading.RLock()

# Which module global holds which file, per domain (names from tau2/domains/<d>/utils.py).
_PATH_GLOBALS: dict[str, dict[str, str]] = {
    "mock": {
        "MOCK_DB_PATH": "db.json",
        "MOCK_POLICY_PATH": "policy.md",
        "MOCK_POLICY_SOLO_PATH": "policy_solo.md",
        "MOCK_TASK_SET_PATH": "tasks.json",
    },
    "airline": {
        "AIRLINE_DB_PATH": "db.json",
        "AIRLINE_POLICY_PATH": "policy.md",
        "AIRLINE_TASK_SET_PATH": "tasks.json",
    },
    "retail": {"RETAIL_DB_PATH": "db.json", "RETAIL_POLICY_PATH": "policy.md", "RETAIL_TASK_SET_PATH": "tasks.json"},
    "telecom": {
        "TELECOM_DB_PATH": "db.toml",
        "TELECOM_USER_DB_PATH": "user_db.toml",
        "TELECOM_MAIN_POLICY_PATH": "main_policy.md",
        "TELECOM_TECH_SUPPORT_POLICY_MANUAL_PATH": "tech_support_manual.md",
        "TELECOM_TECH_SUPPORT_POLICY_WORKFLOW_PATH": "tech_support_workflow.md",
        "TELECOM_MAIN_POLICY_SOLO_PATH": "main_policy_solo.md",
        "TELECOM_TECH_SUPPORT_POLICY_MANUAL_SOLO_PATH": "tech_support_manual.md",
        "TELECOM_TECH_SUPPORT_POLICY_WORKFLOW_SOLO_PATH": "tech_support_workflow_solo.md",
        "TELECOM_TASK_SET_PATH": "tasks.json",
    },
}


def import_object(dotted: str) -> Any:
    module_name, _, attr = dotted.partition(":")
    return getattr(importlib.import_module(module_name), attr)


class Tau2EnvironmentFactory:
    """Makes fresh environments for one domain whose files come from `resolve(filename)`."""

    def __init__(self, spec: Tau2DomainSpec, resolve: Callable[[str], Path], overlay: CodeOverlay | None = None):
        self.spec = spec
        self.resolve = resolve
        self.module = importlib.import_module(
            spec.environment_module or f"tau2.domains.{spec.domain}.environment"
        )  # a domain package names its own
        self.localizers: tuple[ToolkitLocalizer, ToolkitLocalizer] | None = None
        self._catalogs: list[TextCatalog] = []  # the variant's own catalogs, unwrapped (replay memo checks)
        self._trace = threading.local()  # languages validated at once run in threads, one factory each
        self._untouched: tuple[str, str | None] | None = None
        self._untouched_lookups: list[tuple[int, str, str]] = []
        self._db_sha256: dict[str, str] = {}
        # tau2's to_json_str escapes non-ASCII (json.dumps default): a variant's DB text would reach
        # the agent as \uXXXX runs while the source reads as plain English; the family turns this on
        # for variants only, so the source stays byte-for-byte the stock harness
        self.plain_tool_output = False
        if overlay is not None:
            domain = f"domains/{spec.domain}"
            self.localizers = (
                ToolkitLocalizer(overlay, f"{domain}/tools.py"),
                ToolkitLocalizer(overlay, f"{domain}/user_tools.py"),
            )
            # before any toolkit class is localized: the localized classes capture the catalog
            self._catalogs = [localizer.catalog for localizer in self.localizers]
            for index, localizer in enumerate(self.localizers):
                localizer.catalog = _RecordingCatalog(localizer.catalog, self._trace, index)

    @cached_property
    def _raw_db(self) -> Any:
        return self._load_raw(self.spec.db_file)

    @cached_property
    def _raw_user_db(self) -> Any:
        return self._load_raw(self.spec.user_db_file) if self.spec.user_db_file else None

    def _load_raw(self, filename: str) -> Any:
        path = self.resolve(filename)
        fmt = ArtifactFormat.TOML if filename.endswith(".toml") else ArtifactFormat.JSON
        self._db_sha256[filename] = sha256_file(path)  # what this factory's environments are built from
        return load_document(path, fmt)

    def db_content_key(self) -> list[str]:
        """sha256 of each DB file as this factory read it (it reads each once, then keeps it)."""
        _ = self._raw_db, self._raw_user_db
        return [self._db_sha256[name] for name in (self.spec.db_file, self.spec.user_db_file) if name]

    def _validate(self, model_path: str, raw: Any, filename: str) -> Any:
        model = import_object(model_path)
        return validate_input(
            model,
            raw,
            what=f"{filename} does not fit tau2's {model.__name__} model",
            file=self.resolve(filename),
            fix="the data must keep tau2's schema: keys, enum/literal codes and types unchanged",
        )

    def check_models(self) -> None:
        """Raise a clear error if the DB files do not load into tau2's models."""
        self._validate(self.spec.db_model, self._raw_db, self.spec.db_file)
        if self.spec.user_db_model and self.spec.user_db_file:
            self._validate(self.spec.user_db_model, self._raw_user_db, self.spec.user_db_file)

    @contextmanager
    def _patched_paths(self) -> Iterator[None]:
        names = dict(self.spec.path_globals) if self.spec.path_globals else _PATH_GLOBALS[self.spec.domain]
        with _PATCH_LOCK:
            saved = {name: getattr(self.module, name) for name in names if hasattr(self.module, name)}
            try:
                for name, filename in names.items():
                    if name in saved:
                        setattr(self.module, name, self.resolve(filename))
                yield
            finally:
                for name, value in saved.items():
                    setattr(self.module, name, value)

    def __call__(self, solo_mode: bool = False) -> Any:
        """Signature of tau2's environment constructors, so evaluators can call it."""
        kwargs: dict[str, Any] = {"db": self._validate(self.spec.db_model, self._raw_db, self.spec.db_file)}
        if self.spec.user_db_model and self.spec.user_db_file:  # a user DB model comes with its file
            kwargs["user_db"] = self._validate(self.spec.user_db_model, self._raw_user_db, self.spec.user_db_file)
        with self._patched_paths():
            env = self.module.get_environment(solo_mode=solo_mode, **kwargs, **self.environment_kwargs())
        if self.localizers is not None:
            self.localizers[0].apply(env.tools)
            self.localizers[1].apply(env.user_tools)
        if self.plain_tool_output:
            env.to_json_str = plain_json_str(env.to_json_str)
            env.make_tool_call = plain_tool_calls(env.make_tool_call, self._dumping_tools_modules)
        return env

    @cached_property
    def _dumping_tools_modules(self) -> list[ModuleType]:
        classes = [self.spec.tools_class, self.spec.user_tools_class]
        return dumping_modules(importlib.import_module(c.partition(":")[0]) for c in classes if c)

    def environment_kwargs(self) -> dict[str, Any]:
        """More arguments for the domain's `get_environment` (τ³'s banking_knowledge takes the task)."""
        return {}

    def untouched_hashes(self) -> tuple[str, str | None]:
        """(DB hash, user DB hash or None) as tau2's `get_db_hash` gives them for a fresh
        environment after `set_state(None, None, [])`, once per factory. Environment construction
        and `set_state` (incl. telecom's `sync_tools`) are deterministic functions of the DB files,
        so every task that sets no data, runs no initialization actions and replays no tool calls
        starts from this very state."""
        outer = getattr(self._trace, "lookups", None)
        if self._untouched is None:
            with self.traced() as own:
                env = self()
                env.set_state(initialization_data=None, initialization_actions=None, message_history=[])
                user = env.get_user_db_hash()
                self._untouched = (str(env.get_db_hash()), None if user is None else str(user))
            self._untouched_lookups = own
            self._trace.lookups = outer
        if outer is not None:  # a traced replay that uses this state depends on what built it
            outer.extend(self._untouched_lookups)
        return self._untouched

    def forget_untouched_state(self) -> None:
        """Compute the fresh-environment state again next time (code trials change the code that builds it)."""
        self._untouched, self._untouched_lookups = None, []

    @contextmanager
    def traced(self) -> Iterator[list[tuple[int, str, str]]]:
        """Record every message-catalog lookup (toolkit index, text, answer) made inside the block."""
        lookups: list[tuple[int, str, str]] = []
        self._trace.lookups = lookups
        try:
            yield lookups
        finally:
            self._trace.lookups = None

    def lookups_hold(self, lookups: list[tuple[int, str, str]]) -> bool:
        """This factory's catalogs answer every recorded lookup the same way."""
        if self.localizers is None:
            return not lookups
        return all(self._catalogs[index].translate(text) == answer for index, text, answer in lookups)


class _RecordingCatalog:
    """A message catalog that notes each lookup while its factory traces (see `traced`)."""

    def __init__(self, inner: Any, trace: threading.local, index: int):
        self.inner, self._trace, self._index = inner, trace, index

    def translate(self, text: str) -> str:
        answer = self.inner.translate(text)
        lookups = getattr(self._trace, "lookups", None)
        if lookups is not None:
            lookups.append((self._index, text, answer))
        return answer

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)
