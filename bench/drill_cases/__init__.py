"""The bad-input drill's cases, one module per area (issue 28 split them so that each area's owner
edits only its own file). Every module exports `CASES` (CLI invocations that must exit 2 with a
message naming the file/field and a fix, changing nothing under the watched folders) and `CHECKS`
(cases that are not one CLI call: a server request, a signal, a decoy process)."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType


@dataclass
class Case:
    """One CLI call on a copy of a project that already holds a good tau2-mock en-XA variant."""

    name: str
    prepare: Callable[[Path], list[str]]  # returns CLI args; may create broken files under the project
    must_name: str  # a string the message must contain (file name or field)
    # folders (relative to the project) that must be byte-identical before and after the call
    watch: tuple[str, ...] = field(default=("adapted",))


@dataclass
class CheckResult:
    passed: bool
    message: str  # one line: what happened (shown in the drill's table)


@dataclass
class Check:
    """A case that is not one CLI call. `run` gets a fresh copy of the good project (a folder it
    may use as BABELFLOW_PROJECT_ROOT) and must clean up every process it started."""

    name: str
    run: Callable[[Path], CheckResult]
    # "tests/<file>.py::<test>": a faster test that asserts the same behaviour. The drill still runs
    # the check; the suite runs that test instead (CI's 15-minute budget), and checks that it exists.
    covered_by: str = ""


def write_file(relative: str, content: bytes | str, args: list[str]) -> Callable[[Path], list[str]]:
    """A `prepare` that writes one file under the project, then runs `args` ({p} = the project)."""

    def prepare(project: Path) -> list[str]:
        path = project / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content if isinstance(content, bytes) else content.encode())
        return [a.replace("{p}", str(project)) for a in args]

    return prepare


def area_modules() -> list[ModuleType]:
    """Every module of this package, in name order: a new area needs no registration (a module
    without CASES or CHECKS, a helper of another, adds nothing)."""
    names = sorted(info.name for info in pkgutil.iter_modules(__path__) if not info.name.startswith("_"))
    return [importlib.import_module(f"{__name__}.{name}") for name in names]
