"""Step 3b: write translations back into a copy of the source structure (adapted/<bench>/<lang>/).

JSON/TOML keep their keys, nesting and order (TOML through tomlkit, so its layout survives);
Markdown keeps its block structure; Python texts go to a code overlay applied at run time, with
Google-style docstrings re-joined around their untouched `Args:`/`Returns:` headers. Every file is
written atomically and the manifest, written last, pins the hashes of what was written.
"""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import orjson
import tomlkit

from babelflow.atomic_io import remove_stale_temps, sha256_bytes, sha256_file, write_bytes_atomic
from babelflow.canonical_map import CanonicalMap, save_canonical_map
from babelflow.docstring_parts import DocstringPart, reindent_translation, split_docstring
from babelflow.errors import BabelflowError
from babelflow.format_slots import target_slot_problems
from babelflow.ir import (
    ArtifactFormat,
    DataKeyLocator,
    DataValueLocator,
    IRDocument,
    IRElement,
    MarkdownBlockLocator,
    TranslationType,
)
from babelflow.markdown_blocks import split_markdown
from babelflow.output_guard import check_variant_out
from babelflow.python_docstrings import docstrings_of
from babelflow.variant import (
    BUILD_MARK_NAME,
    CANONICAL_MAP_NAME,
    MANIFEST_NAME,
    OVERLAY_NAME,
    ArtifactHash,
    BuildMark,
    CodeOverlay,
    CodeText,
    VariantBuild,
    VariantManifest,
    load_manifest,
    save_record,
)
from source_benchmarks.formats import dump_document, load_document, read_text
from source_benchmarks.protocol import ArtifactSpec, SourceBenchmark
from source_benchmarks.yaml_io import dump_yaml, load_yaml, set_at


def _set_at(document: Any, path: tuple, value: Any, *, rename_key: bool) -> None:
    parent = document
    for segment in path[:-1]:
        parent = parent[segment]
    last = path[-1]
    if not rename_key:
        parent[last] = value
        return
    items = list(parent.items())  # rename a map key in place, keeping the order of the entries
    parent.clear()
    for key, item in items:
        parent[value if key == last else key] = item


def _data_locator(element: IRElement) -> DataValueLocator | DataKeyLocator:
    if not isinstance(element.locator, (DataValueLocator, DataKeyLocator)):
        raise BabelflowError(
            f"A data file's field has a {element.locator.kind} locator",
            field=element.role,
            fix="the IR is stale: re-run `babelflow analyze`",
        )
    return element.locator


def _block_locator(element: IRElement) -> MarkdownBlockLocator:
    if not isinstance(element.locator, MarkdownBlockLocator):
        raise BabelflowError(
            f"A Markdown file's field has a {element.locator.kind} locator",
            field=element.role,
            fix="the IR is stale: re-run `babelflow analyze`",
        )
    return element.locator


def _write_data(spec: ArtifactSpec, source: Path, dest: Path, changes: list[tuple[IRElement, str]]) -> None:
    if spec.format is ArtifactFormat.TOML:
        document: Any = tomlkit.parse(read_text(source))
    else:
        document = load_document(source, spec.format)
    located = [(_data_locator(element), element, target) for element, target in changes]
    # keys last and deepest first, so renaming a key never invalidates a later path
    for locator, element, target in sorted(located, key=lambda c: (c[0].kind == "data_key", -len(c[0].path))):
        try:
            _set_at(document, tuple(locator.path), target, rename_key=locator.kind == "data_key")
        except (KeyError, IndexError, TypeError) as exc:
            raise BabelflowError(
                f"IR locator does not exist in the source: {locator.path}",
                file=source,
                field=element.role,
                fix="the IR is stale: re-run `babelflow analyze`",
            ) from exc
    if spec.format is ArtifactFormat.TOML:
        write_bytes_atomic(dest, tomlkit.dumps(document).encode("utf-8"))
    else:
        dump_document(dest, spec.format, document)


def _write_yaml(source: Path, dest: Path, changes: list[tuple[IRElement, str]]) -> None:
    """Round trip (ruamel.yaml): layout, comments and scalar styles of the source are kept."""
    document = load_yaml(source)
    for element, target in changes:
        set_at(document, tuple(_data_locator(element).path), target)
    dump_yaml(dest, document)


