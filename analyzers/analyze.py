"""Steps 1-2 of the method: inventory every text field, trace it at run time, link and type it."""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable
from typing import Any

from analyzers import ANALYZER_VERSION
from analyzers.code_differential import code_differential
from analyzers.code_inventory import CodeText, scan_python_file, scan_runtime_literals
from analyzers.data_inventory import iter_data_texts
from analyzers.differential import DifferentialRunner, OpenPath, watched_indices
from analyzers.entity_classes import entity_class_decisions, refuse_unsafe_translate
from analyzers.heuristics import WORD
from analyzers.linking import link_groups, value_link_groups
from analyzers.located_evidence import LocatedEvidence, Observed
from analyzers.model_schema import ModelSchemaFacts, annotation_at, render_role, schema_facts
from analyzers.perturbation_trial import TrialState, profile_disagreements, record_evidence, run_trial
from analyzers.profile import LoadedProfile, empty_profile, load_profile
from analyzers.runtime_evidence import (
    RuntimeEvidenceIndex,
    record_compared_literals,
    record_evaluation_criteria,
    record_schema_literals,
    record_tool_call,
    record_tool_schemas,
)
from analyzers.trace_cache import cached
from analyzers.typing_rules import (
    FieldTyper,
    TypeDecision,
    data_leaf_decision,
    override_decision,
    runtime_literal_decision,
    tool_message_decision,
)
from babelflow.docstring_parts import split_docstring
from babelflow.errors import BabelflowError
from babelflow.gc_pause import gc_paused
from babelflow.ir import (
    IR_SCHEMA_VERSION,
    AnalysisFinding,
    ArtifactFormat,
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
    PythonTextRole,
    TranslationType,
    element_id,
)
from babelflow.markdown_blocks import split_markdown
from babelflow.python_docstrings import docstrings_of
from source_benchmarks.protocol import ArtifactSpec, DataFileFacts, PerturbedBenchmark, SourceBenchmark
from source_benchmarks.registry import family_of, get_benchmark

Progress = Callable[[str], None]
# inline code spans and template slots ({{component:x}}, {user_id}): a translator keeps them whole
_MARKUP_ONLY = re.compile(r"`[^`\n]*`|\{\{[^{}\n]*\}\}|\{[^{}\n]*\}")


def _import(dotted: str) -> Any:
    module, _, attr = dotted.partition(":")
    return getattr(importlib.import_module(module), attr)


def _parent_of(document: Any, path: tuple) -> Any:
    for segment in path[:-1]:
        document = document[segment]
    return document


def facts_for(spec: ArtifactSpec) -> ModelSchemaFacts:
    if not spec.data_model:
        return ModelSchemaFacts()
    model = _import(spec.data_model)
    # a tasks file holds a list of tasks; a per-file task (τ³ banking) is one task
    holds_list = spec.holds_list if spec.holds_list is not None else spec.role is ArtifactRole.TASKS
    return schema_facts(model, top_level_list=holds_list)


def collect_runtime_evidence(
    bench: SourceBenchmark, progress: Progress, located: LocatedEvidence | None = None
) -> RuntimeEvidenceIndex:
    index = RuntimeEvidenceIndex()
    progress("tool schemas")
    record_tool_schemas(index, bench.tool_schemas())
    task_ids = bench.task_ids(None)
    traced = family_of(bench.id).traced_replay(bench)
    if traced is not None and located is not None:
        # instrumented replay: set_state, tools, DB diffs, env assertions and evaluators observed per location
        progress(f"instrumented replay of {len(task_ids)} tasks")
        located.by_location = cached(bench, "trace", lambda: traced.trace(task_ids), extra="\0".join(task_ids))
        located.available = True
    else:
        progress(f"golden replay of {len(task_ids)} tasks")
        bench.replay_golden(
            task_ids,
            observer=lambda task_id, record: record_tool_call(index, task_id, record),
            scored=False,
            label="analysis: golden replays",
        )
        for task_id in task_ids:  # without a trace, what the evaluator reads is taken from the criteria
            record_evaluation_criteria(index, bench.task(task_id))
    index.replayed_tasks = len(task_ids)
    for spec in bench.artifacts():
        if spec.role is ArtifactRole.TOOL_CODE:
            record_compared_literals(index, spec.path, scan_python_file(bench.artifact_path(spec)).compared_literals)
    return index


