"""A variant made elsewhere read against the source IR, field by field, at the IR's own locators.

Tasks are matched by id, not by position; a Markdown artifact whose block structure differs is not
read block by block (its blocks would be matched to the wrong ones); Python files the variant holds
are parsed, never imported, and their literals aligned with the source's (variant_code.py). What
cannot be aligned is never guessed: it is listed with its reason. Bad input (another benchmark's
folder, a task set whose ids do not match, a file that does not parse, the source itself) is refused
before anything is written.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from babelflow.canonical_map import CanonicalMap
from babelflow.errors import BabelflowError
from babelflow.ir import (
    ArtifactRole,
    DataValueLocator,
    IRDocument,
    IRElement,
    MarkdownBlockLocator,
    PythonLiteralLocator,
    TranslationType,
)
from babelflow.variant import checked_owner
from flows.pipeline.variant_code import VariantCode
from source_benchmarks.protocol import SourceBenchmark
from translators.adoption import (
    AdoptedTerm,
    ChosenBy,
    CompetingRendering,
    NotAdopted,
    NotAdoptedReason,
    RestoredValue,
)
from validators.context import ValidationContext
from validators.probes.quoting import quoted_pairs, requoted

MIN_SHARED_TASKS = 0.5  # below this share of the source's task ids in the variant, it is another task set
# a run of end marks followed by a space or the end; matched from a run's first mark only (linear on a long run)
_SENTENCE_END = re.compile(r"(?<![.!?。！？।])[.!?。！？।]+(?=\s|$)")
_WORDS = re.compile(r"[A-Za-z]{3,}")


@dataclass
class VariantReading:
    """Every translated field of the source, as the variant has it (or why not), and the Preserve values
    the variant changed."""

    texts: dict[str, str] = field(default_factory=dict)
    # (group, value) -> each rendering the variant wrote -> the fields holding it
    renderings: dict[tuple[str, str], dict[str, list[str]]] = field(default_factory=lambda: defaultdict(dict))
    in_catalogue: dict[tuple[str, str], Counter] = field(default_factory=lambda: defaultdict(Counter))
    whole_fields: list[str] = field(default_factory=list)
    not_adopted: list[NotAdopted] = field(default_factory=list)
    restored: list[RestoredValue] = field(default_factory=list)
    translatable_fields: int = 0

    def terms(self) -> list[AdoptedTerm]:
        """One rendering per value: the catalogue record's own, else the only one, else the most used."""
        out = []
        for (group, source), holders in sorted(self.renderings.items()):
            seen = Counter({rendering: len(fields) for rendering, fields in holders.items()})
            catalogue = self.in_catalogue.get((group, source))
            how: ChosenBy
            if catalogue:
                target, how = catalogue.most_common(1)[0][0], "catalogue record"
            elif len(seen) == 1:
                target, how = next(iter(seen)), "only rendering"
            else:
                target, how = seen.most_common(1)[0][0], "most fields"
            competing = [
                CompetingRendering(rendering=r, element_ids=holders[r]) for r, _ in seen.most_common() if r != target
            ]
            out.append(
                AdoptedTerm(
                    group=group, source=source, target=target, chosen_by=how, competing=competing, fields=seen[target]
                )
            )
        return out


def check_adoptable(bench: SourceBenchmark, benchmark: str, folder: Path, source_folders: list[Path]) -> None:
    """Refuse (exit 2, nothing written) a folder that cannot be a variant of this benchmark."""
    if not folder.is_dir():
        raise BabelflowError("No such folder", file=folder, field="--from", fix="pass the variant's folder")
    resolved = folder.resolve()
    for source in source_folders:
        if resolved == source.resolve() or source.resolve().is_relative_to(resolved):
            raise BabelflowError(
                f"--from is the source benchmark itself ({source})",
                file=folder,
                field="--from",
                fix="pass the folder of the translated variant, not the source's",
            )
    checked_owner(folder, benchmark, "--from", "adopt")


