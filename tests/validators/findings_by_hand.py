"""Findings written by hand for tests of what reads them (merge, groups, routes, review forms): made
the way a check makes them, from the kind's declaration and what was seen."""

from __future__ import annotations

from typing import Any

from validators.finding_kinds import Layer, Severity, finding_kind
from validators.findings import Finding, Hit, found


def a_finding(
    validator_id: str,
    layer: Layer,
    kind: str,
    severity: Severity,
    artifact: str,
    location: str,
    message: str,
    **seen: Any,
) -> Finding:
    """A finding of the declared `kind` (undeclared kinds are refused, as for a check)."""
    hit = Hit(severity=severity, artifact=artifact, location=location, message=message, **seen)
    return found(finding_kind(layer, kind), validator_id, hit)
