"""The perturbation trial: code and data texts typed together by rerunning the ground truth on a perturbed copy.

For a family whose checks are Python that compares literals against its data (family.perturbation),
typing starts from shapes and types (shaped_inventory.py with typing_rules' shape decisions) and is then decided
by running: the trial renders every translatable field the way a translator would (a canonical value one way
everywhere; free prose word by word, its canonical mentions as their canonical rendering), opens the perturbed
copy through the family's `open_variant`, and reruns every task's ground truth. A task whose score,
injectability or failing calls change names the literals that link code and data: its check literals and the
data values that contain them are kept (Preserve, with the replay as evidence), and the trial runs again until
the perturbed copy scores exactly like the source.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from analyzers.heuristics import WORD
from analyzers.inventory import Progress
from analyzers.located_evidence import LocatedEvidence, Observed
from analyzers.perturbed_copy import assign_inline_tokens, replay_perturbed_copy, task_scope
from analyzers.profile import LoadedProfile
from analyzers.typing_rules import TypeDecision, override_decision
from babelflow.ir import (
    AnalysisFinding,
    DataValueLocator,
    EvidenceScope,
    IRElement,
    LinkKind,
    PreserveReason,
    PythonLiteralLocator,
    RuntimeEvidence,
    TranslationType,
)
from source_benchmarks.protocol import DataFileFacts, ReplayOutcome, SourceBenchmark

MAX_TRIAL_ROUNDS = 8
_TRIAL_KINDS = frozenset({LinkKind.PERTURBATION_CHANGES_OUTCOME})


def _code_role(element: IRElement) -> str | None:
    return element.locator.role if isinstance(element.locator, PythonLiteralLocator) else None


class TrialState:
    """The elements under trial and what the replays showed about each (its evidence)."""

    def __init__(self, bench: SourceBenchmark, elements: list[IRElement], data_files: dict[str, DataFileFacts]):
        self.bench: Any = bench  # also a PerturbedBenchmark (shaped_inventory.py checks it)
        self.elements = elements
        self.data_files = data_files
        self.evidence: dict[str, list[RuntimeEvidence]] = {}

    def keep(
        self, element: IRElement, reason: PreserveReason, rule: str, evidence: RuntimeEvidence | None = None
    ) -> None:
        element.translation_type, element.preserve_reason, element.typing_rule = TranslationType.PRESERVE, reason, rule
        element.canonical_group = None
        element.evidence_type = TranslationType.PRESERVE  # the run alone keeps it
        if evidence is not None:
            self.evidence.setdefault(element.id, []).append(evidence)

    def reaches_tasks(self, element: IRElement) -> bool:
        """Whether a data value can reach a task's environment or checks (a system message never does)."""
        facts = self.data_files.get(element.artifact)
        if facts is None:
            return True
        path = element.locator.path if isinstance(element.locator, DataValueLocator) else ()
        return facts.read_by_tasks and not (path and path[-1] in facts.unread_keys)


def outcome_signature(outcome: ReplayOutcome) -> tuple:
    """What must not move: the score, injectability, and which ground-truth calls fail (a search
    whose query no longer matches the translated data fails even where the score survives)."""
    return (
        outcome.reward,
        outcome.reward_breakdown.get("injectable"),
        tuple(c.name for c in outcome.tool_calls if c.error),
    )


# ---- what a differing task keeps ----------------------------------------------------------------------
def _keep_messages_of(state: TrialState, tools: set[str], evidence: RuntimeEvidence) -> None:
    """The messages of the tools a differing task's ground truth calls are kept: a check or the
    ground truth may read a tool's output (its answer is built from it)."""
    for element in state.elements:
        locator = element.locator
        if (
            element.role == "tool_code:message"
            and element.translation_type is not TranslationType.PRESERVE
            and isinstance(locator, PythonLiteralLocator)
            and locator.qualname in tools
        ):
            state.keep(
                element, PreserveReason.EVALUATOR_TOKEN, "trial: a message of a tool the differing task calls", evidence
            )


def _demote_for(state: TrialState, task_id: str, round_no: int, detail: str) -> int:
    elements = state.elements
    evidence = RuntimeEvidence(source="golden_replay", detail=detail, task_id=task_id)
    scope: list[IRElement] = []
    for code in state.bench.task_code(task_id):  # a combined task: its parts hold the literals
        in_module = [e for e in elements if e.artifact == code.artifact]
        scope += [e for e in in_module if task_scope(e) in (code.qualname, "") and _code_role(e) == "constant"]
        if round_no >= 2:  # still failing: the task's texts and the module's constants too
            scope += [e for e in in_module if task_scope(e) == code.qualname]
    words = {
        e.source_text.strip().lower()
        for e in scope
        if len(e.source_text.strip()) >= 3
        and WORD.search(e.source_text)
        and e.role != "task_code:attribute"
        and not e.preserve_reason == PreserveReason.ARGUMENT_NAME
    }
    data = [e.source_text.lower() for e in elements if e.locator.kind == "data_value"]
    linked = {w for w in words if any(w in text for text in data)}
    if linked and round_no < 2:  # first the literals the data holds: those are the links
        words = linked
        scope = [e for e in scope if e.source_text.strip().lower() in linked]
    changed = 0
    for element in scope:
        if element.translation_type is not TranslationType.PRESERVE and element.role != "task_code:attribute":
            state.keep(element, PreserveReason.EVALUATOR_TOKEN, f"trial: perturbing it changed {task_id}", evidence)
            changed += 1
    for element in elements:
        if (
            element.locator.kind == "data_value"
            and element.translation_type is not TranslationType.PRESERVE
            and state.reaches_tasks(element)
        ):
            lowered = element.source_text.lower()
            if any(word in lowered for word in words):
                state.keep(element, PreserveReason.LINKED_ENTITY, f"trial: holds a literal {task_id} checks", evidence)
                changed += 1
    return changed


