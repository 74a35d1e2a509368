"""Defects in files, structure and the code overlay (layer 1: integrity)."""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from babelflow.ir import ArtifactFormat, ArtifactRole, IRDocument, PreserveReason, TranslationType
from babelflow.variant import OVERLAY_NAME, CodeOverlay, CodeText, save_record
from bench.defects._common import (
    _HAS_LETTER,
    BEHAVIOR,
    CONSISTENCY,
    INTEGRITY,
    DefectNotApplicable,
    InjectedDefect,
    _accent,
    _artifacts,
    _Doc,
    _edit_element,
    _elements,
    _get,
    _mistranslate,
    _pick,
    _record,
    _task_id,
    _tasks_json,
    _translated_prose,
    json_path,
    variant_language,
)

# ---- Layer 1 (integrity): files and structure ---------------------------------------------


def heading_marker_lost(variant_dir: Path, ir: IRDocument, rng: random.Random) -> InjectedDefect:
    """A Markdown heading's '# ' marker removed (the heading becomes a paragraph)."""
    marker = re.compile(r"^\s{0,3}#{1,6}[ \t]+")
    policies = _artifacts(ir, ArtifactRole.POLICY, ArtifactFormat.MARKDOWN)
    candidates = _elements(
        ir, artifacts=policies, kinds=("markdown_block",), where=lambda e: e.locator.block_kind == "heading"
    )
    element = _pick(rng, candidates, "policy heading")
    _edit_element(variant_dir, ir, element, lambda text: marker.sub("", text, count=1))
    return _record("heading_marker_lost", "heading marker '# ' removed", element, [INTEGRITY], variant_dir, ir)


def _policy_file(ir: IRDocument) -> str:
    policies = _artifacts(ir, ArtifactRole.POLICY, ArtifactFormat.MARKDOWN)
    if not policies:
        raise DefectNotApplicable("no policy file")
    exact = [p for p in policies if Path(p).name == "policy.md"]
    main = [p for p in policies if Path(p).name.startswith("main_policy") or Path(p).name == "policy.md"]
    return (exact or main or policies)[0]


def file_missing(variant_dir: Path, ir: IRDocument, rng: random.Random) -> InjectedDefect:
    """The policy file deleted."""
    artifact = _policy_file(ir)
    (Path(variant_dir) / artifact).unlink()
    return InjectedDefect(
        kind="file_missing",
        description=f"{artifact} deleted",
        artifact=artifact,
        location="<file>",
        expected_layers=[INTEGRITY],
    )


def json_malformed(variant_dir: Path, ir: IRDocument, rng: random.Random) -> InjectedDefect:
    """tasks.json truncated mid-file (an interrupted write)."""
    artifact = _tasks_json(ir)
    path = Path(variant_dir) / artifact
    data = path.read_bytes()
    cut = len(data) // 2 + rng.randrange(max(1, len(data) // 4))
    path.write_bytes(data[:cut])
    return InjectedDefect(
        kind="json_malformed",
        description=f"{artifact} truncated at byte {cut} of {len(data)}",
        artifact=artifact,
        location="<file>",
        expected_layers=[INTEGRITY],
    )


def _numeric_leaves(node: Any, path: tuple = ()) -> list[tuple]:
    if isinstance(node, bool):
        return []
    if isinstance(node, (int, float)):
        return [path]
    if isinstance(node, dict):
        return [p for key, value in node.items() for p in _numeric_leaves(value, path + (str(key),))]
    if isinstance(node, list):
        return [p for index, value in enumerate(node) for p in _numeric_leaves(value, path + (index,))]
    return []