class _Builder:
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

    def differential(self, progress: Progress) -> None:
        """Perturb the open field paths (batched, bisected, cached by source hash) and record the outcome."""
        if not self.open_fields or not self.located.available:
            return
        grouped: dict[tuple, OpenPath] = {}
        for element, key, path in self.open_fields:
            open_path = grouped.get(key)
            if open_path is None:
                open_path = grouped[key] = OpenPath(key, [], set(), [])
            open_path.locations.append((element.artifact, path))
            open_path.values.add(element.source_text)
            task_index = self._task_index(element.artifact, path)
            if task_index is not None and task_index not in open_path.task_indices:
                open_path.task_indices.append(task_index)
        paths = sorted(grouped.values(), key=lambda p: (p.key[0], repr(p.key[1]), p.key[2]))
        progress(f"differential: {len(paths)} open field paths")

        def compute() -> dict:
            runner = DifferentialRunner(self.bench, lambda folder: get_benchmark(self.bench.id, source_dir=folder))
            return runner.run(paths, watched_indices(self.bench))

        found = cached(self.bench, "differential", compute, extra=repr([(p.key, len(p.locations)) for p in paths]))
        for element, key, _ in self.open_fields:
            observed = found.get(key)
            if observed is None:
                continue
            element.evidence = self.located.entry(key[0], key[1], observed)
            plain_changed = (
                LinkKind.PERTURBATION_CHANGES_OUTCOME in observed.kinds or LinkKind.TOOL_OUTPUT in observed.kinds
            )
            if plain_changed:
                element.evidence_type = TranslationType.PRESERVE
                if (
                    self.plain_typer is self.typer
                    and element.translation_type is not TranslationType.PRESERVE
                    and not element.typing_rule.startswith("profile")
                ):
                    element.translation_type, element.canonical_group = TranslationType.PRESERVE, None
                    element.preserve_reason = PreserveReason.EVALUATOR_TOKEN
                    element.typing_rule = f"evidence (differential): {observed.detail}"

    def _task_index(self, artifact: str, path: tuple) -> int | None:
        """The position of the task a tasks-file field belongs to: its list index in a tasks file, the
        file's task in a per-file group."""
        spec = self.specs_by_path.get(artifact)
        if spec is None or spec.role is not ArtifactRole.TASKS:
            return None
        if path and isinstance(path[0], int):
            return path[0]
        return self.task_positions.get(artifact)

    def code_differential(self, progress: Progress) -> None:
        """Perturb the Preserve code texts nothing observed (prompts, control tokens, id templates)."""
        code_differential(
            self.bench,
            self.located,
            self.code_texts,
            lambda what, compute, extra: cached(self.bench, what, compute, extra=extra),
            progress,
        )

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
        items = list(iter_data_texts(document, facts))
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
            decision = self.typer.type_data(
                eid, spec.path, item.general, item.value, item.is_key, literals, parent=parent, observed=observed
            )
            plain = (
                decision
                if self.plain_typer is self.typer
                else self.plain_typer.type_data(
                    eid, spec.path, item.general, item.value, item.is_key, literals, parent=parent, observed=observed
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
                    and element.translation_type is TranslationType.PRESERVE
                ):
                    element.translation_type, element.preserve_reason = decision.translation_type, None
                    element.canonical_group, element.typing_rule = decision.canonical_group, decision.typing_rule

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
            analyzer_version=ANALYZER_VERSION,
            profile_sha256=profile.sha256,
            artifacts=self.bench.fingerprints(),
            elements=self.elements,
            link_groups=groups,
            evidence=self.located.table(),
            analysis_findings=self.findings,
            entity_classes=self.entity_classes,
        )

    # ---- a family typed by perturbation trial: shape decisions here, the trial decides the rest ------
    def _shaped(self, artifact: str, locator: Any, role: str, text: str, decision: TypeDecision) -> IRElement:
        element = self.add(artifact, locator, role, text, decision)
        element.evidence_type = decision.translation_type  # until the trial says more, shape alone decides
        return element

    def shaped_data_artifact(self, spec: ArtifactSpec, facts: DataFileFacts) -> None:
        """Every string leaf; typed by shape and the model the file loads into (no keys: they are schema)."""
        model = _import(facts.model) if facts.model else None
        name = spec.path.rsplit("/", 1)[-1]
        for item in iter_data_texts(self.bench.load_artifact(spec), ModelSchemaFacts()):
            annotation = annotation_at(model, facts.model_path + item.path) if model is not None else None
            decision = data_leaf_decision(item.value, facts.reparsed, model is not None, annotation, facts.messages)
            role = f"{name}:{'.'.join(item.general)}"
            self._shaped(spec.path, DataValueLocator(path=item.path), role, item.value, decision)

    def runtime_code_artifact(self, spec: ArtifactSpec, bench: PerturbedBenchmark) -> None:
        """A tool module: its tools' docstring pieces and the messages they return or raise. A task module:
        the texts of tasks composed from its tasks, and every literal of its classes and functions."""
        module = bench.python_module(spec)
        path = self.bench.artifact_path(spec)
        literals = scan_runtime_literals(path, module, bench.text_attributes)
        if spec.role is ArtifactRole.TOOL_CODE:
            tools = bench.tool_functions(spec)
            docs = docstrings_of(path)
            described = _free_text("tool docstring (reST field names kept)")
            for name in tools:
                for occurrence, piece in enumerate(bench.docstring_pieces(docs.get(name) or "")):
                    locator = _code_locator(spec, name, "docstring", occurrence)
                    self._shaped(spec.path, locator, "tool_code:docstring", piece, described)
            for literal in literals:
                if literal.qualname in tools and not literal.is_dict_key:
                    locator = _code_locator(spec, literal.qualname, "tool_output", literal.occurrence, literal.line)
                    decision = tool_message_decision(literal.value)
                    self._shaped(spec.path, locator, "tool_code:message", literal.value, decision)
            return
        composed_text = _free_text("combined task text (TaskCombinator)")
        for composed in bench.composed_texts(spec):
            if WORD.search(composed.text):
                locator = _code_locator(spec, composed.qualname, "prompt", 0)
                self._shaped(spec.path, locator, "task_code:attribute", composed.text, composed_text)
        for literal in literals:
            role: PythonTextRole = "prompt" if literal.where == "attribute" else "constant"
            locator = _code_locator(spec, literal.qualname, role, literal.occurrence, literal.line)
            decision = runtime_literal_decision(literal)
            self._shaped(spec.path, locator, f"task_code:{literal.where}", literal.value, decision)


