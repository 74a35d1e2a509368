"""What a finding kind is: its layer, default severity, preconditions and route, and the registry of them.

A kind is declared once, beside the check that raises it (`validators/checks.py`'s `@check`), or with
`declare_kind` where no layer check raises it (a validator agent's judgement, a failed translation).
Translate Toolkit's pofilter declares its checks the same way. An undeclared kind cannot become a
finding, so a typo cannot open a new, ungrouped category in the report. When integrity finds that an
artifact misses a precondition (missing, unparseable, structure no longer paired by position, variant
rejected by the benchmark's own models), the layers whose kinds need it skip that artifact:
`layers_needing` says which.
"""

from __future__ import annotations

import importlib
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


# what most checks need: the file parsed; its fields paired by position; the variant loaded (behaviour)
PARSED = frozenset({Precondition.PARSED})
PAIRED = frozenset({Precondition.PARSED, Precondition.PAIRED})
LOADS = frozenset({Precondition.PARSED, Precondition.LOADS})


class FindingKind(Record):
    name: str
    layer: Layer
    severity: Severity  # the default; a check may lower it for a harmless case (and says why)
    needs: frozenset[Precondition] = frozenset()
    summary: str
    route: Route = "translation"  # what the review offers first for a confirmed finding of this kind


REVIEWER_JUDGEMENT = "reviewer_judgement"
KINDS: dict[tuple[Layer, str], FindingKind] = {}  # filled by the declarations; one name may sit on two layers


def declare_kind(
    name: str,
    layer: Layer,
    severity: Severity,
    needs: frozenset[Precondition],
    summary: str,
    route: Route = "translation",
) -> FindingKind:
    """Declare a kind (once; checks, families and agents declare theirs at import time)."""
    kind = FindingKind(name=name, layer=layer, severity=severity, needs=needs, summary=summary, route=route)
    if KINDS.get((layer, name), kind) != kind:
        raise ValueError(f"finding kind {name!r} ({layer.value}) is declared twice with different meanings")
    KINDS[(layer, name)] = kind
    return kind


def declare_kinds(
    layer: Layer, needs: frozenset[Precondition], *rows: tuple[str, Severity, str]
) -> tuple[FindingKind, ...]:
    """The kinds one pass tells apart, each a (name, default severity, summary) row."""
    return tuple(declare_kind(name, layer, severity, needs, summary) for name, severity, summary in rows)


for _layer in Layer:  # what a validator agent raises in its own words, on any layer
    declare_kind(REVIEWER_JUDGEMENT, _layer, Severity.MAJOR, frozenset(), "a validator agent's own finding")
# what a human raises: a unit failed in a rejected sign-off sample (flows/review/signoff_log.py queues it)
SAMPLE_UNIT_FAILED = declare_kind(
    "sample_unit_failed",
    Layer.FIDELITY,
    Severity.MAJOR,
    frozenset(),
    "a unit the reviewer failed in a rejected sign-off sample (its MQM category and severity in the message)",
)

# what `babelflow adopt` changed in a variant made elsewhere (flows/pipeline/adoption_findings.py queues them):
# a repair is never silent; dismissing one accepts it, confirming it asks for the field's own text
ADOPTED_RENDERING_REPLACED = declare_kind(
    "adopted_rendering_replaced",
    Layer.CONSISTENCY,
    Severity.MINOR,
    frozenset(),
    "a field of an adopted variant named a value another way: adopt wrote the value's chosen rendering there",
)
ADOPTED_TEXT_REFUSED = declare_kind(
    "adopted_text_refused",
    Layer.FIDELITY,
    Severity.MAJOR,
    frozenset(),
    "an adopted variant's text the release checks refused (an id dropped): the field holds the source's text",
)
ADOPTED_VALUE_RESTORED = declare_kind(
    "adopted_value_restored",
    Layer.CONSISTENCY,
    Severity.MINOR,
    frozenset(),
    "a kept value an adopted variant had changed: adopt wrote the source's text back",
)


def declared() -> dict[tuple[Layer, str], FindingKind]:
    """Every kind, the checks' included: their modules declare them when imported (the catalogue)."""
    importlib.import_module("validators.catalogue")
    return KINDS


def finding_kind(layer: Layer, name: str) -> FindingKind:
    try:
        return declared()[(layer, name)]
    except KeyError:
        raise ValueError(
            f"undeclared {layer.value} finding kind {name!r}: "
            "declare it beside its check (@check in validators/checks.py) or with declare_kind"
        ) from None


def is_declared(layer: Layer, name: str) -> bool:
    return (layer, name) in declared()


def layers_needing(missing: Precondition) -> set[Layer]:
    """The layers with at least one kind that needs `missing` (they skip the artifact lacking it)."""
    return {kind.layer for kind in declared().values() if missing in kind.needs} - {Layer.INTEGRITY}


def suggested_route(layer: Layer, kind: str) -> Route:
    """The route the review pre-selects for a finding of this kind (the reviewer may change it)."""
    found = declared().get((layer, kind))
    return found.route if found else "translation"
