"""Layer 1, integrity & structure: files present and parseable, skeletons equal, models load.

Its checks run first: what they find missing, unparseable, misshapen or rejected by the harness
suppresses the later layers' checks that need it (`scope.suppressed`).

Families whose data go through `str.format()` when loaded (family.formats_data: AgentDojo's
environment) also keep every string's `{…}` slots and braces: one stray brace breaks the load or
injects elsewhere."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from babelflow.errors import BabelflowError
from babelflow.ir import ArtifactFormat, ArtifactRole
from source_benchmarks import family_of
from source_benchmarks.protocol import ArtifactSpec
from validators.checks import Scope, check, check_on
from validators.context import ValidationContext
from validators.finding_kinds import (
    LOADS,
    PARSED,
    Layer,
    Precondition,
    Severity,
    declare_kind,
    declare_kinds,
    layers_needing,
)
from validators.findings import Hit, SuppressedCheck
from validators.probes.skeleton import explain, unpaired_prefixes

parsed_integrity = check_on(Layer.INTEGRITY, PARSED)

_SLOT = re.compile(r"\{[^{}]*\}|[{}]")  # a format slot, or a brace that is not part of one


def _skipped(missing: Precondition, artifact: str, reason: str, paths: tuple[tuple, ...] = ()) -> list[SuppressedCheck]:
    """The checks to skip on `artifact` (only under `paths` when given): every layer with a kind that
    needs what it lacks."""
    return [
        SuppressedCheck(layer=layer, artifact=artifact, reason=reason, paths=[list(p) for p in paths])
        for layer in sorted(layers_needing(missing), key=list(Layer).index)
    ]


def _parsed(ctx: ValidationContext) -> Iterator[tuple[ArtifactSpec, Any]]:
    """The variant's data and Markdown files that exist and parse, with their parsed documents."""
    for spec in ctx.specs:
        if spec.format is ArtifactFormat.PYTHON:
            continue
        target = ctx.target_document(spec)
        if spec.path not in ctx.parse_errors and target is not None:
            yield spec, target


ARTIFACT_UNPARSEABLE = declare_kind(
    "artifact_unparseable", Layer.INTEGRITY, Severity.CRITICAL, frozenset(), "a file of the variant does not parse"
)


@check(
    "artifact_missing",
    Layer.INTEGRITY,
    Severity.CRITICAL,
    summary="a file of the benchmark is not in the variant",
    also=(ARTIFACT_UNPARSEABLE,),
)
def artifact_missing(ctx: ValidationContext, scope: Scope) -> Iterator[Hit]:
    """A file missing or unparseable: the checks of it that need it parsed are suppressed."""
    for spec in ctx.specs:
        if spec.format is ArtifactFormat.PYTHON:
            continue
        target = ctx.target_document(spec)
        if spec.path not in ctx.parse_errors and target is not None:
            continue
        problem = ctx.parse_errors.get(spec.path, "missing")
        kind = "artifact_missing" if problem == "missing" else "artifact_unparseable"
        if kind == "artifact_missing" and spec.role in _OPTIONAL_ROLES and _harness_uses_source_copy(ctx, spec):
            # tau2 falls back to its packaged copy, equal to the source's: nothing behaves differently
            yield Hit(
                kind=kind,
                severity=Severity.NOTE,
                artifact=spec.path,
                location="<file>",
                message=f"{spec.path} is not in the variant: the harness uses the source's copy",
                target=problem,
            )
            scope.suppressed += _skipped(
                Precondition.PAIRED, spec.path, "not in the variant (the harness uses the source's copy)"
            )
            continue
        yield Hit(kind=kind, artifact=spec.path, location="<file>", message=f"{spec.path}: {problem}", target=problem)
        scope.suppressed += _skipped(Precondition.PARSED, spec.path, f"{kind}: checks of this file need it parsed")


@parsed_integrity("placeholder_left", Severity.CRITICAL, "a ⟦N⟧ translation placeholder reached the output")
def placeholder_in_file(ctx: ValidationContext, scope: Scope) -> Iterator[Hit]:
    for spec, _ in _parsed(ctx):
        raw_text = ctx.target_path(spec).read_text(encoding="utf-8")
        if "⟦" in raw_text:
            line = raw_text[: raw_text.index("⟦")].count("\n") + 1
            yield Hit(
                artifact=spec.path,
                location=f"line {line}",
                message="a translation placeholder reached the output",
                target=raw_text.splitlines()[line - 1],
            )


