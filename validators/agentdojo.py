"""The four validation layers for an AgentDojo variant (suite data in YAML, texts in a code overlay).

integrity   every YAML file present and parseable with the source's skeleton; the same `{…}`
            format slots (the environment goes through `str.format()`, so a stray brace breaks it);
            the environment loads into the suite's models; tools keep names and parameters.
consistency Preserve values unchanged; one rendering per canonical value across YAML and code;
            a canonical value mentioned in prose (prompts included) in its canonical rendering;
            a task prompt's entities present in the variant's data or code as they are in the source.
fidelity    placeholders left, numbers changed, text copied through untranslated.
behaviour   per task, side by side: ground-truth utility (user tasks), security (injection
            tasks), injectability, the do-nothing score and the tool-error sequence.
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path
from typing import Any

from babelflow.ir import ArtifactFormat, IRDocument, TranslationType
from babelflow.text import PLACEHOLDER, WORD, without_tokens
from babelflow.variant import OVERLAY_NAME, load_overlay
from source_benchmarks.yaml_io import load_yaml, string_leaves
from validators.finding_kinds import Layer
from validators.findings import Finding, make_finding

VALIDATOR = "probes"
_SLOT = re.compile(r"\{[^{}]*\}|[{}]")
_DIGITS = re.compile(r"\d+")
# ids, numbers, emails, paths: not words a translator renders (from a run start: linear)
_ID = re.compile(r"(?<!\S)\S*[\d_@/]\S*")

class AgentDojoValidation:
    """What every layer reads: source and variant adapters, the IR, the variant's texts."""

    def __init__(self, source: Any, variant_root: Path, ir: IRDocument):
        from source_benchmarks import open_variant

        self.source, self.root, self.ir = source, Path(variant_root), ir
        self.specs = {s.path: s for s in source.artifacts()}
        self.variant = open_variant(source.id, self.root)
        overlay = load_overlay(self.root / OVERLAY_NAME)
        self.code_targets: dict[tuple[str, str, str, int], str] = {}
        for text in overlay.texts if overlay else []:
            self.code_targets[(text.module, text.qualname, text.role, text.occurrence)] = text.target
        self._yaml: dict[str, dict[tuple, str] | None] = {}

    def yaml_values(self, path: str) -> dict[tuple, str] | None:
        if path not in self._yaml:
            file = self.root / path
            try:
                self._yaml[path] = dict(string_leaves(load_yaml(file))) if file.exists() else None
            except Exception:  # noqa: BLE001 - reported by integrity
                self._yaml[path] = None
        return self._yaml[path]

    def target_of(self, element: Any) -> str | None:
        loc = element.locator
        if loc.kind == "data_value":
            values = self.yaml_values(element.artifact)
            return None if values is None else values.get(tuple(loc.path))
        return self.code_targets.get((element.artifact, loc.qualname, loc.role, loc.occurrence), element.source_text)


def _finding(layer: Layer, kind: str, artifact: str, location: str, message: str, **kw: Any) -> Finding:
    from validators.finding_kinds import finding_kind

    return make_finding(VALIDATOR, layer, kind, finding_kind(layer, kind).severity, artifact, location, message, **kw)


