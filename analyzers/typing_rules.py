"""Translation-type assignment: reviewed profile first, then runtime evidence, then shape heuristics.

Every decision records the rule that made it (`typing_rule`), so a reviewer can see why a field
is preserved and fix the profile rather than the code. Decisions are pure functions of the
field, the evidence index and the profile: the same inputs always give the same IR.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from analyzers.code_inventory import RuntimeLiteral
from analyzers.heuristics import WORD, is_prose, specific_reason, without_kept
from analyzers.located_evidence import Observed
from analyzers.profile import ElementOverride, LoadedProfile
from analyzers.runtime_evidence import RuntimeEvidenceIndex
from babelflow.ir import LinkKind, PreserveReason, TranslationType

# Shape reasons are more specific than what a broad rule declares; evidence beats both.
_SLOT = re.compile(r"\{[^{}]*\}")
_REFINABLE = {PreserveReason.LINKED_ENTITY, PreserveReason.EVALUATOR_TOKEN, PreserveReason.MARKUP}
TEXT_KEY_GROUP = "text_key"  # the canonical group of keys that are text (ArtifactSpec.keys_are_text)
_EXECUTABLE_KINDS = {LinkKind.COMPARED_IN_CODE, LinkKind.SCHEMA_LITERAL}


@dataclass(frozen=True)
class TypeDecision:
    translation_type: TranslationType
    preserve_reason: PreserveReason | None
    canonical_group: str | None
    typing_rule: str


@dataclass
class EntityTally:
    """What typing saw of one entity class: its distinct values by decision, and their flows."""

    canonical: set[str] = field(default_factory=set)
    kept: dict[str, set[str]] = field(default_factory=dict)  # why -> values
    literal_evidence: dict[str, str] = field(default_factory=dict)  # value compared with a code literal -> where
    flows: dict[str, set[str]] = field(default_factory=dict)  # link kind -> values observed so
    samples: list[str] = field(default_factory=list)


@lru_cache(maxsize=200_000)
def _shape(value: str) -> PreserveReason | None:
    return specific_reason(value)


def override_decision(override: ElementOverride) -> TypeDecision:
    """A reviewer's decision on one element: it wins over evidence, rules and shape."""
    rule = f"profile override: {override.note or override.element}"
    return TypeDecision(override.type, override.reason, override.canonical_group, rule)


