"""A tau2-style domain package outside tau2's tree, found by introspection (no babelflow edits).

A domain package looks like tau2's own (`tau2/domains/<d>/`): an `environment` module with
`get_environment`, a `tools` module with a `ToolKitBase` subclass, a `data_model` module with a
`DB` subclass, optionally `user_tools`/`user_data_model`, and module globals holding the paths of
its data files (db.json/db.toml, tasks.json, policy*.md, user_db.toml). Its benchmark id is
`tau2-pkg:<module>`.

It is mounted at tau2's layout, so every artifact keeps the same logical path a packaged domain
has (`data/tau2/domains/<name>/...`, `domains/<name>/tools.py`) and profiles, overlays and
validators treat it like any tau2 domain; `resolve` maps those paths to the package's files.
"""

from __future__ import annotations

import importlib
import inspect
from functools import lru_cache
from pathlib import Path

from babelflow.errors import BabelflowError
from babelflow.ir import ArtifactRole
from source_benchmarks.tau_common.domains import SHARED_PROMPT_CODE, Tau2DomainSpec

PREFIX = "tau2-pkg:"


def is_domain_package(benchmark_id: str) -> bool:
    return benchmark_id.startswith(PREFIX)


def benchmark_id_for(module: str) -> str:
    return PREFIX + module


def _import(name: str, package: str, required: bool = True):
    try:
        return importlib.import_module(f"{package}.{name}")
    except ModuleNotFoundError as exc:
        if not required and exc.name == f"{package}.{name}":
            return None
        raise BabelflowError(
            f"domain package {package!r} has no importable {name!r} module ({exc})",
            field="--domain-package",
            fix=(
                "a tau2-style domain package holds environment.py, tools.py and data_model.py; "
                f"make {package!r} importable (PYTHONPATH)"
            ),
        ) from exc


def _subclass(module, base: type) -> type | None:
    found = [
        obj
        for _, obj in inspect.getmembers(module, inspect.isclass)
        if issubclass(obj, base) and obj is not base and obj.__module__ == module.__name__
    ]
    return found[0] if found else None