def _write_markdown(source: Path, dest: Path, changes: list[tuple[IRElement, str]]) -> None:
    document = split_markdown(read_text(source))
    replacements = {_block_locator(element).block_index: target for element, target in changes}
    write_bytes_atomic(dest, document.join(replacements).encode("utf-8"))


def _docstring_target(original: str, part_targets: dict[int, tuple[str, str]], where: str) -> str:
    parts: list[DocstringPart] = split_docstring(original)
    for index, (source, _) in part_targets.items():
        if index >= len(parts) or parts[index].text != source:
            raise BabelflowError(
                f"docstring part {index} no longer matches the IR",
                file=where,
                fix="the IR is stale: re-run `babelflow analyze`",
            )
    out = []
    for index, part in enumerate(parts):
        target = part_targets.get(index)
        out.append(part.text if target is None else reindent_translation(part, target[1]))
    return "".join(out)


def _overlay(bench: SourceBenchmark, ir: IRDocument, targets: dict[str, str], language: str) -> CodeOverlay:
    overlay = CodeOverlay(language=language)
    specs = {s.path: s for s in bench.artifacts()}
    docstring_parts: dict[tuple[str, str, int], dict[int, tuple[str, str]]] = defaultdict(dict)
    for element in ir.elements:
        locator = element.locator
        if locator.kind != "python_literal" or element.id not in targets:
            continue
        if locator.role == "docstring" and locator.part is not None:
            docstring_parts[(element.artifact, locator.qualname, locator.occurrence)][locator.part] = (
                element.source_text,
                targets[element.id],
            )
        elif target_slot_problems(element.code_slots, targets[element.id]):
            continue  # the engine refuses these; a targets file edited since is still never written
        elif targets[element.id] != element.source_text:
            overlay.texts.append(
                CodeText(
                    module=element.artifact,
                    qualname=locator.qualname,
                    role=locator.role,
                    occurrence=locator.occurrence,
                    source=element.source_text,
                    target=targets[element.id],
                    slots=[slot.text for slot in element.code_slots],
                )
            )
    for (module, qualname, occurrence), part_targets in sorted(docstring_parts.items()):
        where = bench.artifact_path(specs[module])
        original = docstrings_of(where).get(qualname)
        if original is None:
            raise BabelflowError(
                f"docstring of {qualname} not found", file=where, fix="the IR is stale: re-run `babelflow analyze`"
            )
        target = _docstring_target(original, part_targets, f"{where}:{qualname}")
        overlay.texts.append(
            CodeText(
                module=module,
                qualname=qualname,
                role="docstring",
                occurrence=occurrence,
                source=original,
                target=target,
            )
        )
    return overlay


def _previous_outputs(out_root: Path) -> dict[str, ArtifactHash]:
    try:
        return {o.path: o for o in load_manifest(out_root).outputs if o.inputs_sha256}
    except BabelflowError:  # no variant yet, or one we cannot read: rebuild every file
        return {}


def source_folders(bench: SourceBenchmark) -> tuple[list[Path], list[Path]]:
    """(folders holding the benchmark's source files, its installed package root): what a variant
    folder must never be, contain or (for the package) lie inside (babelflow/output_guard.py)."""
    sources = {bench.artifact_path(spec).parent for spec in bench.artifacts()}
    source_dir = getattr(bench, "source_dir", None)  # tau2's --source-dir (a data/ folder of another release)
    if source_dir is not None:
        sources.add(Path(source_dir))
    return sorted(sources), [Path(bench.root)]


def check_out(
    bench: SourceBenchmark, out_root: Path, benchmark: str | None = None, extra_packages: Sequence[Path] = ()
) -> Path:
    """The resolved variant folder if babelflow may write this benchmark's variant there (else exit 2)."""
    sources, packages = source_folders(bench)
    return check_variant_out(out_root, benchmark or bench.id, sources=sources, packages=[*packages, *extra_packages])


def _inside(dest: Path, root: Path) -> Path:
    """`dest` unless a link inside the variant folder would carry the write out of it."""
    if not Path(os.path.realpath(dest.parent)).is_relative_to(root):
        raise BabelflowError(
            "A folder inside the variant is a link out of it: the write would land elsewhere",
            file=dest.parent,
            fix="remove the link from the variant folder (babelflow writes real folders only)",
        )
    return dest