class FieldTyper:
    def __init__(self, profile: LoadedProfile, evidence: RuntimeEvidenceIndex, traced: bool = False):
        self.profile = profile
        self.evidence = evidence
        # with an instrumented replay, "flows into a tool call / the evaluator" is known per
        # location; the value-keyed index would mark every equal string everywhere
        self.traced = traced
        self._rule_cache: dict[tuple, list] = {}
        self.canonical_values: dict[str, str] = {}
        self.keys_read: frozenset[str] = frozenset()  # keys code read somewhere in the run (LocatedEvidence)
        self.entity_tallies: dict[str, EntityTally] = {}

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
        text_key: bool = False,
    ) -> TypeDecision:
        override = self.profile.overrides.get(element_id)
        if override is not None:
            return override_decision(override)
        if not value.strip():
            return TypeDecision(TranslationType.PRESERVE, PreserveReason.EMPTY, None, "heuristic: empty")
        if text_key:
            return self._text_key(value, observed)
        if is_key and observed is not None and LinkKind.ARGUMENT_NAME in observed.kinds:
            return TypeDecision(
                TranslationType.PRESERVE,
                PreserveReason.ARGUMENT_NAME,
                None,
                f"evidence ({observed.scope.value}): {observed.detail}",
            )
        if is_key and len(general) >= 2 and general[-2] == "arguments":
            return TypeDecision(
                TranslationType.PRESERVE, PreserveReason.ARGUMENT_NAME, None, "path rule: key of tool-call arguments"
            )
        candidates = self._data_rules(artifact, general, is_key)
        rule = None
        for candidate in candidates:
            if self._where_holds(
                candidate, parent() if getattr(getattr(candidate, "rule", None), "where", None) else None
            ):
                rule = candidate
                break
        if rule is not None and hasattr(rule, "entity"):
            return self._entity_decision(rule, value, is_key, literals, observed)
        if rule is not None:
            return self._rule_decision(rule.rule, rule.rule.select or "", value, literals)
        return self._fallback(value, literals, observed)

    def _text_key(self, value: str, observed: Observed | None) -> TypeDecision:
        """A key of an artifact whose keys are text (ArtifactSpec.keys_are_text): Preserve where the run saw code
        read it; renamed once for every task where a model is shown it (a tool result, a simulator's prompt);
        kept where neither happened. A value rule's selector also matches its key: only evidence and shape decide."""
        if observed is not None and observed.executed:
            return TypeDecision(
                TranslationType.PRESERVE,
                PreserveReason.SCHEMA_KEY,
                None,
                f"evidence ({observed.scope.value}): key read by code: {observed.detail}",
            )
        if value in self.keys_read:
            return TypeDecision(
                TranslationType.PRESERVE, PreserveReason.SCHEMA_KEY, None, "evidence: the same key is read by code"
            )
        shape = _shape(value)
        if shape is not None:
            return TypeDecision(TranslationType.PRESERVE, shape, None, "heuristic: key shape")
        if observed is not None and LinkKind.TOOL_OUTPUT in observed.kinds:
            return TypeDecision(
                TranslationType.TRANSLATE_CANONICAL,
                None,
                TEXT_KEY_GROUP,
                f"evidence ({observed.scope.value}): key only shown to a model ({observed.detail}): one rendering",
            )
        return TypeDecision(
            TranslationType.PRESERVE, PreserveReason.SCHEMA_KEY, None, "key neither read by code nor shown: kept"
        )

    def _entity_decision(
        self, compiled, value: str, is_key: bool, literals: frozenset[str], observed: Observed | None
    ) -> TypeDecision:
        """A value of an entity class: renamed consistently everywhere unless the class keeps it, its
        shape is an id/number/code, or code compares it with a literal (statuses: the code would no
        longer recognise it). A key (an option's name) is structure, never renamed."""
        name, policy = compiled.name, compiled.entity.policy
        tally = self.entity_tallies.setdefault(name, EntityTally())
        if is_key:
            return TypeDecision(TranslationType.PRESERVE, PreserveReason.SCHEMA_KEY, None, f"entity {name}: key")
        if observed is not None:
            for kind in observed.kinds:
                tally.flows.setdefault(kind.value, set()).add(value)
            if len(tally.samples) < 3 and observed.detail:
                tally.samples.append(f"{value!r}: {observed.detail}")
        shape, evidence = _shape(value), self._evidence_reason(value, literals)
        if policy == "keep":
            tally.kept.setdefault("profile: keep", set()).add(value)
            reason = self._refined(value, PreserveReason.LINKED_ENTITY, literals)
            return TypeDecision(TranslationType.PRESERVE, reason, None, f"entity {name}: keep")
        if shape is not None:
            tally.kept.setdefault(f"shape: {shape.value}", set()).add(value)
            return TypeDecision(TranslationType.PRESERVE, shape, None, f"entity {name}: {shape.value} kept")
        if evidence is not None:
            why = self._literal_evidence(value, literals)
            tally.kept.setdefault("code literal", set()).add(value)
            tally.literal_evidence.setdefault(value, why)
            return TypeDecision(TranslationType.PRESERVE, evidence, None, f"entity {name}: {why}")
        self.canonical_values[value] = name
        tally.canonical.add(value)
        return TypeDecision(
            TranslationType.TRANSLATE_CANONICAL, None, name, f"entity {name}: renamed consistently ({policy})"
        )

    def _literal_evidence(self, value: str, literals: frozenset[str]) -> str:
        if value in literals:
            return "a literal of the field's model type"
        trace = self.evidence.values.get(value)
        samples = trace.samples if trace else []
        detail = next((s.detail for s in samples if s.source in ("code_scan", "traced_replay")), "")
        return f"compared with a code literal ({detail})" if detail else "compared with a code literal"

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
            return TypeDecision(
                TranslationType.PRESERVE, PreserveReason.EMPTY, None, "heuristic: no words to translate"
            )
        return TypeDecision(rule.type, None, None, where)

    def _fallback(self, value: str, literals: frozenset[str], observed: Observed | None = None) -> TypeDecision:
        if observed is not None and observed.executed:
            return TypeDecision(
                TranslationType.PRESERVE,
                _shape(value) or PreserveReason.EVALUATOR_TOKEN,
                None,
                f"evidence ({observed.scope.value}): {observed.detail}",
            )
        evidence = self._evidence_reason(value, literals)
        if evidence is not None:
            return TypeDecision(
                TranslationType.PRESERVE, _shape(value) or evidence, None, "evidence: compared in code / schema literal"
            )
        if observed is not None and LinkKind.TOOL_OUTPUT in observed.kinds:
            # shown to the agent and possibly repeated back: kept unless a reviewed entity class translates it
            return TypeDecision(
                TranslationType.PRESERVE,
                _shape(value) or PreserveReason.LINKED_ENTITY,
                None,
                f"evidence ({observed.scope.value}): {observed.detail}",
            )
        if not self.traced and self.evidence.kinds_of(value) & {LinkKind.TOOL_ARGUMENT, LinkKind.COMPARED_BY_EVALUATOR}:
            return TypeDecision(
                TranslationType.PRESERVE,
                _shape(value) or PreserveReason.EVALUATOR_TOKEN,
                None,
                "evidence: flows into tool calls / evaluator",
            )
        shape = _shape(value)
        if shape is not None:
            return TypeDecision(TranslationType.PRESERVE, shape, None, "heuristic: shape")
        if is_prose(value):
            return TypeDecision(TranslationType.TRANSLATE_FREE, None, None, "heuristic: prose")
        return TypeDecision(
            TranslationType.PRESERVE, PreserveReason.LINKED_ENTITY, None, "default: short text without evidence is kept"
        )

    def link_canonical(self, decision: TypeDecision, value: str) -> TypeDecision:
        """A kept-by-rule value equal to a canonical entity follows the entity (gold args, communicate_info)."""
        group = self.canonical_values.get(value)
        if group and (
            decision.translation_type is TranslationType.TRANSLATE_FREE
            or (decision.translation_type is TranslationType.PRESERVE and decision.preserve_reason in _REFINABLE)
        ):
            # a free text that is a canonical value whole (an order line's attributes naming a product) is that
            # value: rendered as the map renders it, not translated a second way
            return TypeDecision(TranslationType.TRANSLATE_CANONICAL, None, group, f"linked to canonical entity {group}")
        return decision

    # ---- code texts ------------------------------------------------------------------------
    def type_code(
        self,
        element_id: str,
        artifact: str,
        qualname: str,
        name: str | None,
        role: str,
        value: str,
        default_include: bool,
    ) -> TypeDecision | None:
        """None means: not read by any model or code path that matters; not an IR element."""
        override = self.profile.overrides.get(element_id)
        if override is not None:
            return override_decision(override)
        rule = next((r for r in self.profile.rules if r.matches_code(artifact, qualname, name, role)), None)
        if rule is not None:
            label = ",".join(rule.rule.code_name or rule.rule.code_role)
            decision = self._rule_decision(rule.rule, label, value, frozenset())
            if decision.translation_type is not TranslationType.PRESERVE and _is_id_template(value):
                # a role-wide rule ("tool outputs are prose") meets an id template without a space
                # (τ³ banking: txn_{_deterministic_id(f'…:{account_id}')}): ids are never translated
                return TypeDecision(
                    TranslationType.PRESERVE, PreserveReason.IDENTIFIER, None, "heuristic: identifier template"
                )
            return decision
        if not default_include:
            return None
        return self._fallback_code(value)

    def _fallback_code(self, value: str) -> TypeDecision:
        if self.evidence.kinds_of(value) & _EXECUTABLE_KINDS:
            return TypeDecision(TranslationType.PRESERVE, PreserveReason.ENUM_CODE, None, "evidence: compared in code")
        if _is_id_template(value):  # txn_{_deterministic_id(f'…:{account_id}')}: a nested call is no slot
            return TypeDecision(
                TranslationType.PRESERVE, PreserveReason.IDENTIFIER, None, "heuristic: identifier template"
            )
        literal = _SLOT.sub("", value)  # f"task_{n + 1}" is an id template: judge the literal text only
        if literal.strip() and _shape(literal.strip()) is PreserveReason.IDENTIFIER:
            return TypeDecision(
                TranslationType.PRESERVE, PreserveReason.IDENTIFIER, None, "heuristic: identifier template"
            )
        value = literal if literal.strip() else value
        shape = _shape(value)
        if shape is not None:
            return TypeDecision(TranslationType.PRESERVE, shape, None, "heuristic: shape")
        if is_prose(value) or len(value.split()) >= 2:
            return TypeDecision(TranslationType.TRANSLATE_FREE, None, None, "heuristic: text in a tool result")
        return TypeDecision(
            TranslationType.PRESERVE, PreserveReason.ENUM_CODE, None, "default: single-word code literal is kept"
        )


