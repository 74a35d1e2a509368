"""The declared finding kinds: layer, default severity and what a check of that kind needs.

Translate Toolkit's pofilter declares its checks the same way. A kind that is not declared here
cannot become a finding (``make_finding`` refuses it), so a typo cannot open a new, ungrouped
category in the report. When integrity finds that an artifact misses a precondition (missing,
unparseable, structure no longer paired by position, variant rejected by the benchmark's own
models), the layers whose kinds need it skip that artifact: `layers_needing` says which.
"""

from __future__ import annotations

from enum import Enum
from typing import Literal

from babelflow.ir import Record

# Where a confirmed finding goes: retranslate the unit, or retype the field (a profile override).
Route = Literal["translation", "analysis"]


class Layer(str, Enum):
    INTEGRITY = "integrity"
    CONSISTENCY = "consistency"
    FIDELITY = "fidelity"
    BEHAVIOR = "behavior"


class Severity(str, Enum):
    CRITICAL = "critical"  # the variant cannot run or scores differently
    MAJOR = "major"  # a model would read something wrong or be unable to act
    MINOR = "minor"  # quality; does not change behaviour
    NOTE = "note"  # a policy the variant follows, or an optional file the harness supplies: nothing to fix


class Precondition(str, Enum):
    PARSED = "parsed"  # the variant's file exists and parses
    PAIRED = "paired"  # source and variant fields pair up by position (same skeleton)
    LOADS = "loads"  # the variant loads into the benchmark's own models and runs


class FindingKind(Record):
    name: str
    layer: Layer
    severity: Severity  # the default; a probe may lower it for a harmless case (and says why)
    needs: frozenset[Precondition] = frozenset()
    summary: str
    route: Route = "translation"  # what the review offers first for a confirmed finding of this kind


# behaviour needs the files parsed and the variant loaded, not fields paired by position
_P, _PP, _PL = (
    frozenset({Precondition.PARSED}),
    frozenset({Precondition.PARSED, Precondition.PAIRED}),
    frozenset({Precondition.PARSED, Precondition.LOADS}),
)
_CRIT, _MAJ, _MIN, _NOTE = Severity.CRITICAL, Severity.MAJOR, Severity.MINOR, Severity.NOTE

REVIEWER_JUDGEMENT = "reviewer_judgement"
KINDS: dict[tuple[Layer, str], FindingKind] = {}  # one name may be declared on two layers (placeholder_left)


def register_kind(
    name: str,
    layer: Layer,
    severity: Severity,
    needs: frozenset[Precondition],
    summary: str,
    route: Route = "translation",
) -> FindingKind:
    """Declare a kind (once; benchmark families and agents add theirs at import time)."""
    kind = FindingKind(name=name, layer=layer, severity=severity, needs=needs, summary=summary, route=route)
    if KINDS.get((layer, name), kind) != kind:
        raise ValueError(f"finding kind {name!r} ({layer.value}) is declared twice with different meanings")
    KINDS[(layer, name)] = kind
    return kind


