"""Which folders a variant may be written into: `--out` owns only what babelflow writes.

Refused, before anything is written:
- an `--out` that is or contains a source (the installed benchmark package, a domain package, the
  `--source-dir` folder, the folder of any source file), or that lies inside an installed package,
  the project's own code or state folder: the English source would be overwritten and the next run
  would silently double-translate;
- a non-empty folder that holds no variant (manifest) or rebuild in progress (build mark) of the
  same benchmark: files that are not babelflow's are never overwritten;
- a symlink loop, a dangling link or a file where the folder should be.
Symlinks are resolved first, so a link to the source is the source.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Iterable
from pathlib import Path

from babelflow.atomic_io import project_code_folders, temp_owner_pid
from babelflow.errors import BabelflowError
from babelflow.variant import folder_owner


def resolve_out(out: Path, what: str = "--out") -> Path:
    """The real folder `out` names (every symlink followed); a loop, a dangling link or a file is refused."""
    out = Path(out)
    try:
        os.stat(out)
    except FileNotFoundError:
        if os.path.islink(out):
            raise BabelflowError(
                f"{what} is a symbolic link to nothing ({os.readlink(out)})",
                file=out,
                field=what,
                fix="remove the link or point it at a folder",
            ) from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise BabelflowError(
                f"{what} is a symbolic link loop",
                file=out,
                field=what,
                fix="remove the looping link or choose another folder",
            ) from None
        if exc.errno != errno.ENOTDIR:
            raise BabelflowError(
                f"{what} cannot be used: {exc.strerror}", file=out, field=what, fix="choose another folder"
            ) from None
    resolved = Path(os.path.realpath(out))
    if resolved.exists() and not resolved.is_dir():
        raise BabelflowError("Output path is a file", file=out, field=what, fix="remove it or choose another --out")
    if not resolved.exists() and any(p.exists() and not p.is_dir() for p in resolved.parents):
        raise BabelflowError("Output folder is inside a file", file=out, field=what, fix="choose another --out")
    return resolved


def _overlap(a: Path, b: Path) -> bool:
    return a == b or a.is_relative_to(b) or b.is_relative_to(a)


def _only_babelflow_temps(folder: Path) -> bool:
    """True when the folder holds nothing but empty folders and babelflow writers' temp files."""
    for dirpath, dirnames, filenames in os.walk(folder):
        for name in filenames:
            if temp_owner_pid(Path(dirpath) / name) is None:
                return False
        for name in dirnames:  # a link to a folder is content (os.walk does not follow it)
            if os.path.islink(os.path.join(dirpath, name)):
                return False
    return True


def check_variant_out(
    out: Path,
    benchmark: str,
    *,
    sources: Iterable[Path] = (),
    packages: Iterable[Path] = (),
    what: str = "--out",
) -> Path:
    """The resolved variant folder, or a BabelflowError (exit 2) naming why it is refused.

    `sources`: folders holding the benchmark's source files (out must not be or contain one).
    `packages`: installed code and state folders (out must not overlap one in either direction);
    the project's own code folders are always added."""
    resolved = resolve_out(out, what)
    for package in [*packages, *project_code_folders()]:
        real = Path(os.path.realpath(package))
        if _overlap(resolved, real):
            relation = "is" if resolved == real else ("lies inside" if resolved.is_relative_to(real) else "contains")
            raise BabelflowError(
                f"{what} {relation} {real}, which holds code or data babelflow reads: "
                "a variant there would overwrite it",
                file=out,
                field=what,
                fix="choose a folder of its own, e.g. adapted/<benchmark>/<lang>/ (the default)",
            )
    for source in sources:
        real = Path(os.path.realpath(source))
        if real == resolved or real.is_relative_to(resolved):
            relation = "is" if resolved == real else "contains"
            raise BabelflowError(
                f"{what} {relation} the source folder {real}: the variant would overwrite the English source",
                file=out,
                field=what,
                fix="choose a folder outside the source, e.g. adapted/<benchmark>/<lang>/ (the default)",
            )
    if resolved.is_dir():
        owner = folder_owner(resolved)
        if owner is not None and owner != benchmark:
            raise BabelflowError(
                f"{what} holds a variant of {owner}, not of {benchmark}",
                file=out,
                field=what,
                fix="choose another folder (or remove that variant yourself)",
            )
        if owner is None and not _only_babelflow_temps(resolved):
            raise BabelflowError(
                f"{what} is a non-empty folder without a babelflow variant of {benchmark}: "
                "its files are not babelflow's to overwrite",
                file=out,
                field=what,
                fix="choose a new or empty folder, or the folder of an earlier variant of this benchmark",
            )
    return resolved


def check_file_out(path: Path, sources: Iterable[Path], what: str = "--out") -> None:
    """A single-file output (an IR, a report, an export) must not land in a benchmark's source folder:
    it would overwrite or add to the English source the next run reads."""
    real = Path(os.path.realpath(Path(path).parent)) / Path(path).name
    for source in sources:
        folder = Path(os.path.realpath(source))
        if real.is_relative_to(folder):
            raise BabelflowError(
                f"{what} lies inside the source folder {folder}: writing there would change the benchmark's source",
                file=path,
                field=what,
                fix="write it outside the source, e.g. in the project folder",
            )
