"""Records that describe an adapted variant on disk: its manifest and its code-text overlay.

Text that lives in the benchmark's Python code (tool docstrings, `Field` descriptions, tool
messages, prompts) is not copied into forked code: the variant carries an overlay that the
source-benchmark adapter applies at run time, keeping the benchmark's logic untouched.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import orjson
from pydantic import Field, ValidationError

from babelflow.adapt_request import AdaptRequest
from babelflow.atomic_io import sha256_file, write_bytes_atomic
from babelflow.errors import BabelflowError, StaleArtifactError
from babelflow.ir import Record
from babelflow.saved_records import load_saved_record

MANIFEST_NAME = "babelflow_manifest.json"
OVERLAY_NAME = "babelflow_code_overlay.json"
# the canonical map the variant was built with: a variant carries its renderings (validators compare through it)
CANONICAL_MAP_NAME = "babelflow_canonical_map.json"
# written before a rebuild's first file and removed after its manifest: a folder a killed first
# rebuild left (files, no manifest yet) is still known to be babelflow's own
BUILD_MARK_NAME = "babelflow_build.json"


class CodeText(Record):
    """One translated code text. Docstrings are stored whole (parts re-joined, headers intact)."""

    module: str = Field(description="artifact path, e.g. domains/retail/tools.py")
    qualname: str
    role: Literal["docstring", "field_description", "constant", "tool_output", "error_message", "prompt"]
    occurrence: int
    name: str | None = None
    source: str
    target: str
    slots: list[str] | None = Field(
        default=None,
        description="the source's format slots and parsed keys in order, each kept by the target (None: an overlay "
        "written before slots were recorded)",
    )


class CodeOverlay(Record):
    schema_version: Literal["babelflow.code_overlay/1"] = "babelflow.code_overlay/1"
    language: str
    texts: list[CodeText] = Field(default_factory=list)

    def translated(self, module: str, source: str) -> str | None:
        """The variant's rendering of a code text of `module` (None when the overlay has none)."""
        for text in self.texts:
            if text.module == module and text.source.strip() == source.strip():
                return text.target.strip()
        return None

    def docstrings(self) -> dict[tuple[str, str], str]:
        return {(t.module, t.qualname): t.target for t in self.texts if t.role == "docstring"}

    def message_texts(self) -> list[CodeText]:
        """The texts that reach models through tool results and schemas."""
        return [t for t in self.texts if t.role in ("error_message", "tool_output", "constant", "field_description")]


class ArtifactHash(Record):
    path: str
    sha256: str
    inputs_sha256: str | None = Field(
        default=None,
        description=(
            "hash of what this output was built from (source file + its translations); equal inputs are not rewritten"
        ),
    )


class VariantManifest(Record):
    schema_version: Literal["babelflow.variant/1"] = "babelflow.variant/1"
    benchmark: str
    language: str
    domain_name: str = Field(description="name the variant registers under, e.g. retail_en-XA")
    source_version: str
    source_artifacts: list[ArtifactHash]
    ir_sha256: str
    profile_sha256: str
    canonical_map_version: str
    translator_id: str
    language_pack_version: str | None = None
    outputs: list[ArtifactHash]
    failed_units: int
    request: AdaptRequest | None = Field(
        default=None,
        description="what the run asked for (translator, entity overrides, profile...): every rebuild reads it",
    )


class VariantBuild(Record):
    """What a rebuild records in the manifest beside the IR's own hashes and the outputs it wrote."""

    language: str
    domain_name: str = Field(description="name the variant registers under, e.g. retail_en-XA")
    canonical_map_version: str
    translator_id: str
    failed_units: int
    language_pack_version: str | None = None
    request: AdaptRequest | None = None


class BuildMark(Record):
    """Says that a rebuild of this benchmark is writing into the folder (see BUILD_MARK_NAME)."""

    schema_version: Literal["babelflow.build_mark/1"] = "babelflow.build_mark/1"
    benchmark: str
    language: str


def folder_owner(folder: Path) -> str | None:
    """The benchmark whose variant (or rebuild in progress) this folder holds, None when neither
    a readable manifest nor a build mark is there."""
    folder = Path(folder)
    for name, model in ((MANIFEST_NAME, VariantManifest), (BUILD_MARK_NAME, BuildMark)):
        path = folder / name
        if not path.is_file() or path.is_symlink():
            continue
        try:
            return model.model_validate(orjson.loads(path.read_bytes())).benchmark
        except (OSError, orjson.JSONDecodeError, ValidationError):
            continue
    return None


def checked_owner(folder: Path, benchmark: str, option: str, verb: str) -> str | None:
    """`folder_owner`, refusing (exit 2) a folder that holds another benchmark's variant: the error names
    `option` and how to `verb` it instead ('validate it as tau3-mock')."""
    owner = folder_owner(folder)
    if owner is not None and owner != benchmark:
        raise BabelflowError(
            f"{folder} holds a variant of {owner}, not of {benchmark}",
            field=option,
            fix=f"{verb} it as {owner}, or pass a variant of {benchmark}",
        )
    return owner


def save_record(record: Record, path: Path) -> None:
    write_bytes_atomic(Path(path), orjson.dumps(record.model_dump(mode="json"), option=orjson.OPT_INDENT_2) + b"\n")


def load_manifest(variant_root: Path) -> VariantManifest:
    path = Path(variant_root) / MANIFEST_NAME
    try:
        return load_saved_record(
            path, VariantManifest, what="Variant manifest", fix="rebuild the variant with `babelflow adapt`"
        )
    except FileNotFoundError as exc:
        raise StaleArtifactError(
            "Variant has no manifest", file=path, fix="run `babelflow adapt` to (re)build the variant"
        ) from exc


class OutputDrift(Record):
    """How a variant's files stand against the hashes its manifest records."""

    missing: list[str] = Field(default_factory=list, description="outputs no longer there (a rebuild writes them)")
    edited: list[str] = Field(default_factory=list, description="outputs there with another hash (edited by hand)")


def output_drift(variant_root: Path) -> OutputDrift:
    """Each output the manifest lists, missing or changed since the rebuild wrote it (raises
    StaleArtifactError without a readable manifest)."""
    root = Path(variant_root)
    drift = OutputDrift()
    for output in load_manifest(root).outputs:
        path = root / output.path
        if not path.is_file():
            drift.missing.append(output.path)
        elif sha256_file(path) != output.sha256:
            drift.edited.append(output.path)
    return drift


def load_overlay(path: Path) -> CodeOverlay | None:
    path = Path(path)
    if not path.exists():
        return None
    return load_saved_record(path, CodeOverlay, what="Code overlay", fix="rebuild the variant with `babelflow adapt`")