@parsed_integrity("markdown_structure_changed", Severity.MAJOR, "Markdown blocks (headings, lists, code) differ")
def markdown_structure_changed(ctx: ValidationContext, scope: Scope) -> Iterator[Hit]:
    for spec, target in _parsed(ctx):
        if spec.format is not ArtifactFormat.MARKDOWN:
            continue
        source_kinds = [b.kind for b in ctx.source_document(spec).blocks]
        target_kinds = [b.kind for b in target.blocks]
        if source_kinds == target_kinds:
            continue
        index = next(
            (i for i, (a, b) in enumerate(zip(source_kinds, target_kinds)) if a != b),
            min(len(source_kinds), len(target_kinds)),
        )
        block = next(
            (
                e
                for e in ctx.elements_of(spec.path)
                if e.locator.kind == "markdown_block" and e.locator.block_index == index
            ),
            None,
        )
        yield Hit(
            artifact=spec.path,
            location=f"block {index}",
            message=f"Markdown blocks differ from block {index}",
            element_id=block.id if block else None,
            source=" ".join(source_kinds[index : index + 3]),
            target=" ".join(target_kinds[index : index + 3]),
        )


@parsed_integrity(
    "format_slots_changed",
    Severity.CRITICAL,
    "the `{…}` format slots or braces of a field differ (str.format() of the file)",
)
def format_slots_changed(ctx: ValidationContext, scope: Scope) -> Iterator[Hit]:
    """Families whose data go through str.format() (family.formats_data): strings whose `{…}`
    slots or braces differ from the source's, paired by path."""
    if not family_of(ctx.source.id).formats_data:
        return
    for spec, target in _parsed(ctx):
        if spec.format is ArtifactFormat.MARKDOWN:
            continue
        targets = dict(_strings(target))
        ids = {tuple(e.locator.path): e.id for e in ctx.elements_of(spec.path) if e.locator.kind == "data_value"}
        for path, text in sorted(_strings(ctx.source_document(spec)), key=lambda item: str(item[0])):
            other = targets.get(path)
            if other is not None and sorted(_SLOT.findall(text)) != sorted(_SLOT.findall(other)):
                yield Hit(
                    artifact=spec.path,
                    location=_where(path),
                    message="format slots or braces differ: the harness's str.format() of this file breaks or injects",
                    element_id=ids.get(path),
                    source=text,
                    target=other,
                )


KEY_ADDED, KEY_REMOVED, LIST_LENGTH_CHANGED = declare_kinds(
    Layer.INTEGRITY,
    PARSED,
    ("key_added", Severity.CRITICAL, "a key the source does not have"),
    ("key_removed", Severity.CRITICAL, "a key of the source is gone"),
    ("list_length_changed", Severity.CRITICAL, "a list has another length"),
)


@parsed_integrity(
    "type_changed",
    Severity.CRITICAL,
    "a value has another JSON type",
    also=(KEY_ADDED, KEY_REMOVED, LIST_LENGTH_CHANGED),
)
def skeleton_changed(ctx: ValidationContext, scope: Scope) -> Iterator[Hit]:
    """A data file whose structure (types, keys, lengths) differs: its fields no longer pair by position,
    so the field-by-field checks of it are suppressed (they would only flood)."""
    for spec, target in _parsed(ctx):
        if spec.format is ArtifactFormat.MARKDOWN:
            continue
        source = ctx.source_document(spec)
        diffs = ctx.skeleton_diffs.get(spec.path, [])
        prefixes = unpaired_prefixes(diffs)
        if diffs and prefixes is None:
            scope.suppressed += _skipped(
                Precondition.PAIRED,
                spec.path,
                f"structure differs ({diffs[0][0]}): fields cannot be paired by position",
            )
        elif diffs and prefixes:  # confined to some subtrees (one task's list): the rest of the file still pairs
            scope.suppressed += _skipped(
                Precondition.PAIRED,
                spec.path,
                f"structure differs ({diffs[0][0]}) under {len(prefixes)} path(s), e.g. {_where(prefixes[0])}: "
                "their fields cannot be paired by position; the rest of the file is checked",
                paths=prefixes,
            )
        by_path = {
            (e.locator.kind, tuple(e.locator.path)): e.id
            for e in ctx.elements_of(spec.path)
            if e.locator.kind in ("data_key", "data_value")
        }
        for index, (kind, path, what) in enumerate(diffs):
            read = _read_alike(spec, source, target, path) if kind == "list_length_changed" else None
            yield Hit(
                kind=kind,
                artifact=spec.path,
                location=_where(path),
                message=f"structure differs: {kind} ({what})" + (read or ""),
                # name the field when it is one
                element_id=by_path.get(("data_key", path)) or by_path.get(("data_value", path)),
                detail={"deepdiff": explain(source, target, path)} if index == 0 else {},
                severity=Severity.NOTE if read else None,
            )


def _read_alike(spec: ArtifactSpec, source: Any, target: Any, path: tuple) -> str | None:
    """Why a list of another length reads the same to the harness (a FlatReading of its file: as many texts
    in the concatenation it reads), or None."""
    for reading in spec.read_flat:
        below = path[1:]
        if len(below) != len(reading.path) or any(p not in ("*", b) for p, b in zip(reading.path, below)):
            continue
        texts = [_flat(_at(document, path), reading) for document in (source, target)]
        if texts[0] is not None and texts[1] is not None and len(texts[0]) == len(texts[1]):
            return (
                f": the harness reads only its items' {reading.items}, "
                + ("each once, " if reading.distinct else "")
                + f"{len(texts[0])} in the source and in the variant"
            )
    return None


