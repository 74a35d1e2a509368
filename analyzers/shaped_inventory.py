"""Inventory for a family typed by perturbation trial: shape decisions here, the trial decides the rest.

Code and data are typed together (perturbation_trial.py): every string leaf and tool or task text is shaped
here, then the trial reruns the ground truth on a perturbed copy and keeps what links code and data; every
canonical value is one group, named after the family."""

from __future__ import annotations

from typing import Any

from analyzers.code_inventory import scan_runtime_literals
from analyzers.data_inventory import iter_data_texts
from analyzers.heuristics import WORD
from analyzers.inventory import InventoryBuilder, Progress, check_overrides, import_dotted
from analyzers.linking import value_link_groups
from analyzers.located_evidence import LocatedEvidence
from analyzers.model_schema import ModelSchemaFacts, annotation_at
from analyzers.perturbation_trial import TrialState, profile_disagreements, record_evidence, run_trial
from analyzers.profile import LoadedProfile
from analyzers.runtime_evidence import RuntimeEvidenceIndex
from analyzers.typing_rules import TypeDecision, data_leaf_decision, runtime_literal_decision, tool_message_decision
from babelflow.format_slots import code_slots
from babelflow.ir import (
    ArtifactFormat,
    ArtifactRole,
    DataValueLocator,
    IRDocument,
    IRElement,
    PythonLiteralLocator,
    PythonTextRole,
    TranslationType,
)
from babelflow.python_docstrings import docstrings_of
from source_benchmarks.protocol import ArtifactSpec, DataFileFacts, PerturbedBenchmark, SourceBenchmark


class ShapedInventory(InventoryBuilder):
    """The elements of a perturbation-trial family, typed by their shape until the trial runs."""

    def _shaped(self, artifact: str, locator: Any, role: str, text: str, decision: TypeDecision) -> IRElement:
        element = self.add(artifact, locator, role, text, decision)
        element.evidence_type = decision.translation_type  # until the trial says more, shape alone decides
        return element

    def shaped_data_artifact(self, spec: ArtifactSpec, facts: DataFileFacts) -> None:
        """Every string leaf; typed by shape and the model the file loads into (no keys: they are schema)."""
        model = import_dotted(facts.model) if facts.model else None
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
                    element = self._shaped(spec.path, locator, "tool_code:message", literal.value, decision)
                    if literal.where != "fstring_part":
                        element.code_slots = code_slots(literal.value, fstring=False)
            return
        composed_text = _free_text("combined task text (TaskCombinator)")
        for composed in bench.composed_texts(spec):
            if WORD.search(composed.text):
                locator = _code_locator(spec, composed.qualname, "prompt", 0)
                element = self._shaped(spec.path, locator, "task_code:attribute", composed.text, composed_text)
                element.code_slots = code_slots(composed.text, fstring=False)
        for literal in literals:
            role: PythonTextRole = "prompt" if literal.where == "attribute" else "constant"
            locator = _code_locator(spec, literal.qualname, role, literal.occurrence, literal.line)
            decision = runtime_literal_decision(literal)
            element = self._shaped(spec.path, locator, f"task_code:{literal.where}", literal.value, decision)
            if literal.where != "fstring_part":  # a part is the text between slots: it holds none
                element.code_slots = code_slots(literal.value, fstring=False)


def _code_locator(
    spec: ArtifactSpec, qualname: str, role: PythonTextRole, occurrence: int, line: int = 0
) -> PythonLiteralLocator:
    return PythonLiteralLocator(module=spec.path, qualname=qualname, role=role, occurrence=occurrence, line=line)


def _free_text(rule: str) -> TypeDecision:
    return TypeDecision(TranslationType.TRANSLATE_FREE, None, None, rule)


def analyze_by_trial(
    bench: SourceBenchmark,
    perturbed: PerturbedBenchmark,
    profile: LoadedProfile,
    canonical_group: str,
    progress: Progress,
) -> IRDocument:
    """Inventory and shape typing by the builder, then the perturbation trial (perturbation_trial.py) decides
    what links code and data; every canonical value is one group, named after the family. `perturbed` is
    the family's perturbation view of `bench`."""
    builder = ShapedInventory(bench, profile, RuntimeEvidenceIndex(), LocatedEvidence(), use_profile=False)
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
    check_overrides(profile, builder.elements)
    state = TrialState(bench, builder.elements, data_files)
    run_trial(state, profile, progress)
    for element in builder.elements:
        canonical = element.translation_type is TranslationType.TRANSLATE_CANONICAL
        element.canonical_group = (element.canonical_group or canonical_group) if canonical else None
    record_evidence(state, builder.located)
    builder.findings = profile_disagreements(state)
    return builder.document(profile, value_link_groups(builder.elements, state.evidence))
