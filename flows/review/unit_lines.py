"""How a unit reads in one line: its provenance, its context and its checks (the `units` listing,
the review material and the sign-off sample all print these)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from flows.review.unit_records import UnitCheck, UnitRecord


def provenance(record: UnitRecord) -> str:
    if record.human is not None:
        human = record.human
        how = {
            "import": f"imported from {human.detail}",
            "finding": f"replacement for {human.detail}",
            "hand_edit": f"edited by hand in {human.detail}",
        }.get(human.via, "corrected")
        forced = f"; accepted despite {', '.join(human.forced)}" if human.forced else ""
        return f"{how} by {human.author} at {human.at} (was: {human.previous!r}){forced}"
    return record.origin


def context_line(record: UnitRecord) -> str:
    parts = [
        ", ".join(Path(a).name for a in record.artifacts),
        ", ".join(record.roles[:3]) + (" …" if len(record.roles) > 3 else ""),
    ]
    if record.tasks:
        parts.append(
            "tasks " + ", ".join(record.tasks[:8]) + (f" (+{len(record.tasks) - 8})" if len(record.tasks) > 8 else "")
        )
    if record.tools:
        parts.append("tools " + ", ".join(record.tools[:5]))
    if record.canonical_group:
        parts.append(f"canonical term ({record.canonical_group})")
    return " · ".join(parts)


def checks_line(checks: list[UnitCheck]) -> str:
    return "; ".join(f"{c.kind}: {c.message}" for c in checks) or "pass (language, numbers, tokens, pack)"
