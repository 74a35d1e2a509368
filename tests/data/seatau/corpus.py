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
#
# sample_<lang>.json: the seeded sample of finding groups from the HELD-OUT run (calibrated without
# <lang>), self-contained: each group's claim, severity and up to 3 occurrences with the English
# source, the variant's text and the location, labelled without reading code
# (docs/labelling_guideline.md). labels_<lang>.json: labeller 1 (who wrote the checks);
# labels2_<lang>.json: labeller 2 (given only the guideline and the samples). Rows: {group, defect, reason}.

SAMPLE_SIZE = 40
SEED = 40  # issue #40: a fresh sample after groups became causes (#24 drew with 24, round 1 with 14)
OCCURRENCES = 3
LABELLERS = ("labels", "labels2")


def sample_path(language: str) -> Path:
    return HERE / f"sample_{language}.json"


def labels_path(language: str, labeller: str = "labels") -> Path:
    return HERE / f"{labeller}_{language}.json"


def sample(groups: list, language: str) -> list:
    """40 finding groups chosen at random with a fixed seed (all of them when there are fewer).

    Notes are left out: they record a policy of the variant or a file the harness supplies and
    claim no defect, so there is nothing to label true or false."""
    import random

    ordered = sorted((g for g in groups if g.severity.value != "note"), key=lambda g: g.id)
    if len(ordered) <= SAMPLE_SIZE:
        return ordered
    return sorted(random.Random(f"{SEED}-{language}").sample(ordered, SAMPLE_SIZE), key=lambda g: g.id)


TEXT_LIMIT = 1500  # a whole task instruction or policy paragraph, not a page


def _occurrence(finding, texts) -> dict:
    evidence = finding.evidence[0] if finding.evidence else None
    where = f"{finding.artifact.split('/')[-1]} {finding.location}" + (
        f" (task {finding.task_id})" if finding.task_id else ""
    )
    source, target = (evidence.source, evidence.target) if evidence else (None, None)
    whole = texts(finding) if texts is not None else None
    if whole is not None:  # the evidence is an excerpt of 240 characters: the labeller reads the field
        source, target = (text[:TEXT_LIMIT] if text else text for text in whole)
    return {"location": where, "english_source": source, "variant_text": target}


def write_sample(groups: list, findings: list, language: str, calibration_languages: list[str], texts=None) -> Path:
    """Write the self-contained sample a person labels (no labels in it). `texts(finding)`: the
    whole (source, target) of the finding's field, when the caller can read them."""
    from validators.finding_kinds import declared

    by_id = {f.id: f for f in findings}
    rows = []
    for group in sample(groups, language):
        kind = declared().get((group.layer, group.kind))
        members = [by_id[i] for i in group.finding_ids if i in by_id]
        # a group of one cause over several values shows one occurrence of each value first
        firsts = {m.pattern: m for m in reversed(members)}
        members = sorted(members, key=lambda m: firsts.get(m.pattern) is not m)
        rows.append(
            {
                "group": group.id,
                "claim": group.example,
                "check": kind.summary if kind else group.kind,
                "severity": group.severity.value,
                "pattern": group.pattern,
                "file": group.artifact.split("/")[-1],
                "occurrences_in_group": len(group.finding_ids),
                "occurrences": [_occurrence(m, texts) for m in members[:OCCURRENCES]],
            }
        )
    document = {
        "language": language,
        "calibrated_on": calibration_languages,
        "guideline": "docs/labelling_guideline.md",
        "groups": rows,
    }
    path = sample_path(language)
    path.write_text(json.dumps(document, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return path


def labels(language: str, labeller: str = "labels") -> dict[str, bool]:
    """group id -> defect (True/False) given by one labeller (empty when the file is missing)."""
    path = labels_path(language, labeller)
    if not path.exists():
        return {}
    rows = json.loads(path.read_text(encoding="utf-8"))
    return {row["group"]: bool(row["defect"]) for row in rows if row.get("defect") is not None}


def precision(groups: list, language: str, labeller: str = "labels") -> tuple[float, int, list[str]]:
    """(share of sampled groups labelled a true defect, labelled count, sampled groups without a label)."""
    given = labels(language, labeller)
    chosen = sample(groups, language)
    unlabelled = [g.id for g in chosen if g.id not in given]
    labelled = [given[g.id] for g in chosen if g.id in given]
    return (sum(labelled) / len(labelled) if labelled else 0.0), len(labelled), unlabelled


def severity_agreement(groups: list, language: str, labeller: str = "labels2") -> tuple[int, int]:
    """(true groups whose report severity is the labeller's own grade, true groups the labeller graded)."""
    path = labels_path(language, labeller)
    if not path.exists():
        return 0, 0
    graded = {
        row["group"]: row["severity"] for row in json.loads(path.read_text(encoding="utf-8")) if row.get("severity")
    }
    chosen = [g for g in sample(groups, language) if g.id in graded]
    return sum(graded[g.id] == g.severity.value for g in chosen), len(chosen)


def agreement(groups: list, language: str) -> tuple[int, int]:
    """(groups both labellers labelled the same, groups both labelled) over the sample."""
    first, second = labels(language, "labels"), labels(language, "labels2")
    both = [g.id for g in sample(groups, language) if g.id in first and g.id in second]
    return sum(first[i] == second[i] for i in both), len(both)


def kappa(groups: list, language: str) -> float | None:
    """Cohen's kappa of the two labellers over the sample (None: nothing both labelled, or no variation)."""
    first, second = labels(language, "labels"), labels(language, "labels2")
    both = [g.id for g in sample(groups, language) if g.id in first and g.id in second]
    if not both:
        return None
    observed = sum(first[i] == second[i] for i in both) / len(both)
    true1, true2 = (sum(d[i] for i in both) / len(both) for d in (first, second))
    expected = true1 * true2 + (1 - true1) * (1 - true2)
    return None if expected == 1 else (observed - expected) / (1 - expected)
