"""Are two IRs of the same benchmark the same decisions? For checking that a speed-up changed nothing.

Compares element by element (id, type, reason, canonical group, typing rule, links, evidence kind and
detail, evidence type), then link groups, the evidence table and the findings; prints the first
differences and exits 1 when any exists.
Usage: python -m bench.ir_diff before.json after.json
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import orjson

SHOWN = 20  # differences printed per section


def _by(items: list[dict[str, Any]], key: str) -> dict[Any, dict[str, Any]]:
    return {orjson.dumps(item[key], option=orjson.OPT_SORT_KEYS): item for item in items}


def diff(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """Human-readable differences; empty when the two IRs decide the same."""
    problems: list[str] = []
    for field in ("benchmark", "source_version", "analyzer_version", "profile_sha256", "artifacts"):
        if before.get(field) != after.get(field):
            problems.append(f"{field}: {before.get(field)!r} -> {after.get(field)!r}")
    old, new = _by(before["elements"], "id"), _by(after["elements"], "id")
    if list(old) != list(new):
        problems.append(
            f"element ids: {len(old)} -> {len(new)}; only before: {len(old.keys() - new.keys())}, "
            f"only after: {len(new.keys() - old.keys())}, order differs: {list(old) != list(new)}"
        )
    changed = [key for key in old.keys() & new.keys() if old[key] != new[key]]
    for key in changed[:SHOWN]:
        fields = sorted(f for f in old[key].keys() | new[key].keys() if old[key].get(f) != new[key].get(f))
        problems += [f"element {key.decode()} {f}: {old[key].get(f)!r} -> {new[key].get(f)!r}" for f in fields]
    if len(changed) > SHOWN:
        problems.append(f"... {len(changed) - SHOWN} more elements differ")
    for section in ("link_groups", "evidence", "analysis_findings"):
        if before.get(section) != after.get(section):
            one, two = before.get(section) or [], after.get(section) or []
            differing = sum(1 for a, b in zip(one, two) if a != b) + abs(len(one) - len(two))
            problems.append(f"{section}: {len(one)} -> {len(two)} entries, {differing} differ")
    if not problems and before != after:
        problems.append("documents differ outside the compared fields")
    return problems


def main() -> None:
    before, after = (orjson.loads(Path(name).read_bytes()) for name in sys.argv[1:3])
    problems = diff(before, after)
    for line in problems:
        print(line)
    print(f"{len(before['elements'])} elements: {'identical decisions' if not problems else 'DIFFERENT'}")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
