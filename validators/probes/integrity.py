"""Layer 1, integrity & structure: files present and parseable, skeletons equal, models load.

Families whose data go through `str.format()` when loaded (family.formats_data: AgentDojo's
environment) also keep every string's `{…}` slots and braces: one stray brace breaks the load or
injects elsewhere."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from babelflow.errors import BabelflowError
from babelflow.ir import ArtifactFormat, ArtifactRole, TranslationType
from source_benchmarks import family_of, get_benchmark, open_variant
from validators.context import ValidationContext
from validators.finding_kinds import Precondition, layers_needing
from validators.findings import Finding, Layer, Severity, SuppressedCheck, make_finding

MAX_PER_ARTIFACT = 20
_SLOT = re.compile(r"\{[^{}]*\}|[{}]")  # a format slot, or a brace that is not part of one


def _kind(value: Any) -> str:
    """The JSON kind of a value: YAML's round-trip types (a literal block string, a commented map)
    are the same kinds as their plain counterparts."""
    if value is None:
        return "null"
    for kind, name in ((bool, "bool"), (str, "str"), (int, "int"), (float, "float"), (dict, "dict"), (list, "list")):
        if isinstance(value, kind):
            return name
    return type(value).__name__


def _skeleton_diffs(
    source: Any, target: Any, path: tuple, renamed: set[tuple], out: list[tuple[str, tuple, str]]
) -> None:
    """Compare structure only (types, keys, lengths); strings may differ. Stops at MAX_PER_ARTIFACT."""
    if len(out) >= MAX_PER_ARTIFACT:
        return
    if _kind(source) != _kind(target) and not (
        isinstance(source, (int, float)) and isinstance(target, (int, float)) and type(source) is type(target)
    ):
        out.append(("type_changed", path, f"{_kind(source)} -> {_kind(target)}"))
        return
    if isinstance(source, dict):
        missing = [k for k in source if k not in target and path + (k,) not in renamed]
        extra = [k for k in target if k not in source]
        if len(extra) > len([k for k in source if k not in target]):
            out.append(("key_added", path, ", ".join(map(str, extra[:5]))))
        for key in missing[:5]:
            out.append(("key_removed", path + (key,), str(key)))
        for key, value in source.items():
            if key in target:
                _skeleton_diffs(value, target[key], path + (key,), renamed, out)
    elif isinstance(source, list):
        if len(source) != len(target):
            out.append(("list_length_changed", path, f"{len(source)} -> {len(target)}"))
            return
        for index, (a, b) in enumerate(zip(source, target)):
            _skeleton_diffs(a, b, path + (index,), renamed, out)


_ITEM_DIFFS: dict[
    bytes, list[tuple[str, tuple, str]]
] = {}  # digest of (source item, target item, renames) -> its diffs


def _document_skeleton_diffs(source: Any, target: Any, renamed: set[tuple]) -> list[tuple[str, tuple, str]]:
    """Structure diffs of a whole document. A long top-level list (2,285 telecom tasks) is compared
    item by item through a per-process memo on the items' content: a rerun that changed one task
    walks that task, not the file."""
    diffs: list[tuple[str, tuple, str]] = []
    if not (isinstance(source, list) and isinstance(target, list) and len(source) == len(target) and len(source) > 50):
        _skeleton_diffs(source, target, (), renamed, diffs)
        return diffs
    renamed_by_item: dict[int, list[tuple]] = {}
    for path in renamed:
        renamed_by_item.setdefault(path[0], []).append(path)
    if len(_ITEM_DIFFS) > 200_000:
        _ITEM_DIFFS.clear()
    for index, (a, b) in enumerate(zip(source, target)):
        renames = sorted(renamed_by_item.get(index, []), key=repr)
        try:
            key = hashlib.blake2b(orjson.dumps([a, b, [list(p[1:]) for p in renames]]), digest_size=16).digest()
        except TypeError:  # a value orjson cannot encode: compare without the memo
            _skeleton_diffs(a, b, (index,), renamed, diffs)
            continue
        found = _ITEM_DIFFS.get(key)
        if found is None:
            found = []
            _skeleton_diffs(a, b, (index,), set(renames), found)
            _ITEM_DIFFS[key] = [(kind, path[1:], what) for kind, path, what in found]
        else:
            found = [(kind, (index,) + path, what) for kind, path, what in found]
        diffs += found
        if len(diffs) >= MAX_PER_ARTIFACT:
            return diffs[:MAX_PER_ARTIFACT]
    return diffs


def _explain(source: Any, target: Any, path: tuple) -> str:
    """DeepDiff explains one small subtree (never used to find mismatches: too slow on 7 MB files)."""
    # deepdiff takes ~1-2 s to import; only a structure difference needs it
    from deepdiff import DeepDiff  # noqa: PLC0415

    for segment in path[:-1] if path else ():
        try:
            source, target = source[segment], target[segment]
        except (KeyError, IndexError, TypeError):
            break
    text = DeepDiff(source, target, max_diffs=5, max_passes=1).pretty()
    return text[:400]


def _skipped(missing: Precondition, artifact: str, reason: str) -> list[SuppressedCheck]:
    """The checks to skip on `artifact`: every layer with a kind that needs what it lacks."""
    return [
        SuppressedCheck(layer=layer, artifact=artifact, reason=reason)
        for layer in sorted(layers_needing(missing), key=list(Layer).index)
    ]


def check_integrity(ctx: ValidationContext, suppressed: list[SuppressedCheck]) -> list[Finding]:
    """The first layer: it adds to `suppressed` the checks later layers must skip (what a missing,
    unparseable or misshapen file, or a variant the harness rejects, makes meaningless)."""
    validator_id = ctx.validator_id
    findings: list[Finding] = []
    templated = family_of(ctx.source.id).formats_data
    for spec in ctx.specs:
        if spec.format is ArtifactFormat.PYTHON:
            continue
        target = ctx.target_document(spec)
        if spec.path in ctx.parse_errors or target is None:
            problem = ctx.parse_errors.get(spec.path, "missing")
            kind = "artifact_missing" if problem == "missing" else "artifact_unparseable"
            if kind == "artifact_missing" and spec.role in _OPTIONAL_ROLES and _harness_uses_source_copy(ctx, spec):
                # tau2 falls back to its packaged copy, equal to the source's: nothing behaves differently
                findings.append(
                    make_finding(
                        validator_id,
                        Layer.INTEGRITY,
                        kind,
                        Severity.NOTE,
                        spec.path,
                        "<file>",
                        f"{spec.path} is not in the variant: the harness uses the source's copy",
                        target=problem,
                    )
                )
                suppressed += _skipped(
                    Precondition.PAIRED, spec.path, "not in the variant (the harness uses the source's copy)"
                )
                continue
            findings.append(
                make_finding(
                    validator_id,
                    Layer.INTEGRITY,
                    kind,
                    Severity.CRITICAL,
                    spec.path,
                    "<file>",
                    f"{spec.path}: {problem}",
                    target=problem,
                )
            )
            suppressed += _skipped(Precondition.PARSED, spec.path, f"{kind}: checks of this file need it parsed")
            continue
        raw_text = ctx.target_path(spec).read_text(encoding="utf-8")
        if "⟦" in raw_text:
            line = raw_text[: raw_text.index("⟦")].count("\n") + 1
            findings.append(
                make_finding(
                    validator_id,
                    Layer.INTEGRITY,
                    "placeholder_left",
                    Severity.CRITICAL,
                    spec.path,
                    f"line {line}",
                    "a translation placeholder reached the output",
                    target=raw_text.splitlines()[line - 1],
                )
            )
        source = ctx.source_document(spec)
        if spec.format is ArtifactFormat.MARKDOWN:
            source_kinds = [b.kind for b in source.blocks]
            target_kinds = [b.kind for b in target.blocks]
            if source_kinds != target_kinds:
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
                findings.append(
                    make_finding(
                        validator_id,
                        Layer.INTEGRITY,
                        "markdown_structure_changed",
                        Severity.MAJOR,
                        spec.path,
                        f"block {index}",
                        f"Markdown blocks differ from block {index}",
                        element_id=block.id if block else None,
                        source=" ".join(source_kinds[index : index + 3]),
                        target=" ".join(target_kinds[index : index + 3]),
                    )
                )
            continue
        if templated:
            findings += _format_slots(ctx, spec.path, source, target)
        renamed = {
            tuple(e.locator.path)
            for e in ctx.elements_of(spec.path)
            if e.locator.kind == "data_key" and e.translation_type is not TranslationType.PRESERVE
        }
        diffs = _document_skeleton_diffs(source, target, renamed)
        if diffs:  # positions no longer line up: field-by-field checks of this file would only flood
            suppressed += _skipped(
                Precondition.PAIRED,
                spec.path,
                f"structure differs ({diffs[0][0]}): fields cannot be paired by position",
            )
        by_path = {
            (e.locator.kind, tuple(e.locator.path)): e.id
            for e in ctx.elements_of(spec.path)
            if e.locator.kind in ("data_key", "data_value")
        }
        for index, (kind, path, what) in enumerate(diffs):
            detail = {"deepdiff": _explain(source, target, path)} if index == 0 else {}
            element_id = by_path.get(("data_key", path)) or by_path.get(
                ("data_value", path)
            )  # name the field when it is one
            findings.append(
                make_finding(
                    validator_id,
                    Layer.INTEGRITY,
                    kind,
                    Severity.CRITICAL,
                    spec.path,
                    _where(path),
                    f"structure differs: {kind} ({what})",
                    element_id=element_id,
                    detail=detail,
                )
            )
    if not any(s.layer is Layer.BEHAVIOR for s in suppressed):
        findings += _models_and_schemas(ctx, validator_id, suppressed)
    return findings


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


def _format_slots(ctx: ValidationContext, artifact: str, source: Any, target: Any) -> list[Finding]:
    """Strings whose `{…}` slots or braces differ from the source's, paired by path."""
    targets = dict(_strings(target))
    ids = {tuple(e.locator.path): e.id for e in ctx.elements_of(artifact) if e.locator.kind == "data_value"}
    out = []
    for path, text in sorted(_strings(source), key=lambda item: str(item[0])):
        other = targets.get(path)
        if other is not None and sorted(_SLOT.findall(text)) != sorted(_SLOT.findall(other)):
            message = "format slots or braces differ: the harness's str.format() of this file breaks or injects"
            out.append(
                make_finding(
                    ctx.validator_id,
                    Layer.INTEGRITY,
                    "format_slots_changed",
                    Severity.CRITICAL,
                    artifact,
                    _where(path),
                    message,
                    element_id=ids.get(path),
                    source=text,
                    target=other,
                )
            )
    return out


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


