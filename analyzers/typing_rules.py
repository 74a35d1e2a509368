"""Translation-type assignment: reviewed profile first, then runtime evidence, then shape heuristics.

Every decision records the rule that made it (`typing_rule`), so a reviewer can see why a field
is preserved and fix the profile rather than the code. Decisions are pure functions of the
field, the evidence index and the profile: the same inputs always give the same IR.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from analyzers.heuristics import WORD, is_prose, specific_reason
from analyzers.located_evidence import Observed
from analyzers.profile import LoadedProfile
from analyzers.runtime_evidence import RuntimeEvidenceIndex
from babelflow.ir import LinkKind, PreserveReason, TranslationType

# Shape reasons are more specific than what a broad rule declares; evidence beats both.
_SLOT = re.compile(r"\{[^{}]*\}")
_REFINABLE = {PreserveReason.LINKED_ENTITY, PreserveReason.EVALUATOR_TOKEN, PreserveReason.MARKUP}
_EXECUTABLE_KINDS = {LinkKind.COMPARED_IN_CODE, LinkKind.SCHEMA_LITERAL}


@dataclass(frozen=True)
class TypeDecision:
    translation_type: TranslationType
    preserve_reason: PreserveReason | None
    canonical_group: str | None
    typing_rule: str


@lru_cache(maxsize=200_000)
def _shape(value: str) -> PreserveReason | None:
    return specific_reason(value)


class FieldTyper:
    def __init__(self, profile: LoadedProfile, evidence: RuntimeEvidenceIndex, traced: bool = False):
        self.profile = profile
        self.evidence = evidence
        # with an instrumented replay, "flows into a tool call / the evaluator" is known per
        # location; the value-keyed index would mark every equal string everywhere
        self.traced = traced
        self._rule_cache: dict[tuple, list] = {}
        self.canonical_values: dict[str, str] = {}

    # ---- helpers -------------------------------------------------------------------------
    def _evidence_reason(self, value: str, literals: frozenset[str]) -> PreserveReason | None:
        if value in literals or self.evidence.kinds_of(value) & _EXECUTABLE_KINDS:
            return PreserveReason.ENUM_CODE
        return None

    def _refined(self, value: str, reason: PreserveReason, literals: frozenset[str]) -> PreserveReason:
        shape = _shape(value)
        evidence = self._evidence_reason(value, literals)
        if evidence is not None and shape in (None, PreserveReason.IDENTIFIER, PreserveReason.MARKUP):
            return evidence  # a validated/compared code such as basic_economy or 4g_5g_preferred
        return shape or reason

    def _data_rules(self, artifact: str, general: tuple, is_key: bool) -> list:
        """Entity classes and rules whose selectors match, in priority order (cached per general path)."""
        key = (artifact, general, is_key)
        if key not in self._rule_cache:
            found: list = [e for e in self.profile.entities if e.matches(artifact, general)][:1]
            found += [r for r in self.profile.rules if r.matches_data(artifact, general)]
            self._rule_cache[key] = found
        return self._rule_cache[key]

    @staticmethod
    def _where_holds(rule, parent: dict | None) -> bool:
        conditions = getattr(getattr(rule, "rule", None), "where", None)
        if not conditions:
            return True
        return isinstance(parent, dict) and all(str(parent.get(k)) == v for k, v in conditions.items())

    # ---- data fields (JSON/TOML leaves and map keys) ---------------------------------------
    def type_data(
        self,
        element_id: str,
        artifact: str,
        general: tuple,
        value: str,
        is_key: bool,
        literals: frozenset[str],
        parent: Callable[[], Any] = lambda: None,
        observed: Observed | None = None,
    ) -> TypeDecision:
        override = self.profile.overrides.get(element_id)
        if override is not None:
            return TypeDecision(override.type, override.reason, override.canonical_group, f"profile override: {override.note or element_id}")
        if not value.strip():
            return TypeDecision(TranslationType.PRESERVE, PreserveReason.EMPTY, None, "heuristic: empty")
        if is_key and observed is not None and LinkKind.ARGUMENT_NAME in observed.kinds:
            return TypeDecision(TranslationType.PRESERVE, PreserveReason.ARGUMENT_NAME, None, f"evidence ({observed.scope.value}): {observed.detail}")
        if is_key and len(general) >= 2 and general[-2] == "arguments":
            return TypeDecision(TranslationType.PRESERVE, PreserveReason.ARGUMENT_NAME, None, "path rule: key of tool-call arguments")
        candidates = self._data_rules(artifact, general, is_key)
        rule = None
        for candidate in candidates:
            if self._where_holds(candidate, parent() if getattr(getattr(candidate, "rule", None), "where", None) else None):
                rule = candidate
                break
        if rule is not None and hasattr(rule, "entity"):
            return self._entity_decision(rule, value, literals)
        if rule is not None:
            return self._rule_decision(rule.rule, rule.rule.select or "", value, literals)
        return self._fallback(value, literals, observed)

    def _entity_decision(self, compiled, value: str, literals: frozenset[str]) -> TypeDecision:
        name, policy = compiled.name, compiled.entity.policy
        if policy == "translate" and _shape(value) is None and self._evidence_reason(value, literals) is None:
            self.canonical_values[value] = name
            return TypeDecision(TranslationType.TRANSLATE_CANONICAL, None, name, f"entity {name}: translate consistently")
        reason = self._refined(value, PreserveReason.LINKED_ENTITY, literals)
        return TypeDecision(TranslationType.PRESERVE, reason, None, f"entity {name}: {policy}")

    def _rule_decision(self, rule, label: str, value: str, literals: frozenset[str]) -> TypeDecision:
        where = f"profile rule {rule.artifact} {label}".rstrip()
        if rule.type is TranslationType.PRESERVE:
            reason = rule.reason
            if rule.refine and reason in _REFINABLE:
                reason = self._refined(value, reason, literals)
            elif rule.refine:
                reason = _shape(value) or reason
            return TypeDecision(TranslationType.PRESERVE, reason, None, where)
        if rule.type is not TranslationType.PRESERVE and not WORD.search(value):
            return TypeDecision(TranslationType.PRESERVE, PreserveReason.EMPTY, None, "heuristic: no words to translate")
        return TypeDecision(rule.type, None, None, where)

    def _fallback(self, value: str, literals: frozenset[str], observed: Observed | None = None) -> TypeDecision:
        if observed is not None and observed.executed:
            return TypeDecision(TranslationType.PRESERVE, _shape(value) or PreserveReason.EVALUATOR_TOKEN, None, f"evidence ({observed.scope.value}): {observed.detail}")
        evidence = self._evidence_reason(value, literals)
        if evidence is not None:
            return TypeDecision(TranslationType.PRESERVE, _shape(value) or evidence, None, "evidence: compared in code / schema literal")
        if observed is not None and LinkKind.TOOL_OUTPUT in observed.kinds:
            # shown to the agent and possibly repeated back: kept unless a reviewed entity class translates it
            return TypeDecision(TranslationType.PRESERVE, _shape(value) or PreserveReason.LINKED_ENTITY, None, f"evidence ({observed.scope.value}): {observed.detail}")
        if not self.traced and self.evidence.kinds_of(value) & {LinkKind.TOOL_ARGUMENT, LinkKind.COMPARED_BY_EVALUATOR}:
            return TypeDecision(TranslationType.PRESERVE, _shape(value) or PreserveReason.EVALUATOR_TOKEN, None, "evidence: flows into tool calls / evaluator")
        shape = _shape(value)
        if shape is not None:
            return TypeDecision(TranslationType.PRESERVE, shape, None, "heuristic: shape")
        if is_prose(value):
            return TypeDecision(TranslationType.TRANSLATE_FREE, None, None, "heuristic: prose")
        return TypeDecision(TranslationType.PRESERVE, PreserveReason.LINKED_ENTITY, None, "default: short text without evidence is kept")

    def link_canonical(self, decision: TypeDecision, value: str) -> TypeDecision:
        """A kept-by-rule value equal to a canonical entity follows the entity (gold args, communicate_info)."""
        group = self.canonical_values.get(value)
        if group and decision.translation_type is TranslationType.PRESERVE and decision.preserve_reason in _REFINABLE:
            return TypeDecision(TranslationType.TRANSLATE_CANONICAL, None, group, f"linked to canonical entity {group}")
        return decision

    # ---- code texts ------------------------------------------------------------------------
    def type_code(self, element_id: str, artifact: str, qualname: str, name: str | None, role: str, value: str, default_include: bool) -> TypeDecision | None:
        """None means: not read by any model or code path that matters; not an IR element."""
        override = self.profile.overrides.get(element_id)
        if override is not None:
            return TypeDecision(override.type, override.reason, override.canonical_group, f"profile override: {override.note or element_id}")
        rule = next((r for r in self.profile.rules if r.matches_code(artifact, qualname, name, role)), None)
        if rule is not None:
            label = ",".join(rule.rule.code_name or rule.rule.code_role)
            return self._rule_decision(rule.rule, label, value, frozenset())
        if not default_include:
            return None
        return self._fallback_code(value)

    def _fallback_code(self, value: str) -> TypeDecision:
        if self.evidence.kinds_of(value) & _EXECUTABLE_KINDS:
            return TypeDecision(TranslationType.PRESERVE, PreserveReason.ENUM_CODE, None, "evidence: compared in code")
        literal = _SLOT.sub("", value)  # f"task_{n + 1}" is an id template: judge the literal text only
        if literal.strip() and _shape(literal.strip()) is PreserveReason.IDENTIFIER:
            return TypeDecision(TranslationType.PRESERVE, PreserveReason.IDENTIFIER, None, "heuristic: identifier template")
        value = literal if literal.strip() else value
        shape = _shape(value)
        if shape is not None:
            return TypeDecision(TranslationType.PRESERVE, shape, None, "heuristic: shape")
        if is_prose(value) or len(value.split()) >= 2:
            return TypeDecision(TranslationType.TRANSLATE_FREE, None, None, "heuristic: text in a tool result")
        return TypeDecision(TranslationType.PRESERVE, PreserveReason.ENUM_CODE, None, "default: single-word code literal is kept")
