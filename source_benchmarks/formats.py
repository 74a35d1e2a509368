"""Load and dump the artifact formats: JSON (orjson), TOML (tomlkit, keeps layout), Markdown (text)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import orjson
import tomlkit
from tomlkit.exceptions import TOMLKitError

from babelflow.atomic_io import dump_json_bytes, write_bytes_atomic, write_text_atomic
from babelflow.errors import BabelflowError
from babelflow.ir import ArtifactFormat


def source_folder(source_dir: Path | None, layout: str) -> Path | None:
    """`--source-dir` resolved, or None without one; refused when it is not a folder (`layout` says
    how the folder should look)."""
    folder = Path(source_dir).resolve() if source_dir else None
    if folder is not None and not folder.is_dir():
        raise BabelflowError("--source-dir is not a folder", file=folder, fix=f"pass a folder laid out like {layout}")
    return folder


def confined_file(root: Path, relative: str | Path, *, option: str = "--source-dir") -> Path | None:
    """`root / relative` when it exists there, else None; refused when it or a folder on its way is
    a symlink that leaves `root` (a link to /etc/passwd ended up in the IR and the variant, and would
    have gone to a remote translator: issue 28), dangles or loops. `root` must be resolved."""
    candidate = Path(root) / relative
    if not os.path.lexists(candidate):
        return None
    try:
        real = candidate.resolve(strict=True)
    except (OSError, RuntimeError) as exc:  # a dangling link, a loop (RuntimeError before 3.13)
        raise BabelflowError(
            f"File in {option} is a broken or looping symlink: {exc}",
            file=candidate,
            field=option,
            fix=f"replace the link by the file itself, or remove it from {root}",
        ) from exc
    if not real.is_relative_to(root):
        raise BabelflowError(
            f"File in {option} is a symlink to {real}, outside {root}; nothing was read",
            file=candidate,
            field=option,
            fix=f"copy the file into {root} instead of linking it (links may only point inside the folder)",
        )
    return candidate


def read_text(path: Path) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise BabelflowError(
            "Artifact file is missing", file=path, fix="restore it or point --source-dir at a complete data folder"
        ) from exc
    except UnicodeDecodeError as exc:
        raise BabelflowError(f"Artifact is not UTF-8 text: {exc}", file=path, fix="re-save the file as UTF-8") from exc


def load_document(path: Path, fmt: ArtifactFormat) -> Any:
    """Parse one artifact into plain Python values (TOML as plain dicts/lists)."""
    if fmt is ArtifactFormat.JSON:
        try:
            return orjson.loads(Path(path).read_bytes())
        except FileNotFoundError as exc:
            raise BabelflowError(
                "Artifact file is missing", file=path, fix="restore it or point --source-dir at a complete data folder"
            ) from exc
        except orjson.JSONDecodeError as exc:
            raise BabelflowError(
                f"Malformed JSON: {exc}", file=path, fix="repair the JSON syntax at the position shown"
            ) from exc
    if fmt is ArtifactFormat.TOML:
        try:
            return tomlkit.parse(read_text(path)).unwrap()
        except TOMLKitError as exc:
            raise BabelflowError(
                f"Malformed TOML: {exc}", file=path, fix="repair the TOML syntax at the line shown"
            ) from exc
    return read_text(path)


def dump_document(path: Path, fmt: ArtifactFormat, value: Any) -> None:
    """Write one artifact atomically."""
    if fmt is ArtifactFormat.JSON:
        write_bytes_atomic(path, dump_json_bytes(value) + b"\n")
    elif fmt is ArtifactFormat.TOML:
        write_text_atomic(path, tomlkit.dumps(value))
    else:
        write_text_atomic(path, value)