def json_type_changed(variant_dir: Path, ir: IRDocument, rng: random.Random) -> InjectedDefect:
    """A number in the DB written as a string (19.5 -> "19.5")."""
    for artifact in _artifacts(ir, ArtifactRole.DATABASE):
        doc = _Doc(variant_dir, ir, artifact)
        plain = doc.value.unwrap() if doc.fmt is ArtifactFormat.TOML else doc.value
        leaves = _numeric_leaves(plain)
        if not leaves:
            continue
        path = _pick(rng, leaves, "number in the DB")
        value = _get(plain, path)
        _get(doc.value, path[:-1])[path[-1]] = str(value)
        doc.save()
        return InjectedDefect(
            kind="json_type_changed",
            description=f"{json_path(path)}: {value!r} written as the string {str(value)!r}",
            artifact=artifact,
            location=json_path(path),
            expected_layers=[INTEGRITY],
        )
    raise DefectNotApplicable("no number in any DB file")


def _task_index(
    variant_dir: Path, ir: IRDocument, rng: random.Random, suitable: Callable[[dict], bool] = lambda t: True
) -> tuple[_Doc, int]:
    doc = _Doc(variant_dir, ir, _tasks_json(ir))
    if not isinstance(doc.value, list):
        raise DefectNotApplicable("tasks file is not a list")
    indexes = [i for i, task in enumerate(doc.value) if isinstance(task, dict) and suitable(task)]
    return doc, _pick(rng, indexes, "suitable task")


def key_added(variant_dir: Path, ir: IRDocument, rng: random.Random) -> InjectedDefect:
    """An extra key added to a task (a translator's note kept in the output)."""
    doc, index = _task_index(variant_dir, ir, rng)
    doc.value[index]["translation_note"] = _mistranslate("Reviewed by the translator", variant_language(variant_dir))
    doc.save()
    return InjectedDefect(
        kind="key_added",
        description=f"task #{index} gained a 'translation_note' key",
        artifact=doc.artifact,
        location=json_path((index,)),
        expected_layers=[INTEGRITY],
        task_id=doc.value[index].get("id"),
    )


def key_removed(variant_dir: Path, ir: IRDocument, rng: random.Random) -> InjectedDefect:
    """A key of a task removed (a translated field dropped together with its key)."""
    tasks = _tasks_json(ir)
    candidates = [
        e
        for e in _translated_prose(ir, variant_dir, artifacts=[tasks], data_only=True)
        if isinstance(e.locator.path[-1], str)
    ]
    element = _pick(rng, candidates, "task field to remove")
    doc = _Doc(variant_dir, ir, tasks)
    parent = _get(doc.value, element.locator.path[:-1])
    del parent[element.locator.path[-1]]
    doc.save()
    return InjectedDefect(
        kind="key_removed",
        description=f"key {element.locator.path[-1]!r} removed at {json_path(element.locator.path[:-1])}",
        artifact=tasks,
        location=json_path(element.locator.path),
        expected_layers=[INTEGRITY],
        task_id=_task_id(variant_dir, ir, element),
    )


def list_element_dropped(variant_dir: Path, ir: IRDocument, rng: random.Random) -> InjectedDefect:
    """One task dropped from the task list."""
    doc, index = _task_index(variant_dir, ir, rng)
    removed = doc.value.pop(index)
    doc.save()
    return InjectedDefect(
        kind="list_element_dropped",
        description=f"task #{index} ({removed.get('id')}) removed",
        artifact=doc.artifact,
        location="$",
        expected_layers=[INTEGRITY, BEHAVIOR],
        task_id=removed.get("id"),
    )


def gold_actions_reordered(variant_dir: Path, ir: IRDocument, rng: random.Random) -> InjectedDefect:
    """Two consecutive gold actions of one task swapped."""

    def actions(task: dict) -> list:
        return ((task.get("evaluation_criteria") or {}).get("actions")) or []

    def swappable(task: dict) -> list[int]:
        steps = actions(task)
        return [i for i in range(len(steps) - 1) if steps[i].get("name") != steps[i + 1].get("name")]

    doc, index = _task_index(variant_dir, ir, rng, lambda task: bool(swappable(task)))
    task = doc.value[index]
    first = _pick(rng, swappable(task), "pair of gold actions")
    steps = actions(task)
    steps[first], steps[first + 1] = steps[first + 1], steps[first]
    doc.save()
    return InjectedDefect(
        kind="gold_actions_reordered",
        description=f"gold actions {first} and {first + 1} of task {task.get('id')} swapped",
        artifact=doc.artifact,
        location=json_path((index, "evaluation_criteria", "actions")),
        expected_layers=[CONSISTENCY, BEHAVIOR],
        task_id=task.get("id"),
    )


