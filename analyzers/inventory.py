"""Step 1 of the method: inventory every text field of a benchmark's artifacts and type it as it is read.

Data (JSON/TOML) leaves and keys, Markdown blocks and Python literals each become an IR element whose type
comes from the profile, the runtime evidence and the field's structure (typing_rules.py)."""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable
from typing import Any

from analyzers import ANALYZER_VERSION
from analyzers.code_inventory import CodeText, scan_python_file
from analyzers.data_inventory import iter_data_texts
from analyzers.heuristics import WORD
from analyzers.linking import link_groups
from analyzers.located_evidence import LocatedEvidence, Observed
from analyzers.model_schema import ModelSchemaFacts, render_role, schema_facts
from analyzers.profile import LoadedProfile, empty_profile
from analyzers.runtime_evidence import RuntimeEvidenceIndex
from analyzers.typing_rules import FieldTyper, TypeDecision, override_decision
from babelflow.docstring_parts import split_docstring
from babelflow.errors import BabelflowError
from babelflow.format_slots import code_slots
from babelflow.ir import (
    IR_SCHEMA_VERSION,
    AnalysisFinding,
    ArtifactRole,
    DataKeyLocator,
    DataValueLocator,
    EntityClassDecision,
    EvidenceScope,
    IRDocument,
    IRElement,
    LinkGroup,
    LinkKind,
    MarkdownBlockLocator,
    PreserveReason,
    PythonLiteralLocator,
    TranslationType,
    element_id,
)
from babelflow.markdown_blocks import split_markdown
from source_benchmarks.protocol import ArtifactSpec, SourceBenchmark
from source_benchmarks.registry import family_of

Progress = Callable[[str], None]
# inline code spans and template slots ({{component:x}}, {user_id}): a translator keeps them whole
_MARKUP_ONLY = re.compile(r"`[^`\n]*`|\{\{[^{}\n]*\}\}|\{[^{}\n]*\}")


def import_dotted(dotted: str) -> Any:
    module, _, attr = dotted.partition(":")
    return getattr(importlib.import_module(module), attr)


def _parent_of(document: Any, path: tuple) -> Any:
    for segment in path[:-1]:
        document = document[segment]
    return document


def facts_for(spec: ArtifactSpec) -> ModelSchemaFacts:
    if not spec.data_model:
        return ModelSchemaFacts()
    model = import_dotted(spec.data_model)
    # a tasks file holds a list of tasks; a per-file task (τ³ banking) is one task
    holds_list = spec.holds_list if spec.holds_list is not None else spec.role is ArtifactRole.TASKS
    return schema_facts(model, top_level_list=holds_list)


def check_overrides(profile: LoadedProfile, elements: list[IRElement]) -> None:
    unknown = sorted(set(profile.overrides) - {e.id for e in elements})
    if unknown:
        raise BabelflowError(
            f"Profile overrides name {len(unknown)} unknown field(s): {', '.join(unknown[:5])}",
            file=profile.sources[0],
            field="overrides.element",
            fix="use element ids from this benchmark's IR (`babelflow analyze ... --out ir.json`); "
            "ids change when the source files change",
        )


