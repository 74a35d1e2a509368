"""What validators look at: the source, the variant's files, the source IR, the overlay and the map.

The variant can be one babelflow built (a folder with data/ and a manifest) or one made by
another tool laid out like tau2's data/ folder; either way it is judged against the source IR.
Parsing happens once per artifact here; a file that fails to parse is recorded so that checks
depending on it are suppressed instead of flooding the report.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from babelflow.canonical_map import CanonicalMap
from babelflow.errors import BabelflowError
from babelflow.ir import (
    ArtifactFormat,
    ArtifactRole,
    DataKeyLocator,
    DataValueLocator,
    IRDocument,
    MarkdownBlockLocator,
    PreserveReason,
    PythonLiteralLocator,
    TranslationType,
)
from babelflow.language_pack import LanguagePack, load_pack
from babelflow.markdown_blocks import MarkdownDocument, split_markdown
from babelflow.settings import BabelflowSettings
from babelflow.variant import OVERLAY_NAME, CodeOverlay, load_manifest, load_overlay
from source_benchmarks import get_benchmark, open_variant
from source_benchmarks.formats import confined_file, load_document
from source_benchmarks.protocol import ArtifactSpec, ReplayOutcome, SourceBenchmark
from source_benchmarks.yaml_io import load_yaml
from validators.probes.policy import InferredPolicy, infer_policy
from validators.probes.skeleton import document_skeleton_diffs, under_any, unpaired_prefixes

if TYPE_CHECKING:
    from validators.calibration import Calibration

T = TypeVar("T")
_PARSED: dict[tuple, Any] = {}  # (path, size, mtime, format) -> parsed document, shared read-only
_PARSED_LOCK = threading.Lock()
_PARSED_LIMIT = 24


def parsed_file(path: Path, fmt: ArtifactFormat) -> Any:
    """A parsed artifact, shared by every context of this process while the file is unchanged.

    The four validation layers (and every language of a multi-language run) read the same 14 MB
    task files; parsing them once saves seconds per round. Callers must not mutate the result."""
    # keyed on content, not mtime: two same-size writes within one clock tick share an mtime
    key = (str(path), hashlib.blake2b(path.read_bytes(), digest_size=16).digest(), fmt.value)
    with _PARSED_LOCK:
        if key in _PARSED:
            return _PARSED[key]
    # YAML (AgentDojo's environments) through the same round trip the rebuild writes with: the
    # probes walk its maps and lists like JSON's
    value = load_yaml(path) if fmt is ArtifactFormat.YAML else load_document(path, fmt)
    if fmt is ArtifactFormat.MARKDOWN:
        value = split_markdown(value)
    with _PARSED_LOCK:
        if len(_PARSED) >= _PARSED_LIMIT:
            _PARSED.pop(next(iter(_PARSED)))
        _PARSED[key] = value
    return value


ReplayPairs = dict[str, tuple[ReplayOutcome, ReplayOutcome]]  # task id -> (golden, do-nothing)


def _find_pack(language: str) -> LanguagePack | None:
    try:
        return load_pack(language, BabelflowSettings().project_root)
    except BabelflowError:
        return None  # validating another tool's variant in a language babelflow has no pack for


_ENTITY_RULES = ("entity ", "linked to canonical entity ")


def entities_as_kept(ir: IRDocument) -> IRDocument:
    """A variant that carries no canonical map of ours (made elsewhere, or by a babelflow before issue
    23) is judged as entity values were before they were renamed: kept values the variant may render by
    a consistent policy of its own, which validators/probes/policy.py infers. Without a map, renaming
    is not ours to check against; consistency across DB, tasks and gold arguments still is."""
    elements, changed = [], False
    for element in ir.elements:
        as_before = element.typing_rule.startswith(_ENTITY_RULES) and (
            element.translation_type is TranslationType.TRANSLATE_CANONICAL
            or element.preserve_reason is PreserveReason.SCHEMA_KEY  # an option's name: kept as an entity was
        )
        if as_before:
            element = element.model_copy(
                update={
                    "translation_type": TranslationType.PRESERVE,
                    "preserve_reason": PreserveReason.LINKED_ENTITY,
                    "canonical_group": None,
                }
            )
            changed = True
        elements.append(element)
    return ir.model_copy(update={"elements": elements}) if changed else ir


@dataclass(frozen=True, eq=False)
class ValidationContext:
    """Everything a check or a validator agent reads: what it was given, and what is derived from
    that once (`cached_property`, or `derived(function)` for a check's own derivation).

    `task_ids`, `source_pairs` and `target_pairs` narrow and feed the behaviour layer (a rerun
    compares only the tasks whose inputs changed; replays already run are reused). `variant_bench`
    and `inferred_policy` are given by a caller that already has them (the flow's stages share one
    policy between layers); otherwise they are derived on first use. A changed input is a new
    context (`dataclasses.replace`), with caches of its own."""

    source: SourceBenchmark
    variant_root: Path
    ir: IRDocument
    language: str
    canonical_map: CanonicalMap | None = None
    pack: LanguagePack | None = None  # None: the project's pack for `language`, if it has one
    calibration: Calibration | None = None  # validators/calibration.py (None: the stored default)
    task_ids: list[str] | None = None  # behaviour: these tasks only (None: all)
    source_pairs: ReplayPairs | None = None  # behaviour: the source's replays, already run
    target_pairs: ReplayPairs | None = None  # behaviour: the variant's, exactly the tasks present in it
    variant_bench: SourceBenchmark | None = None  # the variant opened in its harness, when the caller has it
    inferred_policy: InferredPolicy | None = None  # the policy, when the caller inferred it already
    validator_id: str = "probes"  # who the checks' findings are from
    # kept value -> the word an adopted variant had quoted for it, which adopt wrote back (translators/adoption.py)
    adopted_renderings: dict[str, str] = field(default_factory=dict)
    # False: read every locator as it is (adopt matches tasks by id itself, then reads their fields)
    pair_by_structure: bool = True

    def __post_init__(self) -> None:
        variant_dir = Path(self.variant_root)
        if not variant_dir.is_dir():
            raise BabelflowError(
                "Variant folder does not exist", file=variant_dir, fix="pass --variant pointing at an adapted variant"
            )
        # normalized once, as given: a path, the IR as judged (without a map: entities as kept), a pack
        object.__setattr__(self, "variant_root", variant_dir)
        if self.canonical_map is None:
            object.__setattr__(self, "ir", entities_as_kept(self.ir))
        if self.pack is None:
            object.__setattr__(self, "pack", _find_pack(self.language))

    @cached_property
    def bare_data_dir(self) -> bool:
        """babelflow's layout (<root>/data/...) or a bare copy of tau2's data/ folder (<dir>/tau2/...)."""
        return not (self.variant_root / "data").is_dir() and (self.variant_root / "tau2").is_dir()

    @cached_property
    def made_by(self) -> str | None:
        """The translator id the variant's manifest records (None: a variant made elsewhere, or unreadable)."""
        try:
            return load_manifest(self.variant_root).translator_id
        except BabelflowError:
            return None

    @cached_property
    def parse_errors(self) -> dict[str, str]:
        """Artifact path -> why the variant's file could not be read, filled as target documents are read."""
        return {}

    @cached_property
    def _documents(self) -> dict[str, Any]:
        return {}

    @cached_property
    def _derived(self) -> dict[Callable, Any]:
        return {}

    @cached_property
    def policy(self) -> InferredPolicy:
        """The variant's own rendering policy (validators/probes/policy.py), inferred once."""
        return self.inferred_policy if self.inferred_policy is not None else infer_policy(self)

    @cached_property
    def loaded(self) -> SourceBenchmark | BabelflowError:
        """The variant opened in the benchmark's own harness and validated by its models, or why not."""
        if self.variant_bench is not None:
            return self.variant_bench
        try:
            # a babelflow variant (data/ and a manifest), or another tool's copy of the data folder
            variant = (
                open_variant(self.source.id, self.variant_root)
                if not self.bare_data_dir
                else get_benchmark(self.source.id, source_dir=self.variant_root)
            )
            variant.validate_artifacts()
        except BabelflowError as exc:
            return exc
        return variant

    @property
    def harness(self) -> SourceBenchmark | None:
        """The variant in its harness once it loaded (None when it does not): behaviour and the agents replay it."""
        return None if isinstance(self.loaded, BabelflowError) else self.loaded

    def derived(self, compute: Callable[[ValidationContext], T]) -> T:
        """What `compute` derives from this context alone, computed once (the checks that read it share it)."""
        if compute not in self._derived:
            self._derived[compute] = compute(self)
        return self._derived[compute]

    def target_path(self, spec: ArtifactSpec) -> Path:
        if self.bare_data_dir and spec.path.startswith("data/"):
            return self.variant_root / spec.path[len("data/") :]
        path = self.variant_root / spec.path
        if not os.path.lexists(path):  # a fork of the benchmark's repository: its package under src/<name>/
            forked = list(self.variant_root.glob(f"src/*/{spec.path}"))
            if len(forked) == 1:
                return forked[0]
        return path

    @cached_property
    def specs(self) -> list[ArtifactSpec]:
        return self.source.artifacts()

    @cached_property
    def database_paths(self) -> frozenset[str]:
        """The artifacts that hold the environment the tools read: the DB files, and a tasks file whose tasks
        each carry their own (VitaBench)."""
        return frozenset(s.path for s in self.specs if s.role is ArtifactRole.DATABASE or s.embeds_environment)

    @cached_property
    def _spec_by_path(self) -> dict[str, ArtifactSpec]:
        return {s.path: s for s in self.specs}

    @cached_property
    def overlay(self) -> CodeOverlay | None:
        return load_overlay(self.variant_root / OVERLAY_NAME)

    def source_document(self, spec: ArtifactSpec) -> Any:
        key = "source:" + spec.path
        if key not in self._documents:
            self._documents[key] = parsed_file(self.source.artifact_path(spec), spec.format)
        return self._documents[key]

    def target_document(self, spec: ArtifactSpec) -> Any | None:
        """Parsed target artifact, or None when missing/unparseable (recorded in parse_errors)."""
        key = "target:" + spec.path
        if key in self._documents:
            return self._documents[key]
        path = self.target_path(spec)
        value: Any = None
        try:  # a link out of the variant is never read: its text would reach reports and the hand-edit pickup
            inside = confined_file(self.variant_root.resolve(), path.relative_to(self.variant_root), option="--variant")
            if inside is None:
                self.parse_errors[spec.path] = "missing"
            else:
                value = parsed_file(inside, spec.format)
        except BabelflowError as exc:
            self.parse_errors[spec.path] = exc.message
        self._documents[key] = value
        return value

    def elements_of(self, artifact: str):
        return self._by_artifact.get(artifact, [])

    @cached_property
    def _by_artifact(self) -> dict[str, list]:
        grouped: dict[str, list] = {}
        for element in self.ir.elements:
            grouped.setdefault(element.artifact, []).append(element)
        return grouped

    @cached_property
    def skeleton_diffs(self) -> dict[str, list[tuple[str, tuple, str]]]:
        """Artifact -> how the structure of the variant's data file differs from the source's
        (validators/probes/skeleton.py); files that are missing or do not parse are left out."""
        diffs = {}
        for spec in self.specs:
            if spec.format in (ArtifactFormat.PYTHON, ArtifactFormat.MARKDOWN):
                continue
            target = self.target_document(spec)
            if target is None or spec.path in self.parse_errors:
                continue
            renamed = {
                tuple(e.locator.path)
                for e in self.elements_of(spec.path)
                if e.locator.kind == "data_key" and e.translation_type is not TranslationType.PRESERVE
            }
            diffs[spec.path] = document_skeleton_diffs(self.source_document(spec), target, renamed)
        return diffs

    @cached_property
    def _unpaired(self) -> dict[str, tuple[tuple, ...]]:
        """Artifact -> the subtrees whose fields no longer pair with the source's by position."""
        unpaired: dict[str, tuple[tuple, ...]] = {}
        for path, diffs in self.skeleton_diffs.items():
            if diffs:
                found = unpaired_prefixes(diffs)
                unpaired[path] = found if found is not None else ((),)
        return unpaired

    def paired(self, element) -> bool:
        """Whether the variant's field at the element's locator is the element's own (outside any list
        whose length changed), so that reading it compares like with like."""
        if not self.pair_by_structure:
            return True
        return not under_any(getattr(element.locator, "path", None), self._unpaired.get(element.artifact))

    def target_text(self, element) -> str | None:
        """The variant's text at the element's locator (None if it cannot be located, or if the structure
        around it changed so that what is there is another field's)."""
        spec = self._spec_by_path.get(element.artifact)
        if spec is None:
            return None
        locator = element.locator
        if isinstance(locator, (DataValueLocator, DataKeyLocator)):
            if not self.paired(element):
                return None
            node: Any = self.target_document(spec)
            source: Any = self.source_document(spec) if spec.keys_are_text else None
            try:
                for segment in locator.path[:-1]:
                    key = self._key_in(node, segment, source)
                    node, source = node[key], (source[segment] if source is not None else None)
                if isinstance(locator, DataKeyLocator):
                    key = locator.path[-1]
                    return self._key_in(node, key, source) if isinstance(key, str) and isinstance(node, dict) else None
                value = node[self._key_in(node, locator.path[-1], source)]
                return value if isinstance(value, str) else None
            except (KeyError, IndexError, TypeError):
                return None
        if isinstance(locator, MarkdownBlockLocator):
            markdown: MarkdownDocument | None = self.target_document(spec)
            if markdown is None or locator.block_index >= len(markdown.blocks):
                return None
            return markdown.blocks[locator.block_index].text
        return None

    def _key_in(self, node: Any, segment: Any, source: Any = None) -> Any:
        """`segment` as the variant's document names it: a dict key the canonical map renders (a
        localized entity used as a key) is found under its rendering. Where keys are text (`source`: the
        source's object at the same place), a key renamed some other way is the one at the same position
        of an object with as many keys: the rename is judged on the key alone, and what lies under it is
        still read (one key renamed in one task is one finding, not one per field below it)."""
        if not isinstance(segment, str) or not isinstance(node, dict) or segment in node:
            return segment
        mapped = next((t for t in self._map_renderings.get(segment, ()) if t in node), None)
        if mapped is not None:
            return mapped
        if isinstance(source, dict) and len(source) == len(node) and segment in source:
            return list(node)[list(source).index(segment)]
        return segment

    @cached_property
    def _map_renderings(self) -> dict[str, list[str]]:
        renderings: dict[str, list[str]] = {}
        for (_, source), entry in (self.canonical_map.lookup() if self.canonical_map is not None else {}).items():
            renderings.setdefault(source, []).append(entry.target)
        return renderings

    @cached_property
    def _code_targets(self) -> dict[tuple[str, str, str, int], str]:
        texts = self.overlay.texts if self.overlay is not None else []
        return {(t.module, t.qualname, t.role, t.occurrence): t.target for t in texts}

    def code_key(self, element) -> tuple[str, str, str, int] | None:
        locator = element.locator
        if not isinstance(locator, PythonLiteralLocator):
            return None
        return (element.artifact, locator.qualname, locator.role, locator.occurrence)

    def code_target(self, element) -> str | None:
        """A code text's rendering in the variant: the overlay's (docstrings whole), else the source
        text, which then runs unchanged; None for a field that is not code."""
        key = self.code_key(element)
        if key is None:
            return None
        return self._code_targets.get(key, element.source_text)

    def in_overlay(self, element) -> bool:
        return self.code_key(element) in self._code_targets

    def translatable(self):
        return [e for e in self.ir.elements if e.translation_type is not TranslationType.PRESERVE]