def _is_id_template(value: str) -> bool:
    """A code text with a format slot or an underscore and no whitespace at all: an id or key template."""
    text = value.strip()
    return bool(text) and not any(c.isspace() for c in text) and ("{" in text or "_" in text) and "}" in text


# ---- typing by shape, for a perturbation trial ----------------------------------------------------
# A family whose code and data are typed together by a trial (family.perturbation) starts
# from these decisions; the trial then keeps what it finds linking code and data. Canonical decisions
# carry no group here: the trial puts every canonical value in the family's one group.
_YAML_ESCAPE = re.compile(r"\\[A-Za-z\\\"]")
_NAME_CHARS = re.compile(r"[\w.-]+")
_EXTENSION = re.compile(r"[A-Za-z0-9]{2,5}")
_CODE_NAME = re.compile(r"[a-z_][a-z0-9_]*|[a-z]+(?: [a-z]+)?")


def _decision(translation_type: TranslationType, reason: PreserveReason | None, rule: str) -> TypeDecision:
    return TypeDecision(translation_type, reason, None, rule)


def _is_file_name(text: str) -> bool:
    r"""Whether `text` is name.ext (2 to 5 letters or digits after the last dot). The one pattern
    r"[\w.-]+\.[A-Za-z0-9]{2,5}" said it, but searched from every position it backtracks quadratically."""
    name, dot, extension = text.rpartition(".")
    return bool(dot and _NAME_CHARS.fullmatch(name) and _EXTENSION.fullmatch(extension))