def _code_values_are_canonical(state: TrialState) -> None:
    """A value a check or ground truth holds as a literal is one entity: every data field equal to
    it is rendered the same way (Translate-Canonical), whatever its length."""
    elements = state.elements
    in_code = {
        e.source_text
        for e in elements
        if e.locator.kind == "python_literal" and e.translation_type is TranslationType.TRANSLATE_CANONICAL
    }
    for element in elements:
        if (
            element.role != "tool_code:docstring"
            and element.translation_type is TranslationType.TRANSLATE_FREE
            and element.source_text in in_code
        ):
            element.translation_type = element.evidence_type = TranslationType.TRANSLATE_CANONICAL
            element.typing_rule = "value also a code literal: one rendering in code and data"


def _unify(state: TrialState) -> None:
    """One value, one type: a value the trial kept somewhere is kept everywhere it is a value
    (a canonical rendering injected into prose would otherwise differ from the kept literal)."""
    kept = {
        e.source_text: e
        for e in state.elements
        if e.translation_type is TranslationType.PRESERVE and e.typing_rule.startswith("trial")
    }
    for element in state.elements:
        if (
            element.translation_type is not TranslationType.PRESERVE
            and element.source_text in kept
            and element.role != "tool_code:docstring"
        ):
            first = kept[element.source_text]
            evidence = state.evidence.get(first.id)
            rule = f"trial: same value as a kept one ({first.typing_rule.removeprefix('trial: ')})"
            state.keep(
                element, first.preserve_reason or PreserveReason.LINKED_ENTITY, rule, evidence[0] if evidence else None
            )


def _apply_overrides(elements: list[IRElement], profile: LoadedProfile) -> None:
    for element in elements:
        override = profile.overrides.get(element.id)
        if override is not None:
            decision: TypeDecision = override_decision(override)
            element.translation_type, element.preserve_reason, element.typing_rule = (
                decision.translation_type,
                decision.preserve_reason,
                decision.typing_rule,
            )
            element.canonical_group = decision.canonical_group


def run_trial(state: TrialState, profile: LoadedProfile, progress: Progress) -> None:
    """Type the elements by perturbation trials (at most MAX_TRIAL_ROUNDS); a reviewer's override wins."""
    bench = state.bench
    progress("ground truth of every task (source)")
    source = {o.task_id: o for o in bench.replay_golden(label="analysis: ground truth")}
    _code_values_are_canonical(state)
    _apply_overrides(state.elements, profile)
    differing: list[str] = []
    with tempfile.TemporaryDirectory(prefix="babelflow-perturbation-trial-") as tmp:
        for round_no in range(MAX_TRIAL_ROUNDS):
            assign_inline_tokens(state.elements)
            progress(f"perturbation trial {round_no}")
            # later rounds replay the tasks that still differed: keeping more only moves a task towards its source
            trial = replay_perturbed_copy(
                state.bench, state.elements, Path(tmp), round_no, differing if round_no else list(source)
            )
            differing = [t for t in trial if outcome_signature(trial[t]) != outcome_signature(source[t])]
            if not differing:
                break
            progress(f"perturbation trial {round_no}: differ {', '.join(differing)}")
            for task_id in differing:
                before, after = outcome_signature(source[task_id]), outcome_signature(trial[task_id])
                detail = f"perturbed suite: {before} -> {after} (reward, injectable, failing calls)"[:300]
                _demote_for(state, task_id, round_no, detail)
                _keep_messages_of(
                    state,
                    {c.name for c in source[task_id].tool_calls},
                    RuntimeEvidence(source="golden_replay", detail=detail, task_id=task_id),
                )
            _unify(state)
        else:
            assign_inline_tokens(state.elements)
            still = f"{len(differing)} task(s) still differ after {MAX_TRIAL_ROUNDS} rounds"
            progress(f"perturbation trial: {still} (validation will name them)")
    _apply_overrides(state.elements, profile)  # a reviewer's decision wins over the trial


def profile_disagreements(state: TrialState) -> list[AnalysisFinding]:
    """Where a reviewer's override translates a field the trial had to keep (analysis route: validation
    reports it, and the reviewer fixes the override, not the translation)."""
    findings = []
    for element in state.elements:
        kept_by = state.evidence.get(element.id)
        overridden = element.typing_rule.startswith("profile override")
        if kept_by and overridden and element.translation_type is not TranslationType.PRESERVE:
            findings.append(
                AnalysisFinding(
                    element=element.id,
                    profile_type=element.translation_type,
                    evidence_type=TranslationType.PRESERVE,
                    profile_rule=element.typing_rule,
                    evidence=f"{kept_by[0].task_id}: {kept_by[0].detail}",
                )
            )
    return findings


def record_evidence(state: TrialState, located: LocatedEvidence) -> None:
    """Each element the trial kept points at the replay that kept it (a shared evidence-table entry)."""
    for element in state.elements:
        found = state.evidence.get(element.id)
        if found:
            first = found[0]
            seen = Observed(EvidenceScope.DIFFERENTIAL, _TRIAL_KINDS, f"{first.task_id}: {first.detail}")
            element.evidence = located.entry(element.artifact, (element.role, first.task_id or ""), seen)
