"""Rebuild the seatau-retail corpus layout from the slices stored here (see README.md)."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

HERE = Path(__file__).resolve().parent
LANGUAGES = ("vi", "th", "id", "tl")
RETAIL = Path("tau2/domains/retail")


def _packaged() -> Path:
    import tau2

    return Path(tau2.__file__).resolve().parent / "data" / RETAIL


def rebuild(dest: Path) -> Path:
    """Write <dest>/en and <dest>/<lang> laid out like tau2's data/ folder; returns dest."""
    dest = Path(dest)
    packaged = _packaged()
    en = dest / "en" / RETAIL
    en.mkdir(parents=True, exist_ok=True)
    for name in ("db.json", "policy.md", "split_tasks.json"):
        shutil.copyfile(packaged / name, en / name)
    (en / "tasks.json").write_bytes(gzip.decompress((HERE / "en.tasks.json.gz").read_bytes()))
    source_db = json.loads((packaged / "db.json").read_text(encoding="utf-8"))
    for language in LANGUAGES:
        folder = dest / language / RETAIL
        folder.mkdir(parents=True, exist_ok=True)
        db = json.loads(json.dumps(source_db))
        for path, value in json.loads(gzip.decompress((HERE / f"{language}.db_changes.json.gz").read_bytes())):
            node = db
            for segment in path[:-1]:
                node = node[segment]
            node[path[-1]] = value
        (folder / "db.json").write_text(json.dumps(db, ensure_ascii=False, indent=2), encoding="utf-8")
        for name in ("tasks.json", "policy.md"):
            (folder / name).write_bytes(gzip.decompress((HERE / f"{language}.{name}.gz").read_bytes()))
    return dest


# ---- labelled samples ------------------------------------------------------------------------

SAMPLE_SIZE = 40
SEED = 14  # issue #14


def labels_path(language: str) -> Path:
    return HERE / f"labels_{language}.json"


def sample(groups: list, language: str) -> list:
    """40 finding groups chosen at random with a fixed seed (all of them when there are fewer).

    Notes are left out: they record a policy of the variant or a file the harness supplies and
    claim no defect, so there is nothing to label true or false."""
    import random

    ordered = sorted((g for g in groups if g.severity.value != "note"), key=lambda g: g.id)
    if len(ordered) <= SAMPLE_SIZE:
        return ordered
    return sorted(random.Random(f"{SEED}-{language}").sample(ordered, SAMPLE_SIZE), key=lambda g: g.id)


def write_sample(groups: list, language: str) -> Path:
    """Write the sample to label, keeping labels already given to the same groups."""
    path = labels_path(language)
    known = {row["group"]: row for row in json.loads(path.read_text(encoding="utf-8"))} if path.exists() else {}
    rows = []
    for group in sample(groups, language):
        old = known.get(group.id, {})
        rows.append(
            {
                "group": group.id,
                "severity": group.severity.value,
                "kind": f"{group.layer.value}/{group.kind}",
                "artifact": group.artifact,
                "pattern": group.pattern,
                "findings": len(group.finding_ids),
                "example": group.example[:200],
                "defect": old.get("defect"),
                "reason": old.get("reason", ""),
            }
        )
    path.write_text(json.dumps(rows, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return path


def precision(groups: list, language: str) -> tuple[float, int, list[str]]:
    """(share of sampled groups labelled a true defect, labelled count, sampled groups without a label)."""
    rows = {row["group"]: row for row in json.loads(labels_path(language).read_text(encoding="utf-8"))}
    chosen = sample(groups, language)
    unlabelled = [g.id for g in chosen if rows.get(g.id, {}).get("defect") is None]
    labelled = [rows[g.id]["defect"] for g in chosen if g.id in rows and rows[g.id].get("defect") is not None]
    return (sum(labelled) / len(labelled) if labelled else 0.0), len(labelled), unlabelled
