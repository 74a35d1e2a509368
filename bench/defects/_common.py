"""Records, file helpers and target pickers shared by every defect kind."""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
import tomlkit
from pydantic import Field

from babelflow.atomic_io import write_bytes_atomic, write_text_atomic
from babelflow.ir import ArtifactFormat, ArtifactRole, IRDocument, IRElement, PreserveReason, Record, TranslationType
from babelflow.markdown_blocks import split_markdown
from babelflow.variant import MANIFEST_NAME, OVERLAY_NAME
from translators.pseudo_locale import pseudo_translate_text
from validators.probes.readers import TASK_METADATA

INTEGRITY, CONSISTENCY, FIDELITY, BEHAVIOR = "integrity", "consistency", "fidelity", "behavior"


class InjectedDefect(Record):
    kind: str
    description: str
    artifact: str = Field(description="artifact path (data file, or module path for code-overlay defects)")
    element_id: str | None = Field(default=None, description="IR element id when the defect is in one IR field")
    location: str = Field(description="JSON path, markdown block, '<file>', or overlay qualname")
    expected_layers: list[str]
    task_id: str | None = Field(default=None, description="task the defect touches, when there is one")


class DefectNotApplicable(Exception):
    """The variant has no field this defect kind can target."""


@dataclass(frozen=True)
class DefectKind:
    name: str
    inject: Callable[[Path, IRDocument, random.Random], InjectedDefect]
    benchmarks: tuple[str, ...]  # where the kind applies; the first is its usual home
    summary: str


# ---- file helpers ---------------------------------------------------------------------------


def variant_language(variant_dir: Path) -> str:
    """The variant's language, from its manifest (overlay as fallback)."""
    for name in (MANIFEST_NAME, OVERLAY_NAME):
        path = Path(variant_dir) / name
        if path.exists():
            return orjson.loads(path.read_bytes())["language"]
    raise DefectNotApplicable(f"{variant_dir} has neither {MANIFEST_NAME} nor {OVERLAY_NAME}")


def _format_of(ir: IRDocument, artifact: str) -> ArtifactFormat:
    for fingerprint in ir.artifacts:
        if fingerprint.path == artifact:
            return fingerprint.format
    suffix = Path(artifact).suffix
    return {".json": ArtifactFormat.JSON, ".toml": ArtifactFormat.TOML, ".md": ArtifactFormat.MARKDOWN}.get(
        suffix, ArtifactFormat.PYTHON
    )


def _artifacts(ir: IRDocument, role: ArtifactRole, fmt: ArtifactFormat | None = None) -> list[str]:
    return [a.path for a in ir.artifacts if a.role is role and (fmt is None or a.format is fmt)]


def _load(variant_dir: Path, artifact: str, fmt: ArtifactFormat) -> Any:
    path = Path(variant_dir) / artifact
    if fmt is ArtifactFormat.JSON:
        return orjson.loads(path.read_bytes())
    if fmt is ArtifactFormat.TOML:
        return tomlkit.parse(path.read_text(encoding="utf-8"))  # a tomlkit document: layout kept on dump
    return path.read_text(encoding="utf-8")


def _save(variant_dir: Path, artifact: str, fmt: ArtifactFormat, value: Any) -> None:
    path = Path(variant_dir) / artifact
    if fmt is ArtifactFormat.JSON:
        write_bytes_atomic(path, orjson.dumps(value, option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS) + b"\n")
    elif fmt is ArtifactFormat.TOML:
        write_text_atomic(path, tomlkit.dumps(value))
    else:
        write_text_atomic(path, value)


def _get(document: Any, path: Iterable) -> Any:
    for segment in path:
        document = document[segment]
    return document


def json_path(path: Iterable) -> str:
    """The `$['a'][0]` notation the integrity probe uses for locations."""
    return "$" + "".join(f"[{p!r}]" for p in path)


