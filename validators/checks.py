"""A check is one function with its kind declared beside it; the layers run what is registered.

    @check("renderings_collide", Layer.CONSISTENCY, Severity.CRITICAL, needs=PAIRED,
           summary="two source values share one rendering")
    def renderings_collide(ctx: ValidationContext, scope: Scope) -> Iterator[Hit]: ...

Translate Toolkit's checker and inspect_ai's `@scorer` work this way. The decorator declares the kind
(layer, default severity, preconditions, route, summary: validators/finding_kinds.py) and registers the
function; the function yields what it saw (`Hit`), and the layer runner makes each finding from the
check's declaration. A kind several checks raise is declared once (`declare_kind`) and passed to each
`@check` as that object (a check family); a check whose one pass tells several kinds apart (a skeleton
walk, a replay comparison) declares them all and names one per hit.

Checks run in the order of their modules in validators/catalogue.py, then of their definitions.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from validators.finding_kinds import FindingKind, Layer, Precondition, Route, Severity, declare_kind
from validators.findings import Finding, Hit, SuppressedCheck, found
from validators.probes.skeleton import under_any

if TYPE_CHECKING:
    from validators.context import ValidationContext


@dataclass
class Scope:
    """What a check of one layer may look at besides the context: the artifacts integrity made it skip
    (`skip`: whole files; `unpaired`: the subtrees of a data file whose structure changed), the findings
    its layer's earlier checks made, and (integrity only) the checks to suppress."""

    layer: Layer
    skip: frozenset[str]
    suppressed: list[SuppressedCheck]
    found: list[Finding] = field(default_factory=list)
    unpaired: dict[str, tuple[tuple, ...]] = field(default_factory=dict)

    @classmethod
    def of(cls, layer: Layer, suppressed: list[SuppressedCheck]) -> Scope:
        mine = [s for s in suppressed if s.layer is layer]
        unpaired: dict[str, tuple[tuple, ...]] = {}
        for item in mine:
            if item.paths:
                unpaired[item.artifact] = unpaired.get(item.artifact, ()) + tuple(tuple(p) for p in item.paths)
        return cls(layer, frozenset(s.artifact for s in mine if not s.paths), suppressed, unpaired=unpaired)

    def skips(self, element) -> bool:
        """Whether integrity made this layer skip the element: its file, or the subtree it lies in."""
        if element.artifact in self.skip:
            return True
        return under_any(getattr(element.locator, "path", None), self.unpaired.get(element.artifact))


CheckFunction = Callable[["ValidationContext", Scope], Iterable[Hit]]
Decorator = Callable[[CheckFunction], CheckFunction]


@dataclass(frozen=True)
class Check:
    function: CheckFunction
    kinds: tuple[FindingKind, ...]

    @property
    def name(self) -> str:
        return self.function.__name__

    @property
    def layer(self) -> Layer:
        return self.kinds[0].layer

    def finding(self, validator_id: str, hit: Hit) -> Finding:
        """The finding of what this check saw, of the kind the hit names among the declared ones."""
        kind = self.kinds[0] if hit.kind is None else next((k for k in self.kinds if k.name == hit.kind), None)
        if kind is None:
            raise ValueError(f"check {self.name} raised {hit.kind!r}, which it does not declare")
        return found(kind, validator_id, hit)


CHECKS: list[Check] = []


def check(
    kind: str | FindingKind,
    layer: Layer | None = None,
    severity: Severity | None = None,
    *,
    needs: frozenset[Precondition] = frozenset(),
    summary: str = "",
    route: Route = "translation",
    also: tuple[FindingKind, ...] = (),
) -> Decorator:
    """Register the decorated function as a check raising `kind`: a name declared here (with its layer,
    default severity, preconditions, summary and route), or a kind declared once for a family of checks.
    `also`: the other kinds its one pass tells apart."""
    if isinstance(kind, str):
        if layer is None or severity is None or not summary:
            raise ValueError(f"check of {kind!r}: declare its layer, default severity and summary")
        kind = declare_kind(kind, layer, severity, needs, summary, route)
    if any(k.layer is not kind.layer for k in also):
        raise ValueError(f"check of {kind.name!r}: all its kinds sit on one layer")

    def register(function: CheckFunction) -> CheckFunction:
        CHECKS.append(Check(function=function, kinds=(kind, *also)))
        return function

    return register


def check_on(layer: Layer, needs: frozenset[Precondition] = frozenset()) -> Callable[..., Decorator]:
    """A module's decorator for its checks of one layer and preconditions, so each declaration says only
    what is its own: `paired = check_on(Layer.CONSISTENCY, PAIRED)`, then
    `@paired("renderings_collide", Severity.CRITICAL, "two source values share one rendering")`."""

    def declared_on(
        kind: str, severity: Severity, summary: str, *, route: Route = "translation", also: tuple[FindingKind, ...] = ()
    ) -> Decorator:
        return check(kind, layer, severity, needs=needs, summary=summary, route=route, also=also)

    return declared_on


def checks_of(layer: Layer) -> list[Check]:
    """The layer's checks in catalogue order (module, then definition)."""
    from validators.catalogue import MODULES  # noqa: PLC0415 - the catalogue imports every check module

    def order(registered: Check) -> tuple[int, int]:
        return MODULES.index(registered.function.__module__), inspect.unwrap(
            registered.function
        ).__code__.co_firstlineno  # a wrapped check: its own line

    return sorted((c for c in CHECKS if c.layer is layer), key=order)


def run_checks(layer: Layer, ctx: ValidationContext, suppressed: list[SuppressedCheck]) -> list[Finding]:
    """Every registered check of `layer` on `ctx`, skipping what integrity suppressed for it. For
    integrity, `suppressed` is also its output (its checks extend it)."""
    scope = Scope.of(layer, suppressed)
    for registered in checks_of(layer):
        scope.found += [registered.finding(ctx.validator_id, hit) for hit in registered.function(ctx, scope)]
    return scope.found