def open_variant_context(bench: SourceBenchmark, folder: Path, ir: IRDocument, language: str) -> ValidationContext:
    """The variant as the validators read it (an empty map: the IR's own types are kept, not judged as kept)."""
    empty = CanonicalMap(benchmark=ir.benchmark, language=language)
    return ValidationContext(
        source=bench, variant_root=folder, ir=ir, language=language, canonical_map=empty, pair_by_structure=False
    )


def _task_positions(ctx: ValidationContext, folder: Path) -> dict[str, dict[int, int | None]]:
    """tasks artifact -> source index -> the variant's index of the task with the same id (None: absent).
    Refuses a variant that holds none of the artifacts, or whose task ids are another task set's."""
    out: dict[str, dict[int, int | None]] = {}
    present = 0
    for spec in ctx.specs:
        if ctx.target_document(spec) is not None:
            present += 1
        elif ctx.parse_errors.get(spec.path, "missing") != "missing":
            raise BabelflowError(
                f"{spec.path} of the variant cannot be read: {ctx.parse_errors[spec.path]}",
                file=ctx.target_path(spec),
                field="--from",
                fix="restore the file (a truncated or hand-edited copy?), or remove it to adopt the rest",
            )
        if spec.role is not ArtifactRole.TASKS or spec.holds_list is False:
            continue
        source, target = ctx.source_document(spec), ctx.target_document(spec)
        if not isinstance(source, list) or not isinstance(target, list):
            continue
        ids = {str(t.get("id")): i for i, t in enumerate(target) if isinstance(t, dict)}
        mapping = {i: ids.get(str(t.get("id"))) for i, t in enumerate(source) if isinstance(t, dict)}
        shared = sum(v is not None for v in mapping.values())
        if mapping and shared < MIN_SHARED_TASKS * len(mapping):
            raise BabelflowError(
                f"{spec.path}: only {shared} of the source's {len(mapping)} task ids are in the variant",
                file=ctx.target_path(spec),
                field="--from",
                fix="adopt a variant of the same task set: pass --source-dir with the release it was translated"
                " from (its tasks are matched by id)",
            )
        out[spec.path] = mapping
    if present == 0:
        raise BabelflowError(
            f"{folder} holds none of {ctx.source.id}'s files",
            file=folder,
            field="--from",
            fix=f"pass a variant of {ctx.source.id} (laid out like its data folder), or adopt it as its own benchmark",
        )
    return out


def _block_structures(ctx: ValidationContext) -> dict[str, str]:
    """Markdown artifact -> why its blocks cannot be matched one to one (absent: they can)."""
    out = {}
    for spec in ctx.specs:
        if not spec.path.endswith(".md"):
            continue
        source, target = ctx.source_document(spec), ctx.target_document(spec)
        if source is None or target is None:
            continue
        kinds = [b.kind for b in source.blocks], [b.kind for b in target.blocks]
        if kinds[0] != kinds[1]:
            out[spec.path] = f"{len(kinds[1])} blocks in the variant, {len(kinds[0])} in the source (or other kinds)"
    return out


def where_of(element: IRElement) -> str:
    locator = element.locator
    if isinstance(locator, DataValueLocator):
        return element.artifact + ":" + ".".join(map(str, locator.path))
    if isinstance(locator, MarkdownBlockLocator):
        return f"{element.artifact}: block {locator.block_index}"
    return f"{element.artifact}: {getattr(locator, 'qualname', '')}"


def _sentences(text: str) -> int:
    return len(_SENTENCE_END.findall(text.strip())) or 1


def _catalogue_roles(ir: IRDocument) -> dict[str, str]:
    """entity class -> the role of its catalogue record (its first selector: the products, not the orders)."""
    out = {}
    for entity in ir.entity_classes:
        if entity.selectors:
            first = entity.selectors[0].split("/", 1)[-1].replace(":$", "")
            out[entity.name] = first
    return out