# ---- the code overlay ---------------------------------------------------------------------


def _overlay(variant_dir: Path) -> CodeOverlay:
    path = Path(variant_dir) / OVERLAY_NAME
    if not path.exists():
        raise DefectNotApplicable("the variant has no code overlay")
    return CodeOverlay.model_validate(orjson.loads(path.read_bytes()))


def docstring_header_translated(variant_dir: Path, ir: IRDocument, rng: random.Random) -> InjectedDefect:
    """'Args:' of one tool docstring translated in the overlay (the schema loses its argument descriptions)."""
    language = variant_language(variant_dir)
    overlay = _overlay(variant_dir)
    header = re.compile(r"^(\s*)Args:\s*$", re.M)
    candidates = [
        t
        for t in overlay.texts
        if t.role == "docstring"
        and "." in t.qualname
        and t.qualname.split(".")[0].endswith("Tools")
        and not t.qualname.rsplit(".", 1)[-1].startswith("_")
        and header.search(t.target)
    ]
    text = _pick(rng, candidates, "tool docstring with an Args: section")
    translated = _accent("Args", language) + ":"
    text.target = header.sub(lambda m: m.group(1) + translated, text.target, count=1)
    save_record(overlay, Path(variant_dir) / OVERLAY_NAME)
    return InjectedDefect(
        kind="docstring_header_translated",
        description=f"'Args:' of {text.qualname} translated to {translated!r}",
        artifact=text.module,
        location=text.qualname,
        expected_layers=[INTEGRITY],
    )


def preserved_code_literal_translated(variant_dir: Path, ir: IRDocument, rng: random.Random) -> InjectedDefect:
    """A code literal the IR preserves (telecom 'Excellent', retail 'pending', ###STOP###)
    translated via the overlay."""
    language = variant_language(variant_dir)
    overlay = _overlay(variant_dir)
    present = {(t.module, t.source) for t in overlay.texts}
    candidates = _elements(
        ir,
        types=[TranslationType.PRESERVE],
        reasons=[PreserveReason.ENUM_CODE, PreserveReason.CONTROL_TOKEN],
        kinds=("python_literal",),
        where=lambda e: (
            e.locator.role in ("constant", "tool_output", "error_message")
            and _HAS_LETTER.search(e.source_text) is not None
            and (e.artifact, e.source_text) not in present
            and "{" not in e.source_text
        ),
    )
    in_tools = [e for e in candidates if e.artifact.startswith(("domains/", "code/"))]
    values = [
        e for e in in_tools if e.locator.role == "constant"
    ]  # returned/compared values (telecom 'Excellent') before dict keys
    element = _pick(rng, values or in_tools or candidates, "preserved code literal")
    locator = element.locator
    source = element.source_text
    target = (
        "###" + _accent(source.strip("#"), language) + "###" if source.startswith("###") else _accent(source, language)
    )
    overlay.texts.append(
        CodeText(
            module=element.artifact,
            qualname=locator.qualname,
            role=locator.role,
            occurrence=locator.occurrence,
            source=element.source_text,
            target=target,
        )
    )
    save_record(overlay, Path(variant_dir) / OVERLAY_NAME)
    return InjectedDefect(
        kind="preserved_code_literal_translated",
        description=(
            f"preserved literal {element.source_text!r} of {locator.qualname} translated to {target!r} in the overlay"
        ),
        artifact=element.artifact,
        location=f"{locator.qualname} ({locator.role})",
        expected_layers=[CONSISTENCY, BEHAVIOR],
    )