class _Doc:
    """One loaded data/Markdown artifact of the variant, edited then written back once."""

    def __init__(self, variant_dir: Path, ir: IRDocument, artifact: str):
        self.variant_dir, self.artifact = Path(variant_dir), artifact
        self.fmt = _format_of(ir, artifact)
        self.value = _load(variant_dir, artifact, self.fmt)

    def text_of(self, element: IRElement) -> str | None:
        locator = element.locator
        try:
            if locator.kind == "data_value":
                value = _get(self.value, locator.path)
                return str(value) if isinstance(value, str) else None
            if locator.kind == "data_key":
                return locator.path[-1] if locator.path[-1] in _get(self.value, locator.path[:-1]) else None
            if locator.kind == "markdown_block":
                blocks = split_markdown(self.value).blocks
                return blocks[locator.block_index].text if locator.block_index < len(blocks) else None
        except (KeyError, IndexError, TypeError):
            return None
        return None

    def set_text(self, element: IRElement, text: str) -> None:
        locator = element.locator
        if locator.kind == "data_value":
            _get(self.value, locator.path[:-1])[locator.path[-1]] = text
        elif locator.kind == "data_key":
            parent = _get(self.value, locator.path[:-1])
            renamed = {(text if key == locator.path[-1] else key): value for key, value in parent.items()}
            parent.clear()
            parent.update(renamed)
        elif locator.kind == "markdown_block":
            self.value = split_markdown(self.value).join({locator.block_index: text})
        else:
            raise ValueError(f"cannot edit a {locator.kind} locator in a data file")

    def save(self) -> None:
        _save(self.variant_dir, self.artifact, self.fmt, self.value)


def _pick(rng: random.Random, candidates: list, what: str):
    if not candidates:
        raise DefectNotApplicable(f"no {what} in this variant")
    return candidates[rng.randrange(len(candidates))]


def _location(element: IRElement) -> str:
    locator = element.locator
    if locator.kind in ("data_value", "data_key"):
        return json_path(locator.path)
    if locator.kind == "markdown_block":
        return f"block {locator.block_index}"
    return f"{locator.qualname} ({locator.role})"


def _task_id(variant_dir: Path, ir: IRDocument, element: IRElement) -> str | None:
    """The id of the task a tasks.json element belongs to (tasks.json is a list of tasks)."""
    if element.locator.kind not in ("data_value", "data_key") or element.artifact not in _artifacts(
        ir, ArtifactRole.TASKS
    ):
        return None
    if not element.locator.path or not isinstance(element.locator.path[0], int):
        return None
    for other in ir.elements:
        if (
            other.artifact == element.artifact
            and other.locator.kind == "data_value"
            and tuple(other.locator.path) == (element.locator.path[0], "id")
        ):
            return other.source_text
    return None


def _record(
    kind: str, description: str, element: IRElement, layers: list[str], variant_dir: Path, ir: IRDocument
) -> InjectedDefect:
    return InjectedDefect(
        kind=kind,
        description=description,
        artifact=element.artifact,
        element_id=element.id,
        location=_location(element),
        expected_layers=layers,
        task_id=_task_id(variant_dir, ir, element),
    )


def _mistranslate(text: str, language: str) -> str:
    """What a translator that ignored the Preserve type would produce (the pseudo rendering)."""
    return pseudo_translate_text(text, language if language in ("en-XA", "ar-XB") else "en-XA")


def _accent(word: str, language: str) -> str:
    """A word rendered in the pseudo-locale without brackets or padding (e.g. STOP -> ŠŢÖÞ)."""
    if language == "ar-XB":
        return pseudo_translate_text(word, "ar-XB")
    rendered = pseudo_translate_text(word, "en-XA")
    return rendered[1 : 1 + len(word)] if rendered.startswith("[") else rendered


_HAS_LETTER = re.compile(r"[^\W\d_]")