def _kept_literals_restored(element: IRElement, target: str, reading: VariantReading) -> str:
    """The sentence with each kept value it quotes written back where the variant quoted its own word for it
    ("status is 'pending'" translated "statusnya 'tertunda'"): the tools accept and return only 'pending',
    and a cancel reason the agent copies from the policy ('tidak sengaja dipesan') is refused by the tool.
    Each is recorded, so the repair is reviewed; quotes are paired in order, only when both sides quote the
    same number of things."""
    kept = set(element.inline_tokens)
    renamed = {
        number: (value, rendering)
        for number, (value, rendering) in enumerate(quoted_pairs(element.source_text, target))
        if value in kept and rendering != value and rendering.strip()
    }
    if not renamed:
        return target
    repaired = requoted(target, {number: value for number, (value, _) in renamed.items()})
    for value, rendering in renamed.values():
        reading.restored.append(
            RestoredValue(
                element_id=element.id,
                artifact=element.artifact,
                where=where_of(element),
                source=value,
                variant_text=rendering,
                in_text=repaired,
            )
        )
    return repaired


def _data_text(
    ctx: ValidationContext,
    element: IRElement,
    positions: dict[str, dict[int, int | None]],
    structures: dict[str, str],
) -> str | None | tuple[NotAdoptedReason, str]:
    """The variant's text at a data or Markdown element's place (its task matched by id), or why it is not read."""
    at = element
    locator = element.locator
    mapping = positions.get(element.artifact)
    path = getattr(locator, "path", ())
    if mapping is not None and path and isinstance(path[0], int):
        index = mapping.get(path[0])
        if index is None:
            return "task_not_in_variant", "its task id is not among the variant's tasks"
        if index != path[0]:
            at = element.model_copy(update={"locator": locator.model_copy(update={"path": (index, *path[1:])})})
    if element.artifact in structures:
        return "structure_differs", structures[element.artifact]
    return ctx.target_text(at)


def read_variant(ctx: ValidationContext, folder: Path) -> VariantReading:
    positions = _task_positions(ctx, folder)
    structures = _block_structures(ctx)
    catalogue = _catalogue_roles(ctx.ir)
    code = VariantCode(ctx)
    reading = VariantReading()
    for element in ctx.ir.elements:
        translated = element.translation_type is not TranslationType.PRESERVE
        reading.translatable_fields += translated

        def skip(reason, detail: str = "", element: IRElement = element) -> None:
            reading.not_adopted.append(
                NotAdopted(
                    element_id=element.id,
                    artifact=element.artifact,
                    where=where_of(element),
                    reason=reason,
                    detail=detail,
                )
            )

        locator = element.locator
        read = (
            code.text_of(element)
            if isinstance(locator, PythonLiteralLocator)
            else _data_text(ctx, element, positions, structures)
        )
        if isinstance(read, tuple):
            if translated:
                skip(*read)
            continue
        target = read
        if not translated:
            if (
                target is not None
                and target != element.source_text
                and isinstance(locator, (DataValueLocator, PythonLiteralLocator))
            ):
                reading.restored.append(
                    RestoredValue(
                        element_id=element.id,
                        artifact=element.artifact,
                        where=where_of(element),
                        source=element.source_text,
                        variant_text=target,
                    )
                )
            continue
        if target is None or not target.strip():
            skip("missing", "no text at this place in the variant")
            continue
        if element.translation_type is TranslationType.TRANSLATE_CANONICAL:
            key = (element.canonical_group or "default", element.source_text)
            reading.renderings[key].setdefault(target, []).append(element.id)
            if catalogue.get(element.canonical_group or "") == element.role:
                reading.in_catalogue[key][target] += 1
            continue
        if target == element.source_text and len(_WORDS.findall(target)) >= 2:
            skip("left_in_source", "the variant kept the source's text")
            continue
        target = _kept_literals_restored(element, target, reading)
        reading.texts[element.id] = target
        if _sentences(target) != _sentences(element.source_text):
            reading.whole_fields.append(element.id)
    return reading