class InventoryBuilder:
    """The IR elements of one benchmark's artifacts, typed as they are inventoried."""

    def __init__(
        self,
        bench: SourceBenchmark,
        profile: LoadedProfile,
        evidence: RuntimeEvidenceIndex,
        located: LocatedEvidence,
        use_profile: bool = True,
    ):
        self.bench = bench
        self.located = located
        empty = empty_profile(bench.id)
        self.typer = FieldTyper(profile if use_profile else empty, evidence, traced=located.available)
        # the same evidence without the profile: what the run alone decides (a disagreement is reviewed)
        self.plain_typer = self.typer if not use_profile else FieldTyper(empty, evidence, traced=located.available)
        if any(spec.keys_are_text for spec in bench.artifacts()):  # one pass over the trace, only where it counts
            self.typer.keys_read = self.plain_typer.keys_read = located.keys_read()
        self.evidence = evidence
        self.elements: list[IRElement] = []
        self.observed: dict[str, Observed] = {}
        self.findings: list[AnalysisFinding] = []
        self.entity_classes: list[EntityClassDecision] = []
        self.open_fields: list[tuple[IRElement, tuple, tuple]] = []  # the trace left their role open
        self.code_texts: list[tuple[IRElement, CodeText, ArtifactSpec]] = []  # for code trials
        self.specs_by_path = {spec.path: spec for spec in bench.artifacts()}
        self.task_order = {task_id: index for index, task_id in enumerate(bench.task_ids(None))}
        self.task_positions: dict[str, int] = {}  # a per-file task's file -> its task's position

    def _record(
        self, element: IRElement, artifact: str, general: tuple, observed: Observed | None, plain: TypeDecision | None
    ) -> None:
        if observed is not None:
            element.evidence = self.located.entry(artifact, general, observed)
            if observed.scope is EvidenceScope.LOCATION:
                self.observed[element.id] = observed
        element.evidence_type = plain.translation_type if plain is not None else None
        if (
            observed is not None
            and observed.scope
            is EvidenceScope.LOCATION  # a field path mixes roles (message_history[*].content: tool results and prose)
            and observed.executed
            and element.translation_type is TranslationType.TRANSLATE_FREE
        ):
            self.findings.append(
                AnalysisFinding(
                    element=element.id,
                    profile_type=element.translation_type,
                    evidence_type=plain.translation_type if plain is not None else TranslationType.PRESERVE,
                    profile_rule=element.typing_rule,
                    evidence=observed.detail,
                )
            )

    def add(self, artifact: str, locator: Any, role: str, text: str, decision: TypeDecision) -> IRElement:
        element = IRElement.model_construct(
            id=element_id(artifact, locator),
            artifact=artifact,
            locator=locator,
            role=role,
            source_text=text,
            translation_type=decision.translation_type,
            preserve_reason=decision.preserve_reason,
            canonical_group=decision.canonical_group,
            typing_rule=decision.typing_rule,
            links=[],
            inline_tokens=[],
            # every default given: pydantic's default_factory path inspects `list`'s signature per call, which
            # with the inventory's collections paused piled up gigabytes of cycles (retail: 23 GB)
            evidence=None,
            evidence_type=None,
            code_slots=[],
        )
        self.elements.append(element)
        return element

    # Data (JSON/TOML): every string leaf and every map key.
    def data_artifact(self, spec: ArtifactSpec) -> None:
        facts = facts_for(spec)
        document = self.bench.load_artifact(spec)
        prefix = spec.logical_path.rsplit("/", 1)[-1]
        if spec.group and spec.role is ArtifactRole.TASKS and isinstance(document, dict) and "id" in document:
            self.task_positions[spec.path] = self.task_order.get(str(document["id"]), -1)
        role_names: dict[tuple, str] = {}
        empty: frozenset[str] = frozenset()
        items = list(iter_data_texts(document, facts, spec.keys_are_text))
        by_path = (
            self.located.for_paths(spec.path, facts.map_paths, facts.open_map_paths, spec.group)
            if self.located.available
            else {}
        )
        for item in items:
            locator = DataKeyLocator(path=item.path) if item.is_key else DataValueLocator(path=item.path)
            eid = element_id(spec.path, locator)
            literals = facts.literal_values.get(item.general, empty)
            seen = self.located.at(spec.path, item.path, item.is_key) if by_path else None
            observed = self.located.located(seen) if seen else by_path.get((item.general, item.is_key))
            parent = lambda p=item.path: _parent_of(document, p)  # noqa: E731
            text_key = item.is_key and spec.keys_are_text
            decision = self.typer.type_data(
                eid, spec.path, item.general, item.value, item.is_key, literals, parent, observed, text_key
            )
            plain = (
                decision
                if self.plain_typer is self.typer
                else self.plain_typer.type_data(
                    eid, spec.path, item.general, item.value, item.is_key, literals, parent, observed, text_key
                )
            )
            role_key = (item.general, item.is_key)
            role = role_names.get(role_key) or role_names.setdefault(
                role_key, render_role(prefix, item.general) + ("{key}" if item.is_key else "")
            )
            element = self.add(spec.path, locator, role, item.value, decision)
            self._record(element, spec.path, item.general, observed, plain)
            if spec.role in (ArtifactRole.DATABASE, ArtifactRole.TASKS) and (
                observed is None or observed.scope is EvidenceScope.STATIC
            ):
                self.open_fields.append((element, (spec.logical_path, item.general, item.is_key), item.path))

    def link_canonical_values(self) -> None:
        if not self.typer.canonical_values:
            return
        self._one_class_per_text()
        for element in self.elements:
            if element.locator.kind in ("data_value", "data_key"):
                decision = self.typer.link_canonical(
                    TypeDecision(
                        element.translation_type, element.preserve_reason, element.canonical_group, element.typing_rule
                    ),
                    element.source_text,
                )
                if (
                    decision.translation_type is TranslationType.TRANSLATE_CANONICAL
                    and element.translation_type is not TranslationType.TRANSLATE_CANONICAL
                ):
                    element.translation_type, element.preserve_reason = decision.translation_type, None
                    element.canonical_group, element.typing_rule = decision.canonical_group, decision.typing_rule

    def _one_class_per_text(self) -> None:
        """A text two entity classes make canonical (an address in the environment and in the user's profile)
        gets one rendering: the class listed first in the profile takes it everywhere."""
        order = {compiled.name: index for index, compiled in enumerate(self.typer.profile.entities)}
        classes: dict[str, set[str]] = {}
        for element in self.elements:
            if element.translation_type is TranslationType.TRANSLATE_CANONICAL and element.canonical_group in order:
                classes.setdefault(element.source_text, set()).add(element.canonical_group)
        for element in self.elements:
            found = classes.get(element.source_text)
            if found and len(found) > 1 and element.canonical_group in found:
                first = min(found, key=order.__getitem__)
                if element.canonical_group != first:
                    element.typing_rule += f"; one rendering with entity {first}"
                    element.canonical_group = first

    def markdown_artifact(self, spec: ArtifactSpec) -> None:
        text = self.bench.load_artifact(spec)
        for block in split_markdown(text).blocks:
            locator = MarkdownBlockLocator(
                block_index=block.index, block_kind=block.kind, start_line=block.start_line, end_line=block.end_line
            )
            override = self.typer.profile.overrides.get(element_id(spec.path, locator))
            if override is not None:  # a reviewer's decision wins here too
                decision = override_decision(override)
            elif block.kind in ("code", "html", "rule") or not WORD.search(block.text):
                decision = TypeDecision(
                    TranslationType.PRESERVE, PreserveReason.MARKUP, None, f"markdown: {block.kind} block"
                )
            elif not WORD.search(_MARKUP_ONLY.sub(" ", block.text)):
                # every word sits in inline code or a template slot ("### `KB_search_bm25`",
                # "{{component:…}}"): a translator returns it as it is
                rule = f"markdown: {block.kind} block of inline code and template slots only"
                decision = TypeDecision(TranslationType.PRESERVE, PreserveReason.MARKUP, None, rule)
            else:
                decision = TypeDecision(TranslationType.TRANSLATE_FREE, None, None, f"markdown: {block.kind} block")
            self.add(
                spec.path, locator, f"{spec.role.value}:{block.kind}", block.text, decision
            ).evidence_type = decision.translation_type

    def python_artifact(self, spec: ArtifactSpec) -> None:
        scan = scan_python_file(self.bench.artifact_path(spec))
        key_reads: dict[str, str] = {}
        for read in scan.key_reads:
            key_reads.setdefault(read.key, f"{spec.path}:{read.line}")
        for text in scan.texts:
            if spec.role is ArtifactRole.TOOL_CODE and text.role == "docstring" and not text.in_tool:
                continue  # tau2 builds schemas from @is_tool functions only: no model reads this docstring
            include = self._included_by_default(spec, text)
            probe = PythonLiteralLocator(
                module=spec.path, qualname=text.qualname, role=text.role, occurrence=text.occurrence, line=text.line
            )
            eid = element_id(spec.path, probe)
            decision = self.typer.type_code(eid, spec.path, text.qualname, text.name, text.role, text.text, include)
            if decision is None:
                continue
            plain = (
                decision
                if self.plain_typer is self.typer
                else self.plain_typer.type_code(eid, spec.path, text.qualname, text.name, text.role, text.text, include)
            )
            if text.role == "docstring" and decision.translation_type is TranslationType.TRANSLATE_FREE:
                for element in self._docstring_parts(spec, text, decision):
                    # parts the structure keeps are kept without a profile too; prose parts follow the plain decision
                    element.evidence_type = (
                        element.translation_type
                        if element.translation_type is TranslationType.PRESERVE or plain is None
                        else plain.translation_type
                    )
                    if plain is None:
                        element.evidence_type = (
                            None if element.translation_type is not TranslationType.PRESERVE else element.evidence_type
                        )
            else:
                element = self.add(spec.path, probe, f"{spec.role.value}:{text.role}", text.text, decision)
                element.evidence_type = plain.translation_type if plain is not None else None
                element.code_slots = code_slots(text.text, fstring=text.formatted, key_reads=key_reads)
                self.code_texts.append((element, text, spec))

    def _docstring_parts(self, spec: ArtifactSpec, text: CodeText, decision: TypeDecision) -> list[IRElement]:
        # tau2 builds tool schemas with docstring_parser: headers and argument names must survive.
        added: list[IRElement] = []
        for index, part in enumerate(split_docstring(text.text)):
            if not part.text.strip():
                continue
            locator = PythonLiteralLocator(
                module=spec.path,
                qualname=text.qualname,
                role="docstring",
                occurrence=text.occurrence,
                line=text.line,
                part=index,
            )
            if part.translatable:
                part_decision = decision
            elif part.kind == "header":
                part_decision = TypeDecision(
                    TranslationType.PRESERVE,
                    PreserveReason.DOCSTRING_HEADER,
                    None,
                    "docstring: Google-style section header",
                )
            else:
                part_decision = TypeDecision(
                    TranslationType.PRESERVE, PreserveReason.ARGUMENT_NAME, None, "docstring: parameter name and type"
                )
            element = self.add(spec.path, locator, f"{spec.role.value}:docstring", part.text, part_decision)
            tool = text.qualname.rsplit(".", 1)[-1]
            if not part.translatable and tool in self.evidence.tool_names:
                # tau2 parsed this docstring into the schema the running environment gives the model
                seen = Observed(
                    EvidenceScope.LOCATION,
                    frozenset({LinkKind.SCHEMA_LITERAL}),
                    f"parsed by the benchmark into the live schema of tool {tool}",
                )
                element.evidence = self.located.entry(spec.path, (text.qualname, part.kind), seen)
            added.append(element)
        return added

    @staticmethod
    def _included_by_default(spec: ArtifactSpec, text: CodeText) -> bool:
        if spec.role is ArtifactRole.TOOL_CODE:
            if text.role == "docstring":
                return text.in_tool
            return text.role in ("error_message", "tool_output", "constant") and "." in text.qualname
        if spec.role is ArtifactRole.DATA_MODEL_CODE:
            return text.role == "field_description" or (text.role == "docstring" and "." not in text.qualname)
        return False

    def link(self) -> list[LinkGroup]:
        return link_groups(self.elements, self.evidence, self.observed)

    def document(self, profile: LoadedProfile, groups: list[LinkGroup]) -> IRDocument:
        return IRDocument.model_construct(
            schema_version=IR_SCHEMA_VERSION,
            benchmark=self.bench.id,
            source_version=self.bench.source_version,
            source_language=family_of(self.bench.id).source_language_of(self.bench.id),
            analyzer_version=ANALYZER_VERSION,
            tasks_are_worlds=family_of(self.bench.id).tasks_are_worlds,
            profile_sha256=profile.sha256,
            artifacts=self.bench.fingerprints(),
            elements=self.elements,
            link_groups=groups,
            evidence=self.located.table(),
            analysis_findings=self.findings,
            entity_classes=self.entity_classes,
        )