def _models_and_schemas(ctx: ValidationContext, validator_id: str, suppressed: list[SuppressedCheck]) -> list[Finding]:
    findings: list[Finding] = []
    try:
        # a babelflow variant (data/ and a manifest), or another tool's copy of the data folder
        variant = (
            open_variant(ctx.source.id, ctx.variant_root)
            if not ctx.bare_data_dir
            else get_benchmark(ctx.source.id, source_dir=ctx.variant_root)
        )
        variant.validate_artifacts()
    except BabelflowError as exc:
        artifact = _relative(exc.file, ctx) if exc.file else "<variant>"
        findings.append(
            make_finding(
                validator_id,
                Layer.INTEGRITY,
                "model_rejects_variant",
                Severity.CRITICAL,
                artifact,
                exc.field or "<file>",
                f"the benchmark's own models reject the variant: {exc.message}",
                target=exc.message,
            )
        )
        suppressed += _skipped(Precondition.LOADS, "*", "the variant does not load into the benchmark's models")
        return findings
    ctx.variant_bench = variant
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
            findings.append(
                make_finding(
                    validator_id,
                    Layer.INTEGRITY,
                    "tool_schema_changed",
                    Severity.CRITICAL,
                    "<tool schemas>",
                    function["name"],
                    f"unknown tool {function['name']}",
                )
            )
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
            findings.append(
                make_finding(
                    validator_id,
                    Layer.INTEGRITY,
                    "tool_schema_changed",
                    Severity.CRITICAL,
                    module,
                    qualname,
                    f"tool {function['name']}: parameters or their descriptions changed "
                    f"({', '.join(lost) or 'names/required'})",
                    source=str(list(params_a)),
                    target=str(list(params_b)),
                )
            )
    return findings