def _code_locator(
    spec: ArtifactSpec, qualname: str, role: PythonTextRole, occurrence: int, line: int = 0
) -> PythonLiteralLocator:
    return PythonLiteralLocator(module=spec.path, qualname=qualname, role=role, occurrence=occurrence, line=line)


def _free_text(rule: str) -> TypeDecision:
    return TypeDecision(TranslationType.TRANSLATE_FREE, None, None, rule)


def analyze_benchmark(
    bench: SourceBenchmark,
    profile: LoadedProfile | None = None,
    progress: Progress | None = None,
    use_profile: bool = True,
    instrumented: bool = True,
) -> IRDocument:
    """Build the IR of one benchmark. Runs its golden replays instrumented; no translation happens here.

    `use_profile=False` types from evidence, structure and shape alone (`babelflow analyze --no-profile`).
    `instrumented=False` is the earlier analysis (plain golden replay, value-keyed evidence, no
    differential trials), kept for side-by-side measurement (bench/analysis_speed.py)."""
    progress = progress or (lambda message: None)
    profile = (profile or load_profile(bench.id)) if use_profile else empty_profile(bench.id)
    progress("checking every artifact loads")
    bench.validate_artifacts()  # unreadable or schema-breaking input fails here, naming the file
    family = family_of(bench.id)
    perturbed = family.perturbation(bench)
    if perturbed is not None:  # code and data typed together by a trial
        return _analyze_by_trial(bench, perturbed, profile, family.name, progress)
    located = LocatedEvidence()
    evidence = collect_runtime_evidence(bench, progress, located if instrumented else None)
    for spec in bench.artifacts():
        if spec.format in (ArtifactFormat.JSON, ArtifactFormat.TOML) and spec.translatable:
            record_schema_literals(evidence, spec.path, facts_for(spec).literal_values)
    builder = _Builder(bench, profile, evidence, located, use_profile=use_profile)
    # the inventory builds ~170k elements beside a 61 MB live trace (telecom): full collections that walk
    # it found nothing to free and cost a third of its time (21.5 s -> 14.4 s CPU paused, the same IR)
    with gc_paused():
        for spec in bench.artifacts():
            if not spec.translatable:
                continue
            progress(f"inventory {spec.path}")
            if spec.format in (ArtifactFormat.JSON, ArtifactFormat.TOML):
                builder.data_artifact(spec)
            elif spec.format is ArtifactFormat.MARKDOWN:
                builder.markdown_artifact(spec)
            else:
                builder.python_artifact(spec)
    _check_overrides(profile, builder.elements)
    builder.differential(progress)
    if instrumented:
        builder.code_differential(progress)
    builder.link_canonical_values()
    refuse_unsafe_translate(profile, builder.typer.entity_tallies)
    builder.entity_classes = entity_class_decisions(profile, builder.elements, builder.typer.entity_tallies)
    progress("linking")
    return builder.document(profile, builder.link())


