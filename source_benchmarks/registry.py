"""The registry of benchmark families, found through the entry-point group `babelflow.families`.

Built-in families are declared in pyproject.toml like any outside package's, so a family from an
installed distribution needs no edit here: `[project.entry-points."babelflow.families"]`,
`myfamily = "my_package.family:FAMILY"` (an instance or a class of BenchmarkFamily).
"""

from __future__ import annotations

import threading
from importlib import metadata
from pathlib import Path

from babelflow.errors import BabelflowError
from babelflow.variant import OVERLAY_NAME, load_overlay
from source_benchmarks.family import BenchmarkFamily, BenchmarkSelection, FamilyOption
from source_benchmarks.protocol import SourceBenchmark

ENTRY_POINT_GROUP = "babelflow.families"
_LOCK = threading.Lock()
_FAMILIES: dict[str, BenchmarkFamily] | None = None


def _load(entry: metadata.EntryPoint) -> BenchmarkFamily:
    try:
        loaded = entry.load()
    except Exception as exc:  # a broken plug-in names itself instead of breaking every command
        raise BabelflowError(
            f"Benchmark family {entry.name!r} does not load: {type(exc).__name__}: {exc}",
            field=f"entry point {ENTRY_POINT_GROUP}:{entry.name} = {entry.value}",
            fix="fix or uninstall the package that declares it",
        ) from exc
    family = loaded() if isinstance(loaded, type) else loaded
    if not isinstance(family, BenchmarkFamily):
        raise BabelflowError(
            f"Entry point {entry.name!r} is not a BenchmarkFamily ({type(family).__name__})",
            field=f"entry point {ENTRY_POINT_GROUP}:{entry.name} = {entry.value}",
            fix="point it at a source_benchmarks.family.BenchmarkFamily subclass or instance",
        )
    return family


def families() -> dict[str, BenchmarkFamily]:
    """Every installed family by name, in entry-point name order (loaded once per process)."""
    global _FAMILIES
    with _LOCK:
        if _FAMILIES is None:
            entries = sorted(metadata.entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name)
            if not entries:
                raise BabelflowError(
                    "No benchmark family is installed (the entry points of babelflow are missing)",
                    field=ENTRY_POINT_GROUP,
                    fix="reinstall the project: bash scripts/install.sh (or pip install -e .)",
                )
            _FAMILIES = {entry.name: _load(entry) for entry in entries}
        return _FAMILIES


def reload_families() -> dict[str, BenchmarkFamily]:
    """Read the entry points again (after installing a family in a running process; tests)."""
    global _FAMILIES
    with _LOCK:
        _FAMILIES = None
    return families()


def benchmark_ids() -> tuple[str, ...]:
    return tuple(bid for family in families().values() for bid in family.benchmark_ids())


def family_of(benchmark_id: str) -> BenchmarkFamily:
    """The family of an id, or a BabelflowError that lists the ids there are."""
    for family in families().values():
        if family.accepts(benchmark_id):
            return family
    raise BabelflowError(
        f"Unknown benchmark {benchmark_id!r}", field="benchmark", fix=f"use one of: {', '.join(benchmark_ids())}"
    )


def available_family_of(benchmark_id: str) -> BenchmarkFamily:
    """As family_of, and refused (exit 2, with the install command) when its runtime is missing."""
    family = family_of(benchmark_id)
    missing = family.unavailable(benchmark_id)
    if missing:
        raise BabelflowError(missing, field="benchmark", fix=family.install_hint() or "install the family's runtime")
    return family


def resolve_benchmark(benchmark: str, domain_package: str | None = None, version: str | None = None) -> str:
    """The id a command line names: `tau2 --domain-package P`, `agentdojo-travel --version v1.1.1`, or a
    plain id; refused (exit 2) when no family takes it or its family's runtime is not installed."""
    selection = BenchmarkSelection(benchmark=benchmark, domain_package=domain_package, version=version)
    given = {FamilyOption.DOMAIN_PACKAGE: domain_package, FamilyOption.VERSION: version}
    for option, value in given.items():
        if value is not None:
            owners = [f for f in families().values() if option in f.options]
            if not owners:
                flag = option.flag
                raise BabelflowError(
                    f"{flag} is not taken by any installed benchmark family", field=flag, fix=f"drop {flag}"
                )
            for family in owners:
                qualified = family.qualify(selection)
                if qualified is not None:
                    available_family_of(qualified)
                    return qualified
    available_family_of(benchmark)
    return benchmark


def get_benchmark(benchmark_id: str, source_dir: Path | None = None) -> SourceBenchmark:
    """The adapter of a benchmark id, with an optional folder that replaces its data files."""
    return available_family_of(benchmark_id).open(benchmark_id, source_dir=source_dir)


def open_variant(benchmark_id: str, variant_root: Path) -> SourceBenchmark:
    """An adapted variant (adapted/<benchmark>/<language>/) seen through the same adapter as its source."""
    variant_root = Path(variant_root)
    if not variant_root.is_dir():
        raise BabelflowError(
            "Variant folder does not exist",
            file=variant_root,
            fix="run `babelflow adapt` first or pass the right --variant",
        )
    overlay = load_overlay(variant_root / OVERLAY_NAME)
    return available_family_of(benchmark_id).open_variant(benchmark_id, variant_root, overlay)