def rebuild_variant(
    bench: SourceBenchmark,
    ir: IRDocument,
    targets: dict[str, str],
    out_root: Path,
    build: VariantBuild,
    *,
    ir_sha256: str | None = None,
    canonical_map: CanonicalMap | None = None,
) -> VariantManifest:
    """Write the variant; an output whose inputs (source file, its translations) are those of the
    manifest already there, and whose file is intact, is kept as it is (a rerun after one fixed
    unit rewrites one file, not the benchmark)."""
    out_root = Path(out_root)
    root = check_out(bench, out_root, ir.benchmark)  # a source, code, or a folder that is not ours: exit 2
    remove_stale_temps(root)  # a killed earlier writer's temp files, never a user's `notes.tmp`
    save_record(BuildMark(benchmark=ir.benchmark, language=build.language), out_root / BUILD_MARK_NAME)
    by_artifact: dict[str, list[tuple[IRElement, str]]] = defaultdict(list)
    for element in ir.elements:
        target = targets.get(element.id)
        if target is not None and target != element.source_text:
            by_artifact[element.artifact].append((element, target))
    outputs: list[ArtifactHash] = []
    previous = _previous_outputs(out_root)
    source_hashes = {a.path: a.sha256 for a in ir.artifacts}
    for spec in bench.artifacts():
        source, dest = bench.artifact_path(spec), _inside(out_root / spec.path, root)
        if spec.format is ArtifactFormat.PYTHON:
            continue
        changes = by_artifact.get(spec.path, [])
        inputs = sha256_bytes(
            orjson.dumps([source_hashes.get(spec.path) or sha256_file(source), sorted((e.id, t) for e, t in changes)])
        )
        kept = previous.get(spec.path)
        if kept is not None and kept.inputs_sha256 == inputs and dest.exists() and sha256_file(dest) == kept.sha256:
            outputs.append(kept)
            continue
        if spec.format in (ArtifactFormat.JSON, ArtifactFormat.TOML) and changes:
            _write_data(spec, source, dest, changes)
        elif spec.format is ArtifactFormat.MARKDOWN and changes:
            _write_markdown(source, dest, changes)
        elif spec.format is ArtifactFormat.YAML and changes:
            _write_yaml(source, dest, changes)
        else:
            write_bytes_atomic(dest, source.read_bytes())  # nothing to translate: an exact copy
        outputs.append(ArtifactHash(path=spec.path, sha256=sha256_file(dest), inputs_sha256=inputs))
    overlay_path = out_root / OVERLAY_NAME
    save_record(_overlay(bench, ir, targets, build.language), overlay_path)
    outputs.append(ArtifactHash(path=OVERLAY_NAME, sha256=sha256_file(overlay_path)))
    if canonical_map is not None:  # the renderings travel with the variant (validated through them)
        carried = canonical_map.model_copy(deep=True)
        # only the terms this IR renders: a term an earlier analysis made canonical (the map keeps it for
        # reviewers) is no rendering of this variant, and would be read as one by its validation
        live = {
            (e.canonical_group or "default", e.source_text)
            for e in ir.elements
            if e.translation_type is TranslationType.TRANSLATE_CANONICAL
        }
        carried.entries = [entry for entry in carried.entries if (entry.group, entry.source) in live]
        save_canonical_map(carried, out_root / CANONICAL_MAP_NAME, whole=True)
        outputs.append(ArtifactHash(path=CANONICAL_MAP_NAME, sha256=sha256_file(out_root / CANONICAL_MAP_NAME)))
    manifest = VariantManifest(
        benchmark=ir.benchmark,
        language=build.language,
        domain_name=build.domain_name,
        source_version=ir.source_version,
        source_artifacts=[ArtifactHash(path=a.path, sha256=a.sha256) for a in ir.artifacts],
        ir_sha256=ir_sha256 or ir.content_sha256(),  # the saved IR file's hash when the caller has it
        profile_sha256=ir.profile_sha256,
        canonical_map_version=build.canonical_map_version,
        translator_id=build.translator_id,
        language_pack_version=build.language_pack_version,
        outputs=outputs,
        failed_units=build.failed_units,
        request=build.request,
    )
    save_record(manifest, out_root / MANIFEST_NAME)
    (out_root / BUILD_MARK_NAME).unlink(missing_ok=True)  # the manifest now says whose folder this is
    return manifest
