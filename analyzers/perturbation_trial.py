"""The perturbation trial: code and data texts typed together by rerunning the ground truth on a perturbed copy.

For a family whose checks are Python that compares literals against its data (family.perturbation),
typing starts from shapes and types (analyze.py's builder with typing_rules' shape decisions) and is then decided
by running: the trial renders every translatable field the way a translator would (a canonical value one way
everywhere; free prose word by word, its canonical mentions as their canonical rendering), opens the perturbed
copy through the family's `open_variant`, and reruns every task's ground truth. A task whose score,
injectability or failing calls change names the literals that link code and data: its check literals and the
data values that contain them are kept (Preserve, with the replay as evidence), and the trial runs again until
the perturbed copy scores exactly like the source.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from analyzers.heuristics import WORD, kept_spans
from analyzers.located_evidence import LocatedEvidence, Observed
from analyzers.mentions import always_token
from analyzers.profile import LoadedProfile
from analyzers.typing_rules import TypeDecision, override_decision
from babelflow.ir import (
    AnalysisFinding,
    ArtifactFormat,
    ArtifactRole,
    DataValueLocator,
    EvidenceScope,
    IRElement,
    LinkKind,
    PreserveReason,
    PythonLiteralLocator,
    RuntimeEvidence,
    TranslationType,
)
from babelflow.text import ACCENT_TABLE, FORMAT_SLOT
from babelflow.variant import CodeOverlay, CodeText
from source_benchmarks.protocol import DataFileFacts, ReplayOutcome, SourceBenchmark
from source_benchmarks.registry import family_of
from source_benchmarks.yaml_io import dump_yaml, load_yaml, set_at

Progress = Callable[[str], None]
MAX_TRIAL_ROUNDS = 8
_TRIAL_KINDS = frozenset({LinkKind.PERTURBATION_CHANGES_OUTCOME})


def task_scope(element: IRElement) -> str:
    """The task class a literal of task code belongs to ("" for module level, tools and data)."""
    qualname = element.locator.qualname if isinstance(element.locator, PythonLiteralLocator) else ""
    return qualname.split(".")[0] if element.role.startswith("task_code:") and "." in qualname else ""


def _code_role(element: IRElement) -> str | None:
    return element.locator.role if isinstance(element.locator, PythonLiteralLocator) else None


class TrialState:
    """The elements under trial and what the replays showed about each (its evidence)."""

    def __init__(self, bench: SourceBenchmark, elements: list[IRElement], data_files: dict[str, DataFileFacts]):
        self.bench: Any = bench  # also a PerturbedBenchmark (analyze.py checks it)
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


# ---- inline tokens: what a free text keeps verbatim (its canonical values and the trial's kept literals) ----
def assign_inline_tokens(state: TrialState) -> None:
    elements = state.elements
    canonical = {
        e.source_text
        for e in elements
        if e.translation_type is TranslationType.TRANSLATE_CANONICAL
        and len(e.source_text.strip()) >= 3
        and e.source_text == e.source_text.strip()
    }
    kept = {
        e.source_text
        for e in elements
        if e.translation_type is TranslationType.PRESERVE
        and e.source_text == e.source_text.strip()
        and len(e.source_text) >= 3
        and (always_token(e.source_text) or e.typing_rule.startswith("trial"))
    }
    vocabulary = sorted(canonical | kept, key=lambda v: (-len(v), v))
    if not vocabulary:
        return
    pattern = re.compile(r"(?<![\w])(?:" + "|".join(re.escape(v) for v in vocabulary) + r")(?![\w])")
    checked: dict[tuple[str, str], set[str]] = {}  # (module, task class) -> lowercase values its checks keep
    for e in elements:
        scope = task_scope(e)
        if (
            scope
            and e.translation_type is TranslationType.PRESERVE
            and e.locator.kind == "python_literal"
            and e.preserve_reason is not PreserveReason.ARGUMENT_NAME
            and len(e.source_text.strip()) >= 3
            and WORD.search(e.source_text)
        ):
            checked.setdefault((e.artifact, scope), set()).add(e.source_text.strip())
    found_by_id: dict[str, set[str]] = {}
    for element in elements:
        if element.translation_type is TranslationType.TRANSLATE_FREE:
            found = {m.group(0) for m in pattern.finditer(element.source_text) if m.group(0) != element.source_text}
            if (
                element.role == "task_code:attribute"
            ):  # the task's own answer and prompt keep what its checks look for ("island trailhead")
                for value in checked.get((element.artifact, task_scope(element)), ()):
                    found |= {
                        m.group(0)
                        for m in re.finditer(
                            r"(?<![\w])" + re.escape(value) + r"(?![\w])", element.source_text, re.IGNORECASE
                        )
                    }
            found_by_id[element.id] = found
    # fields with one text are one translation unit: they share their tokens (a v1 and a v1.2.2 PROMPT)
    shared: dict[tuple[str, str], set[str]] = {}
    for element in elements:
        if element.translation_type is TranslationType.TRANSLATE_FREE:
            shared.setdefault((element.source_text, element.role), set()).update(found_by_id[element.id])
    for element in elements:
        if element.translation_type is TranslationType.TRANSLATE_FREE:
            element.inline_tokens = sorted(shared[(element.source_text, element.role)], key=lambda v: (-len(v), v))


# ---- the perturbed renderings -------------------------------------------------------------------------
def _canonical(text: str) -> str:
    out, last = [], 0
    for start, end in kept_spans(text):
        out.append(text[last:start].translate(ACCENT_TABLE))
        out.append(text[start:end])
        last = end
    out.append(text[last:].translate(ACCENT_TABLE))
    return (
        "ᵃ" + "".join(out) + "ᵃ"
    )  # marks at both ends: one canonical value is no substring of another, as in a real translation


def _free(text: str, tokens: list[str], canonical: set[str]) -> str:
    """Word by word (so a substring of the source survives only as a protected token)."""
    spans: list[tuple[int, int, str]] = []
    taken = [False] * len(text)
    for token in tokens:
        for match in re.finditer(r"(?<![\w])" + re.escape(token) + r"(?![\w])", text):
            if not any(taken[match.start() : match.end()]):
                spans.append((match.start(), match.end(), _canonical(token) if token in canonical else token))
                for i in range(match.start(), match.end()):
                    taken[i] = True
    slots = [match.span() for match in FORMAT_SLOT.finditer(text)]
    for start, end in slots + kept_spans(text):
        if not any(taken[start:end]):
            spans.append((start, end, text[start:end]))
            for i in range(start, end):
                taken[i] = True
    out, last = [], 0
    for start, end, rendered in sorted(spans):
        out.append(re.sub(r"[^\W\d_]+", lambda m: m.group(0).translate(ACCENT_TABLE) + "ᵇ", text[last:start]))
        out.append(rendered)
        last = end
    out.append(re.sub(r"[^\W\d_]+", lambda m: m.group(0).translate(ACCENT_TABLE) + "ᵇ", text[last:]))
    return "ᵇ" + "".join(out) + "ᵇ"  # a unit is translated whole: its rendering is no substring of a longer unit's


def perturbed_targets(elements: list[IRElement]) -> dict[str, str]:
    canonical = {e.source_text for e in elements if e.translation_type is TranslationType.TRANSLATE_CANONICAL}
    targets = {}
    for element in elements:
        if element.translation_type is TranslationType.TRANSLATE_CANONICAL:
            targets[element.id] = _canonical(element.source_text)
        elif element.translation_type is TranslationType.TRANSLATE_FREE:
            targets[element.id] = _free(element.source_text, element.inline_tokens, canonical)
    return targets


def outcome_signature(outcome: ReplayOutcome) -> tuple:
    """What must not move: the score, injectability, and which ground-truth calls fail (a search
    whose query no longer matches the translated data fails even where the score survives)."""
    return (
        outcome.reward,
        outcome.reward_breakdown.get("injectable"),
        tuple(c.name for c in outcome.tool_calls if c.error),
    )


def _trial(state: TrialState, workdir: Path, round_no: int, task_ids: list[str]) -> dict[str, ReplayOutcome]:
    bench = state.bench
    targets = perturbed_targets(state.elements)
    root = workdir / f"trial{round_no}"
    by_artifact: dict[str, list[IRElement]] = {}
    for element in state.elements:
        by_artifact.setdefault(element.artifact, []).append(element)
    overlay = CodeOverlay(language="trial")
    for spec in bench.artifacts():
        items = [e for e in by_artifact.get(spec.path, []) if e.id in targets]
        if spec.format is ArtifactFormat.YAML:
            document = load_yaml(bench.artifact_path(spec))
            for element in items:
                if isinstance(element.locator, DataValueLocator):
                    set_at(document, tuple(element.locator.path), targets[element.id])
            (root / spec.path).parent.mkdir(parents=True, exist_ok=True)
            dump_yaml(root / spec.path, document)
        elif spec.role is ArtifactRole.PROMPT_CODE or spec.role is ArtifactRole.TOOL_CODE:
            for element in items:
                locator = element.locator
                if not isinstance(locator, PythonLiteralLocator) or locator.role == "docstring":
                    continue  # descriptions reach no check
                overlay.texts.append(
                    CodeText(
                        module=spec.path,
                        qualname=locator.qualname,
                        role=locator.role,
                        occurrence=locator.occurrence,
                        source=element.source_text,
                        target=targets[element.id],
                    )
                )
    variant = family_of(bench.id).open_variant(bench.id, root, overlay)
    try:
        variant.validate_artifacts()
    except Exception as exc:  # noqa: BLE001 - a trial that does not load is a finding of the analysis itself
        raise RuntimeError(f"perturbation trial {round_no} does not load: {exc}") from exc
    return {o.task_id: o for o in variant.replay_golden(task_ids, label=f"analysis: perturbation trial {round_no}")}


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
            assign_inline_tokens(state)
            progress(f"perturbation trial {round_no}")
            # later rounds replay the tasks that still differed: keeping more only moves a task towards its source
            trial = _trial(state, Path(tmp), round_no, differing if round_no else list(source))
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
            assign_inline_tokens(state)
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