def _check_overrides(profile: LoadedProfile, elements: list[IRElement]) -> None:
    unknown = sorted(set(profile.overrides) - {e.id for e in elements})
    if unknown:
        raise BabelflowError(
            f"Profile overrides name {len(unknown)} unknown field(s): {', '.join(unknown[:5])}",
            file=profile.sources[0],
            field="overrides.element",
            fix="use element ids from this benchmark's IR (`babelflow analyze ... --out ir.json`); "
            "ids change when the source files change",
        )


def _analyze_by_trial(
    bench: SourceBenchmark,
    perturbed: PerturbedBenchmark,
    profile: LoadedProfile,
    canonical_group: str,
    progress: Progress,
) -> IRDocument:
    """Inventory and shape typing by the builder, then the perturbation trial (perturbation_trial.py) decides
    what links code and data; every canonical value is one group, named after the family. `perturbed` is
    the family's perturbation view of `bench`."""
    builder = _Builder(bench, profile, RuntimeEvidenceIndex(), LocatedEvidence(), use_profile=False)
    data_files = {}
    for spec in bench.artifacts():
        if not spec.translatable:
            continue
        progress(f"inventory {spec.path}")
        if spec.format is ArtifactFormat.PYTHON:
            builder.runtime_code_artifact(spec, perturbed)
        else:
            data_files[spec.path] = facts = perturbed.data_file(spec)
            builder.shaped_data_artifact(spec, facts)
    _check_overrides(profile, builder.elements)
    state = TrialState(bench, builder.elements, data_files)
    run_trial(state, profile, progress)
    for element in builder.elements:
        canonical = element.translation_type is TranslationType.TRANSLATE_CANONICAL
        element.canonical_group = (element.canonical_group or canonical_group) if canonical else None
    record_evidence(state, builder.located)
    builder.findings = profile_disagreements(state)
    return builder.document(profile, value_link_groups(builder.elements, state.evidence))