@lru_cache(maxsize=32)
def spec_for(module: str) -> Tau2DomainSpec:
    """Introspect `module` (a dotted package name) into the spec the tau2 adapter runs."""
    from tau2.environment.db import DB
    from tau2.environment.toolkit import ToolKitBase

    environment = _import("environment", module)
    if not callable(getattr(environment, "get_environment", None)):
        raise BabelflowError(
            f"{module}.environment has no get_environment()",
            field="--domain-package",
            fix="define get_environment(db=None, solo_mode=False) like tau2's domains",
        )
    tools, data_model = _import("tools", module), _import("data_model", module)
    user_tools, user_data_model = (
        _import("user_tools", module, required=False),
        _import("user_data_model", module, required=False),
    )
    tools_class, db_class = _subclass(tools, ToolKitBase), _subclass(data_model, DB)
    if tools_class is None or db_class is None:
        raise BabelflowError(
            f"{module}: no ToolKitBase subclass in tools.py or no DB subclass in data_model.py",
            field="--domain-package",
            fix="define the domain's toolkit and DB model",
        )
    user_tools_class = _subclass(user_tools, ToolKitBase) if user_tools else None
    user_db_class = _subclass(user_data_model, DB) if user_data_model else None
    # the file paths the environment module binds as globals (tau2 reads them at call time)
    paths = {
        name: Path(value)
        for name, value in vars(environment).items()
        if name.isupper() and isinstance(value, (str, Path)) and Path(value).suffix in (".json", ".toml", ".md")
    }
    db_globals = [n for n, p in paths.items() if p.suffix in (".json", ".toml") and "DB" in n and "USER" not in n]
    if not db_globals:
        raise BabelflowError(
            f"{module}.environment binds no DB file path global (e.g. MY_DB_PATH)",
            field="--domain-package",
            fix="bind the data file paths as module globals, like tau2's domains",
        )
    db_path = paths[db_globals[0]]
    data_dir = db_path.parent
    if any(p.parent != data_dir for p in paths.values()):
        raise BabelflowError(
            f"{module}: data files are spread over several folders",
            field="--domain-package",
            fix=f"keep db, tasks and policy files in one folder ({data_dir})",
        )
    user_db = next((p.name for n, p in paths.items() if "USER" in n and "DB" in n), None)
    policies = tuple(sorted({p.name for p in paths.values() if p.suffix == ".md"}))
    name = module.rsplit(".", 1)[-1]
    package_dir = Path(inspect.getfile(environment)).resolve().parent
    code = [
        (f"domains/{name}/tools.py", ArtifactRole.TOOL_CODE),
        (f"domains/{name}/data_model.py", ArtifactRole.DATA_MODEL_CODE),
    ]
    if user_tools_class is not None:
        code.append((f"domains/{name}/user_tools.py", ArtifactRole.TOOL_CODE))
    if user_db_class is not None:
        code.append((f"domains/{name}/user_data_model.py", ArtifactRole.DATA_MODEL_CODE))
    split = data_dir / "split_tasks.json"
    default_split = None
    if split.exists():
        import orjson

        default_split = "base" if "base" in orjson.loads(split.read_bytes()) else None
    return Tau2DomainSpec(
        benchmark_id=benchmark_id_for(module),
        domain=name,
        db_file=db_path.name,
        db_model=f"{db_class.__module__}:{db_class.__name__}",
        tools_class=f"{tools_class.__module__}:{tools_class.__name__}",
        policy_files=policies,
        default_split=default_split,
        user_db_file=user_db,
        user_db_model=f"{user_db_class.__module__}:{user_db_class.__name__}" if user_db_class else None,
        user_tools_class=f"{user_tools_class.__module__}:{user_tools_class.__name__}" if user_tools_class else None,
        code_files=tuple(code) + SHARED_PROMPT_CODE,
        environment_module=environment.__name__,
        path_globals=tuple(sorted((n, p.name) for n, p in paths.items())),
        package_dir=str(package_dir),
        data_path=str(data_dir),
    )


def resolve_packaged(spec: Tau2DomainSpec, relative: str) -> Path | None:
    """The package's own file for a logical tau2 path, or None (shared tau2 code)."""
    data_prefix = f"data/tau2/domains/{spec.domain}/"
    code_prefix = f"domains/{spec.domain}/"
    if relative.startswith(data_prefix):
        return _package_path(spec, spec.data_path) / relative[len(data_prefix) :]
    if relative.startswith(code_prefix):
        return _package_path(spec, spec.package_dir) / relative[len(code_prefix) :]
    return None


def _package_path(spec: Tau2DomainSpec, folder: str | None) -> Path:
    # spec_for sets both folders; a spec of one of tau2's own domains has neither
    if folder is None:
        raise ValueError(f"{spec.benchmark_id} is not a domain package: its spec names no package folders")
    return Path(folder)


def benchmark_with_package(benchmark: str, package: str | None) -> str:
    """`babelflow CMD tau2 --domain-package PKG` -> `tau2-pkg:PKG`; PKG is a module name or its folder."""
    if package is None:
        return benchmark
    if benchmark != "tau2" and not is_domain_package(benchmark):
        raise BabelflowError(
            f"--domain-package needs the benchmark `tau2`, not {benchmark!r}",
            field="benchmark",
            fix="run e.g. `babelflow analyze tau2 --domain-package my_domain`",
        )
    folder = Path(package)
    if folder.is_dir() and (folder / "environment.py").exists():
        import sys

        parent = str(folder.resolve().parent)
        if parent not in sys.path:
            sys.path.insert(0, parent)
        package = folder.resolve().name
    return benchmark_id_for(package)