def _at(document: Any, path: tuple) -> Any:
    for segment in path:
        try:
            document = document[segment]
        except (KeyError, IndexError, TypeError):
            return None
    return document


def _flat(items: Any, reading) -> list | None:
    if not isinstance(items, list):
        return None
    texts: list = []
    for item in items:
        read = item.get(reading.items) if isinstance(item, dict) else None
        for text in read if isinstance(read, list) else []:
            if not (reading.distinct and text in texts):
                texts.append(text)
    return texts


def _strings(node: Any, path: tuple = ()) -> Iterator[tuple[tuple, str]]:
    """(path, value) of every string of a parsed document, keys of maps included in the path."""
    stack = [(node, path)]
    while stack:
        value, where = stack.pop()
        if isinstance(value, str):
            yield where, str(value)
        elif isinstance(value, dict):
            stack.extend((v, where + (k,)) for k, v in value.items())
        elif isinstance(value, list):
            stack.extend((v, where + (i,)) for i, v in enumerate(value))


def _where(path: tuple) -> str:
    return "$" + "".join(f"[{p!r}]" for p in path)


_OPTIONAL_ROLES = (ArtifactRole.USER_GUIDELINES, ArtifactRole.TASK_SPLIT)


def _harness_uses_source_copy(ctx: ValidationContext, spec) -> bool:
    """A file missing from a variant laid out like tau2's data/ folder is read from the installed
    package; that is harmless only when the package's copy is the source's."""
    packaged = getattr(ctx.source, "root", None)
    if packaged is None or not ctx.bare_data_dir:
        return False
    fallback, source = Path(packaged) / spec.path, ctx.source.artifact_path(spec)
    return fallback.exists() and source.exists() and fallback.read_bytes() == source.read_bytes()


def _relative(file: str, ctx: ValidationContext) -> str:
    """Name files as the IR does (relative to the benchmark root), so finding ids are stable."""
    path = Path(file)
    for spec in ctx.specs:
        if ctx.target_path(spec) == path:
            return spec.path
    if path.resolve() == ctx.variant_root.resolve():  # the harness names the whole variant, not a file
        return "<variant>"
    return str(path)


def _function(schema: dict) -> dict:
    """A tool schema's function part: OpenAI's {"type": "function", "function": {...}} (τ²) or the
    function itself ({"name", "description", "parameters"}: AgentDojo)."""
    return schema.get("function", schema)


@parsed_integrity("model_rejects_variant", Severity.CRITICAL, "the benchmark's own models reject the variant")
def model_rejects_variant(ctx: ValidationContext, scope: Scope) -> Iterator[Hit]:
    """The variant opened in the benchmark's own harness (`ctx.loaded`, which behaviour and the agents'
    replays read); one that does not load suppresses what needs it loaded."""
    if any(s.layer is Layer.BEHAVIOR for s in scope.suppressed):
        return
    exc = ctx.loaded
    if isinstance(exc, BabelflowError):
        yield Hit(
            artifact=_relative(exc.file, ctx) if exc.file else "<variant>",
            location=exc.field or "<file>",
            message=f"the benchmark's own models reject the variant: {exc.message}",
            target=exc.message,
        )
        scope.suppressed += _skipped(Precondition.LOADS, "*", "the variant does not load into the benchmark's models")


@check(
    "tool_schema_changed", Layer.INTEGRITY, Severity.CRITICAL, needs=LOADS, summary="a tool's name or parameters differ"
)
def tool_schema_changed(ctx: ValidationContext, scope: Scope) -> Iterator[Hit]:
    variant = ctx.harness
    if variant is None or any(s.layer is Layer.BEHAVIOR for s in scope.suppressed):
        return
    docstrings = {
        t.qualname.rsplit(".", 1)[-1]: (t.module, t.qualname)
        for t in (ctx.overlay.texts if ctx.overlay else [])
        if t.role == "docstring"
    }
    source_schemas = {_function(s)["name"]: _function(s) for s in ctx.source.tool_schemas()}
    for schema in variant.tool_schemas():
        function = _function(schema)
        before = source_schemas.get(function["name"])
        if before is None:
            yield Hit(artifact="<tool schemas>", location=function["name"], message=f"unknown tool {function['name']}")
            continue
        a, b = before["parameters"], function["parameters"]
        params_a, params_b = a.get("properties", {}), b.get("properties", {})
        lost = [
            name
            for name, prop in params_a.items()
            if name not in params_b or ("description" in prop) != ("description" in params_b[name])
        ]
        if list(params_a) != list(params_b) or a.get("required") != b.get("required") or lost:
            module, qualname = docstrings.get(function["name"], ("<tool schemas>", function["name"]))
            yield Hit(
                artifact=module,
                location=qualname,
                message=f"tool {function['name']}: parameters or their descriptions changed "
                f"({', '.join(lost) or 'names/required'})",
                source=str(list(params_a)),
                target=str(list(params_b)),
            )
