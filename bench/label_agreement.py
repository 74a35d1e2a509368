"""A labeller's verdicts on the committed samples of finding groups (SEATau retail, the originals and the adopted
variants), read from the samples alone: the share of groups labelled true defects, and how often the report's
severity is the labeller's own grade. A labeller who saw none of the checks' tuning gives held-out numbers.

    python -m bench.label_agreement [--labeller labels3]

Samples: tests/data/seatau/sample_<lang>.json and sample_adopted_<lang>.json (written by
bench.real_language_validation --label and bench.adopt_corpus --label); labels:
tests/data/seatau/<labeller>_<lang>.json and <labeller>_adopted_<lang>.json (docs/labelling_guideline.md).
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from rich.console import Console
from rich.table import Table

HERE = Path(__file__).resolve().parent.parent / "tests" / "data" / "seatau"
LANGUAGES = ("vi", "th", "id", "tl")


def _rows(path: Path) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else []


def _sample(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def measure(sample: str, labeller: str) -> tuple[int, int, int, int, Counter]:
    """(groups labelled true, groups labelled, severity agreed, true groups graded, (report, labeller) pairs)."""
    document = _sample(HERE / f"sample_{sample}.json")
    groups = {row["group"]: row["severity"] for row in document.get("groups", [])}
    labels = {row["group"]: row for row in _rows(HERE / f"{labeller}_{sample}.json") if row["group"] in groups}
    true = [row for row in labels.values() if row.get("defect")]
    graded = [row for row in true if row.get("severity")]
    pairs = Counter(
        (groups[row["group"]], row["severity"]) for row in graded if groups[row["group"]] != row["severity"]
    )
    agreed = sum(groups[row["group"]] == row["severity"] for row in graded)
    return len(true), len(labels), agreed, len(graded), pairs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--labeller", default="labels3")
    args = parser.parse_args()
    table = Table(title=f"{args.labeller}: true defects and severity agreement on the committed samples")
    for column in ("sample", "true defects", "severity = labeller's grade", "disagreements (report → labeller)"):
        table.add_column(column)
    totals = [0, 0, 0, 0]
    for kind in ("", "adopted_"):
        for language in LANGUAGES:
            sample = f"{kind}{language}"
            true, labelled, agreed, graded, pairs = measure(sample, args.labeller)
            totals = [a + b for a, b in zip(totals, (true, labelled, agreed, graded), strict=True)]
            shown = ", ".join(f"{a}→{b} ×{n}" for (a, b), n in sorted(pairs.items())) or "—"
            table.add_row(sample, f"{true}/{labelled}", f"{agreed}/{graded}", shown)
    table.add_row("all", f"{totals[0]}/{totals[1]}", f"{totals[2]}/{totals[3]}", "")
    Console(width=140).print(table)


if __name__ == "__main__":
    main()