def shape_decision(text: str) -> TypeDecision:
    """Preserve by shape; a short value (five words or fewer, no sentence) is one rendering everywhere; else prose."""
    reason = _shape(text)
    if reason is not None:
        return _decision(TranslationType.PRESERVE, reason, f"shape: {reason.value}")
    if not WORD.search(without_kept(text)):
        return _decision(TranslationType.PRESERVE, PreserveReason.EMPTY, "shape: no words outside ids, slots and paths")
    if _is_file_name(text.strip()):
        return _decision(TranslationType.PRESERVE, PreserveReason.IDENTIFIER, "shape: file name")
    if len(WORD.findall(text)) <= 5 and "\n" not in text.strip() and not text.rstrip().endswith((".", "!", "?")):
        return _decision(TranslationType.TRANSLATE_CANONICAL, None, "short value: one rendering everywhere")
    return _decision(TranslationType.TRANSLATE_FREE, None, "prose")


def data_leaf_decision(text: str, reparsed: bool, validated: bool, annotation: Any, messages: bool) -> TypeDecision:
    """A data leaf: its shape, unless the file is parsed again at run time and the text holds an escape,
    its model does not type it as free text (`validated`: the file loads into a model), or it is a
    message (never one canonical value)."""
    decision = shape_decision(text)
    if reparsed and _YAML_ESCAPE.search(text):
        # literal "\n", "\t": the benchmark re-parses the formatted file as YAML, where they are escapes
        rule = "holds YAML escape sequences (re-parsed after str.format)"
        return _decision(TranslationType.PRESERVE, PreserveReason.MARKUP, rule)
    if validated:
        if annotation is not str and decision.translation_type is not TranslationType.PRESERVE:
            name = getattr(annotation, "__name__", annotation)
            return _decision(TranslationType.PRESERVE, PreserveReason.ENUM_CODE, f"model type {name} is not free text")
    elif messages and decision.translation_type is TranslationType.TRANSLATE_CANONICAL:
        return _decision(TranslationType.TRANSLATE_FREE, None, "injection vector / system message text")
    return decision


def runtime_literal_decision(literal: RuntimeLiteral) -> TypeDecision:
    """A literal of task code: a text attribute is prose; a check's literal is a value (kept when the
    checks iterate or key on it, or it is a lowercase token), one rendering in code and data."""
    decision = shape_decision(literal.value)
    shape_kept = decision.preserve_reason if decision.translation_type is TranslationType.PRESERVE else None
    if literal.where == "attribute":
        if shape_kept is not None:  # GROUND_TRUTH_OUTPUT = _FILENAME
            return _decision(TranslationType.PRESERVE, shape_kept, "task attribute: " + decision.typing_rule)
        return _decision(TranslationType.TRANSLATE_FREE, None, "task text attribute (PROMPT/GOAL/...)")
    if literal.in_container:
        rule = "code: item of a constant list (checks iterate it)"
        return _decision(TranslationType.PRESERVE, PreserveReason.EVALUATOR_TOKEN, rule)
    if literal.is_dict_key:
        return _decision(TranslationType.PRESERVE, PreserveReason.ARGUMENT_NAME, "code: dict key")
    if shape_kept is not None:
        return _decision(TranslationType.PRESERVE, shape_kept, "code: " + decision.typing_rule)
    if _CODE_NAME.fullmatch(literal.value.strip()):
        # lowercase words in checks are usually matched against data ("pizza" in subject.lower()):
        # kept unless the trial shows they can move with the data
        return _decision(TranslationType.PRESERVE, PreserveReason.EVALUATOR_TOKEN, "code: lowercase check token")
    if decision.translation_type is TranslationType.TRANSLATE_FREE and literal.where == "function_literal":
        rule = "code: text literal (one rendering in code and data)"
        return _decision(TranslationType.TRANSLATE_CANONICAL, None, rule)
    return _decision(TranslationType.TRANSLATE_CANONICAL, None, "code: " + decision.typing_rule)


def tool_message_decision(text: str) -> TypeDecision:
    """A string a tool returns or raises: a message when it has three words or more, else a value."""
    decision = shape_decision(text)
    if decision.translation_type is TranslationType.PRESERVE:
        return decision
    if len(WORD.findall(text)) < 3:
        return _decision(TranslationType.PRESERVE, PreserveReason.EVALUATOR_TOKEN, "tool code: a value, not a message")
    return _decision(TranslationType.TRANSLATE_FREE, None, "tool message (returned or raised)")