def _elements(
    ir: IRDocument,
    *,
    artifacts: Iterable[str] | None = None,
    types: Iterable[TranslationType] | None = None,
    reasons: Iterable[PreserveReason] | None = None,
    kinds: Iterable[str] = ("data_value",),
    role: Callable[[str], bool] = lambda r: True,
    where: Callable[[IRElement], bool] = lambda e: True,
) -> list[IRElement]:
    wanted_artifacts = set(artifacts) if artifacts is not None else None
    wanted_types = set(types) if types is not None else None
    wanted_reasons = set(reasons) if reasons is not None else None
    wanted_kinds = set(kinds)
    return [
        e
        for e in ir.elements
        if e.locator.kind in wanted_kinds
        and (wanted_artifacts is None or e.artifact in wanted_artifacts)
        and (wanted_types is None or e.translation_type in wanted_types)
        and (wanted_reasons is None or e.preserve_reason in wanted_reasons)
        and role(e.role)
        and where(e)
    ]


def _edit_element(
    variant_dir: Path, ir: IRDocument, element: IRElement, change: Callable[[str], str]
) -> tuple[str, str]:
    """Apply `change` to the element's current target text; returns (before, after)."""
    doc = _Doc(variant_dir, ir, element.artifact)
    before = doc.text_of(element)
    if before is None:
        raise DefectNotApplicable(f"element {element.id} cannot be located in the variant")
    after = change(before)
    if after == before:
        raise DefectNotApplicable(f"the change leaves {element.id} unchanged")
    doc.set_text(element, after)
    doc.save()
    return before, after


def _mistranslate_preserved(
    kind: str,
    what: str,
    candidates: list[IRElement],
    variant_dir: Path,
    ir: IRDocument,
    rng: random.Random,
    layers: list[str],
) -> InjectedDefect:
    language = variant_language(variant_dir)
    candidates = [
        e
        for e in candidates
        if _HAS_LETTER.search(e.source_text) and _mistranslate(e.source_text, language) != e.source_text
    ]
    element = _pick(rng, candidates, what)
    before, after = _edit_element(variant_dir, ir, element, lambda text: _mistranslate(text, language))
    return _record(kind, f"{what} translated: {before!r} -> {after!r}", element, layers, variant_dir, ir)


def _translated_prose(
    ir: IRDocument,
    variant_dir: Path,
    *,
    min_length: int = 0,
    tokens: bool | None = None,
    artifacts: Iterable[str] | None = None,
    block_kinds: Iterable[str] | None = None,
    data_only: bool = False,
) -> list[IRElement]:
    """Translate-Free prose fields (data values and Markdown blocks) that were translated."""
    kinds = ("data_value",) if data_only else ("data_value", "markdown_block")
    allowed_blocks = set(block_kinds) if block_kinds is not None else None
    return _elements(
        ir,
        artifacts=artifacts,
        types=[TranslationType.TRANSLATE_FREE],
        kinds=kinds,
        where=lambda e: (
            len(e.source_text) >= min_length
            and _HAS_LETTER.search(e.source_text) is not None
            and (tokens is None or bool(e.inline_tokens) == tokens)
            and (allowed_blocks is None or e.locator.kind != "markdown_block" or e.locator.block_kind in allowed_blocks)
        ),
    )


def read_by_a_model(ir: IRDocument, element: IRElement) -> bool:
    """Not a task's maintainer metadata (its description, its issues), which validators do not
    hold to fidelity (validators/probes/readers.py): a defect planted there is no defect."""
    if element.artifact not in _artifacts(ir, ArtifactRole.TASKS) or element.locator.kind != "data_value":
        return True
    keys = [segment for segment in element.locator.path if isinstance(segment, str)]
    return not (keys and keys[0] in TASK_METADATA)


def _tasks_json(ir: IRDocument) -> str:
    tasks = _artifacts(ir, ArtifactRole.TASKS, ArtifactFormat.JSON)
    if not tasks:
        raise DefectNotApplicable("no JSON task file")
    return tasks[0]