for _name, _layer, _severity, _needs, _summary in (
    # integrity: can the variant be read at all, and is it shaped like the source?
    ("artifact_missing", Layer.INTEGRITY, _CRIT, frozenset(), "a file of the benchmark is not in the variant"),
    ("artifact_unparseable", Layer.INTEGRITY, _CRIT, frozenset(), "a file of the variant does not parse"),
    ("placeholder_left", Layer.INTEGRITY, _CRIT, _P, "a ⟦N⟧ translation placeholder reached the output"),
    ("markdown_structure_changed", Layer.INTEGRITY, _MAJ, _P, "Markdown blocks (headings, lists, code) differ"),
    ("key_added", Layer.INTEGRITY, _CRIT, _P, "a key the source does not have"),
    ("key_removed", Layer.INTEGRITY, _CRIT, _P, "a key of the source is gone"),
    ("list_length_changed", Layer.INTEGRITY, _CRIT, _P, "a list has another length"),
    ("type_changed", Layer.INTEGRITY, _CRIT, _P, "a value has another JSON type"),
    ("model_rejects_variant", Layer.INTEGRITY, _CRIT, _P, "the benchmark's own models reject the variant"),
    ("tool_schema_changed", Layer.INTEGRITY, _CRIT, _PL, "a tool's name or parameters differ"),
    # consistency: equal things stay equal, across data and code
    ("preserved_value_changed", Layer.CONSISTENCY, _CRIT, _PP, "a Preserve value was translated"),
    ("canonical_inconsistent", Layer.CONSISTENCY, _CRIT, _PP, "a canonical term is rendered two ways"),
    (
        "canonical_rendering_inferred",
        Layer.CONSISTENCY,
        _NOTE,
        _PP,
        "the variant renders an entity class its own way, consistently",
    ),
    ("renderings_collide", Layer.CONSISTENCY, _CRIT, _PP, "two source values share one rendering"),
    (
        "canonical_term_not_used",
        Layer.CONSISTENCY,
        _CRIT,
        _PP,
        "prose names a canonical value but not in its canonical rendering",
    ),
    ("reference_lost", Layer.CONSISTENCY, _MAJ, _PP, "prose no longer names a value it referred to"),
    (
        "entity_rendering_unknown",
        Layer.CONSISTENCY,
        _MAJ,
        _PP,
        "task prose names a DB entity with a rendering neither the DB nor the canonical map holds",
    ),
    (
        "preserved_code_text_translated",
        Layer.CONSISTENCY,
        _CRIT,
        frozenset(),
        "a code literal the benchmark compares was translated",
    ),
    # fidelity: does the translation say the same thing, in the right language?
    ("untranslated", Layer.FIDELITY, _MAJ, _PP, "text copied through untranslated"),
    ("number_changed", Layer.FIDELITY, _CRIT, _PP, "numbers differ between source and translation"),
    ("token_duplicated", Layer.FIDELITY, _MAJ, _PP, "a protected token appears more often than in the source"),
    ("tokens_swapped", Layer.FIDELITY, _CRIT, _PP, "two protected values traded places (the quoted one is another)"),
    ("wrong_language", Layer.FIDELITY, _MAJ, _PP, "not written in the target language or script"),
    ("answered_not_translated", Layer.FIDELITY, _CRIT, _PP, "the model answered instead of translating"),
    ("added_commentary", Layer.FIDELITY, _MAJ, _PP, "the translation adds commentary"),
    ("length_ratio_outlier", Layer.FIDELITY, _MAJ, _PP, "length far outside the language's expected ratio"),
    ("truncated", Layer.FIDELITY, _MAJ, _PP, "the segment was cut"),
    ("source_words_left", Layer.FIDELITY, _MAJ, _PP, "source-language words left in the translation"),
    ("status_rendering_in_prose", Layer.FIDELITY, _MAJ, _PP, "a status value's rendering used as an ordinary word"),
    ("status_rendering_doubled", Layer.FIDELITY, _MAJ, _PP, "a status value rendered twice side by side"),
    ("spacing_artifact", Layer.FIDELITY, _MIN, _PP, "spaces inside a script that writes none"),
    (
        "meaning_changed",
        Layer.FIDELITY,
        _MAJ,
        frozenset(),
        "the translation asks or states something else (a reviewer's reading)",
    ),
    ("translation_failed", Layer.FIDELITY, _CRIT, frozenset(), "the translator gave no usable translation"),
    ("placeholder_left", Layer.FIDELITY, _CRIT, _PP, "an unrestored placeholder is in the translation"),
    # behaviour: side-by-side execution in the benchmark's own harness
    ("harness_crash", Layer.BEHAVIOR, _CRIT, _PL, "replaying the variant raised"),
    (
        "tool_output_escaped",
        Layer.BEHAVIOR,
        _MAJ,
        _PL,
        "target-language text in tool results reaches the agent as \\u escapes, where the source reads as text",
    ),
    ("task_missing", Layer.BEHAVIOR, _CRIT, _PL, "a task is missing from the variant"),
    ("golden_reward_changed", Layer.BEHAVIOR, _CRIT, _PL, "the golden trajectory scores differently"),
    ("do_nothing_reward_changed", Layer.BEHAVIOR, _CRIT, _PL, "the do-nothing trajectory scores differently"),
    ("tool_error_sequence_changed", Layer.BEHAVIOR, _CRIT, _PL, "tool calls fail differently"),
    ("tool_result_changed", Layer.BEHAVIOR, _MAJ, _PL, "a tool call returns something else"),
    ("final_state_changed", Layer.BEHAVIOR, _CRIT, _PL, "the final DB state differs"),
    ("initial_state_changed", Layer.BEHAVIOR, _CRIT, _PL, "the initial DB state differs"),
    # families that declare them (source_benchmarks/family.py): data read through str.format()
    # (family.formats_data), ground-truth scores beyond the reward (family.behaviour_scores())
    (
        "format_slots_changed",
        Layer.INTEGRITY,
        _CRIT,
        _P,
        "the `{…}` format slots or braces of a field differ (str.format() of the file)",
    ),
    ("injectability_changed", Layer.BEHAVIOR, _CRIT, _PL, "a task's ground truth sees other injection vectors"),
):
    register_kind(_name, _layer, _severity, _needs, _summary)
# a typing problem, not a wording one: confirming it retypes the field (declared here, with the core
# kinds, so the review knows its route without importing the probe that raises it)
PROFILE_CONTRADICTS_EVIDENCE = "profile_contradicts_evidence"
register_kind(
    PROFILE_CONTRADICTS_EVIDENCE,
    Layer.CONSISTENCY,
    _MAJ,
    frozenset(),
    "the reviewed profile translates a field the run shows is executed (analysis route)",
    route="analysis",
)
for _layer in Layer:  # what a validator agent raises in its own words, on any layer
    register_kind(REVIEWER_JUDGEMENT, _layer, _MAJ, frozenset(), "a validator agent's own finding")


def finding_kind(layer: Layer, name: str) -> FindingKind:
    try:
        return KINDS[(layer, name)]
    except KeyError:
        raise ValueError(
            f"undeclared {layer.value} finding kind {name!r}: "
            "declare it with register_kind (validators/finding_kinds.py)"
        ) from None


def is_declared(layer: Layer, name: str) -> bool:
    return (layer, name) in KINDS


def layers_needing(missing: Precondition) -> set[Layer]:
    """The layers with at least one kind that needs `missing` (they skip the artifact lacking it)."""
    return {kind.layer for kind in KINDS.values() if missing in kind.needs} - {Layer.INTEGRITY}


def suggested_route(layer: Layer, kind: str) -> Route:
    """The route the review pre-selects for a finding of this kind (the reviewer may change it)."""
    declared = KINDS.get((layer, kind))
    return declared.route if declared else "translation"