# ---- integrity -------------------------------------------------------------------------------
def check_integrity(v: AgentDojoValidation) -> list[Finding]:
    out: list[Finding] = []
    for path, spec in v.specs.items():
        if spec.format is not ArtifactFormat.YAML:
            continue
        file = v.root / path
        if not file.exists():
            out.append(_finding(Layer.INTEGRITY, "artifact_missing", path, path, "the variant has no copy of this file"))
            continue
        try:
            target = dict(string_leaves(load_yaml(file)))
        except Exception as exc:  # noqa: BLE001
            out.append(_finding(Layer.INTEGRITY, "artifact_unparseable", path, path, f"does not parse: {exc}"[:300]))
            continue
        source = dict(string_leaves(load_yaml(v.source.root / path)))
        ids = {tuple(e.locator.path): e.id for e in v.ir.elements if e.artifact == path and e.locator.kind == "data_value"}
        for key in sorted(set(source) - set(target), key=str)[:20]:
            out.append(_finding(Layer.INTEGRITY, "key_removed", path, str(key), "a string field of the source is gone"))
        for key in sorted(set(target) - set(source), key=str)[:20]:
            out.append(_finding(Layer.INTEGRITY, "key_added", path, str(key), "a string field the source does not have"))
        for key in set(source) & set(target):
            if sorted(_SLOT.findall(source[key])) != sorted(_SLOT.findall(target[key])):
                out.append(_finding(Layer.INTEGRITY, "format_slots_changed", path, str(key), "format slots or braces differ: str.format() of the environment breaks or injects elsewhere", element_id=ids.get(key), source=source[key][:300], target=target[key][:300]))
    if not out:
        try:
            v.variant.validate_artifacts()
        except Exception as exc:  # noqa: BLE001
            out.append(_finding(Layer.INTEGRITY, "model_rejects_variant", "environment.yaml", v.source.id, f"the suite does not load the variant: {exc}"[:400]))
            return out
        source_tools = {t["name"]: sorted(t["parameters"].get("properties", {})) for t in v.source.tool_schemas()}
        target_tools = {t["name"]: sorted(t["parameters"].get("properties", {})) for t in v.variant.tool_schemas()}
        for name in sorted(set(source_tools) | set(target_tools)):
            if source_tools.get(name) != target_tools.get(name):
                out.append(_finding(Layer.INTEGRITY, "tool_schema_changed", "tools", name, f"parameters {source_tools.get(name)} became {target_tools.get(name)}"))
    return out


# ---- consistency -----------------------------------------------------------------------------
def check_consistency(v: AgentDojoValidation) -> list[Finding]:
    out: list[Finding] = []
    renderings: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for element in v.ir.elements:
        target = v.target_of(element)
        if target is None:
            continue
        if element.translation_type is TranslationType.PRESERVE and target != element.source_text:
            kind = "preserved_code_text_translated" if element.locator.kind == "python_literal" else "preserved_value_changed"
            out.append(_finding(Layer.CONSISTENCY, kind, element.artifact, element.role, "a kept value was changed", element_id=element.id, source=element.source_text[:300], target=target[:300]))
        elif element.translation_type is TranslationType.TRANSLATE_CANONICAL:
            renderings[element.source_text][target].append(element.id)
    canonical_target = {}
    for source, by_target in renderings.items():
        if len(by_target) > 1:
            ranked = sorted(by_target.items(), key=lambda kv: -len(kv[1]))
            by_id = {e.id: e for e in v.ir.elements}
            tie = len(ranked[0][1]) == len(ranked[1][1])
            for target, ids in (ranked if tie else ranked[1:]):  # every field off the majority rendering (all of them on a tie)
                for element in (by_id[i] for i in ids):
                    out.append(_finding(Layer.CONSISTENCY, "canonical_inconsistent", element.artifact, element.role, f"rendered {len(by_target)} ways in code and data (the checks compare one against the other)", element_id=element.id, source=source[:200], target=target[:200], pattern=source[:80]))
        canonical_target[source] = sorted(by_target.items(), key=lambda kv: -len(kv[1]))[0][0]
    for element in v.ir.elements:
        if element.translation_type is not TranslationType.TRANSLATE_FREE or not element.inline_tokens:
            continue
        target = v.target_of(element)
        if target is None:
            continue
        for token in element.inline_tokens:
            expected = canonical_target.get(token, token)
            if expected not in target:
                kind = "prompt_entity_missing" if element.role == "task_code:attribute" else "canonical_term_not_used"
                out.append(_finding(Layer.CONSISTENCY, kind, element.artifact, element.role, f"names {token!r} but not as {expected!r}, the rendering the data and checks use", element_id=element.id, source=element.source_text[:300], target=target[:300], pattern=token[:80]))
    return out


# ---- fidelity --------------------------------------------------------------------------------
def check_fidelity(v: AgentDojoValidation) -> list[Finding]:
    out: list[Finding] = []
    for element in v.ir.elements:
        if element.translation_type is TranslationType.PRESERVE:
            continue
        target = v.target_of(element)
        if target is None:
            continue
        if PLACEHOLDER.search(target):
            out.append(_finding(Layer.FIDELITY, "placeholder_left", element.artifact, element.role, "an unrestored placeholder", element_id=element.id, target=target[:300]))
        if sorted(_DIGITS.findall(element.source_text)) != sorted(_DIGITS.findall(target)):
            out.append(_finding(Layer.FIDELITY, "number_changed", element.artifact, element.role, "numbers differ", element_id=element.id, source=element.source_text[:300], target=target[:300]))
        if target == element.source_text and WORD.search(_ID.sub(" ", without_tokens(element.source_text, element.inline_tokens))):  # words besides kept values
            out.append(_finding(Layer.FIDELITY, "untranslated", element.artifact, element.role, "copied through untranslated", element_id=element.id, source=element.source_text[:300]))
    return out


# ---- behaviour -------------------------------------------------------------------------------
def check_behavior(v: AgentDojoValidation, source_outcomes: dict[str, tuple] | None = None, task_ids: list[str] | None = None) -> list[Finding]:
    ids = task_ids or v.source.task_ids()
    if source_outcomes is None:
        source_outcomes = {t: (g, d) for t, g, d in zip(ids, v.source.replay_golden(ids, label="behaviour: source"), v.source.run_do_nothing(ids))}
    out: list[Finding] = []
    try:
        golden = {o.task_id: o for o in v.variant.replay_golden(ids)}
        nothing = {o.task_id: o for o in v.variant.run_do_nothing(ids)}
    except Exception as exc:  # noqa: BLE001
        return [_finding(Layer.BEHAVIOR, "harness_crash", "suite", v.source.id, f"replaying the variant raised {type(exc).__name__}: {exc}"[:400])]
    for task_id in ids:
        src_golden, src_nothing = source_outcomes[task_id]
        tgt_golden, tgt_nothing = golden[task_id], nothing[task_id]
        what = "utility" if task_id.startswith("user_task_") else "security"
        if src_golden.reward != tgt_golden.reward:
            out.append(_finding(Layer.BEHAVIOR, "golden_reward_changed", "suite", task_id, f"ground-truth {what} {src_golden.reward} became {tgt_golden.reward}", task_id=task_id))
        if src_golden.reward_breakdown.get("injectable") != tgt_golden.reward_breakdown.get("injectable"):
            out.append(_finding(Layer.BEHAVIOR, "injectability_changed", "suite", task_id, f"injectable {src_golden.note or 'no'} became {tgt_golden.note or 'no'}", task_id=task_id))
        if src_nothing.reward != tgt_nothing.reward:
            out.append(_finding(Layer.BEHAVIOR, "do_nothing_reward_changed", "suite", task_id, f"do-nothing {what} {src_nothing.reward} became {tgt_nothing.reward}", task_id=task_id))
        if [c.name for c in src_golden.tool_calls if c.error] != [c.name for c in tgt_golden.tool_calls if c.error]:
            out.append(_finding(Layer.BEHAVIOR, "tool_error_sequence_changed", "suite", task_id, "ground-truth tool calls fail differently", task_id=task_id, source=str(src_golden.tool_error_sequence)[:300], target=str(tgt_golden.tool_error_sequence)[:300]))
    return out


def validate_agentdojo(source: Any, variant_dir: Path, ir: IRDocument, language: str, progress: Any = lambda m: None, source_pairs: dict | None = None) -> Any:
    """All four layers, merged like every other benchmark's probes (`babelflow validate`, benches)."""
    from validators.findings import merge
    from validators.run import PROBES

    v = AgentDojoValidation(source, variant_dir, ir)
    findings = []
    for name, check in (("integrity", check_integrity), ("consistency", check_consistency), ("fidelity", check_fidelity)):
        progress(f"{name} checks")
        findings += check(v)
    progress("behaviour checks")
    findings += check_behavior(v, source_pairs)
    return merge(ir.benchmark, language, [findings], [PROBES], [], ["model-backed review not configured: only the deterministic probes ran"])
