"""Adopt variants made elsewhere (SEATauBench's τ² retail: vi, th, id, tl) and compare what validation
reports on the original variant and on the adopted one, with the commands a user runs:

    babelflow validate tau2-retail --source-dir CORPUS/en --lang L --variant CORPUS/L --json orig.json
    babelflow adopt tau2-retail --source-dir CORPUS/en --lang L --from CORPUS/L --origin SEATauBench
    babelflow validate tau2-retail --source-dir CORPUS/en --lang L --json adopted.json

The source is analyzed once; each language then runs in two temporary project folders that start from that
analysis (the original is validated in one, adopted in the other, so the adopted canonical map cannot leak
into the original's validation). Prints per language: groups above note (one group per cause,
as the review queue shows them) and per value (the grouping before causes); findings above note; groups of
a value rendered several ways; the share of translated fields that carry the variant's text, and the
reasons of the rest; the time of `adopt` over the time of validating the original, measured in this run.

    python -m bench.adopt_corpus [CORPUS_DIR] [--lang vi ...] [--keep DIR] [--label]

CORPUS_DIR defaults to ../shared/corpora/seatau-retail. --keep writes each language's two reports there.
--label writes the adopted variant's groups above note (all of them, up to 40 drawn with the corpus seed)
as tests/data/seatau/sample_adopted_<lang>.json; labels2_adopted_<lang>.json, written by a labeller who did
not write the checks (docs/labelling_guideline.md), gives the last column: groups labelled true defects.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from rich.console import Console
from rich.table import Table

from tests.data.seatau import corpus as samples
from translators.adoption import load_adoption
from validators.findings import FailureSet, Finding, group_findings

ROOT = Path(__file__).resolve().parent.parent
SEVERE = ("critical", "major", "minor")


def _run(args: list[str], cwd: Path) -> float:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "DO_NOT_TRACK": "1", "PREFECT_SERVER_ANALYTICS_ENABLED": "false"}
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "flows.cli.app", *args], cwd=cwd, env=env, capture_output=True, text=True
    )
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(args)} exited {done.returncode}:\n{done.stdout[-3000:]}{done.stderr[-3000:]}")
    return time.perf_counter() - started


def _counts(report: Path) -> dict[str, int]:
    findings = FailureSet.model_validate_json(report.read_bytes()).findings
    by_cause = group_findings(findings)
    by_value = group_findings([f.model_copy(update={"cause": None}) for f in findings])
    several = [f for f in findings if f.cause == "fields that do not use their record's rendering of a value"]
    return {
        "groups": sum(g.severity.value in SEVERE for g in by_cause),
        "value_groups": sum(g.severity.value in SEVERE for g in by_value),
        "findings": sum(f.severity.value in SEVERE for f in findings),
        "several_ways": len({_value(f) for f in several}),
    }


def _value(finding: Finding) -> str:
    return finding.pattern or finding.location


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpus", nargs="?", type=Path, default=ROOT.parent / "shared/corpora/seatau-retail")
    parser.add_argument("--lang", action="append", help="languages (default: every folder beside en/)")
    parser.add_argument("--keep", type=Path, help="write the reports here")
    parser.add_argument(
        "--label",
        action="store_true",
        help="write tests/data/seatau/sample_adopted_<lang>.json: the adopted variant's groups above note, "
        "for a labeller (docs/labelling_guideline.md)",
    )
    args = parser.parse_args()
    corpus = args.corpus.resolve()
    languages = args.lang or sorted(p.name for p in corpus.iterdir() if p.is_dir() and p.name != "en")
    console = Console()
    table = Table(title=f"adopting {corpus.name}: original variant -> adopted variant (above note)")
    for column in (
        "lang",
        "groups (causes)",
        "groups (values)",
        "findings",
        "rendered several ways",
        "fields adopted",
        "not adopted",
        "adopt / validate time",
        "true defects (labeller 2)",
    ):
        table.add_column(column)
    analyzed = Path(tempfile.mkdtemp(prefix="adopt-analysis-"))
    # the source is analyzed once; every project below starts from that analysis (both timings warm)
    ir = analyzed / ".babelflow/ir/tau2-retail.json"  # where a project keeps its IR (StateLayout.ir)
    _run(["analyze", "tau2-retail", "--source-dir", str(corpus / "en"), "--out", str(ir)], analyzed)
    for language in languages:
        with tempfile.TemporaryDirectory(prefix=f"adopt-{language}-") as tmp:
            original_dir, adopted_dir = Path(tmp, "original"), Path(tmp, "adopted")
            for project in (original_dir, adopted_dir):
                shutil.copytree(analyzed / ".babelflow", project / ".babelflow")
            common = ["tau2-retail", "--source-dir", str(corpus / "en"), "--lang", language]
            original = original_dir / "report.json"
            validate_s = _run(
                ["validate", *common, "--variant", str(corpus / language), "--json", str(original)], original_dir
            )
            adopt_s = _run(["adopt", *common, "--from", str(corpus / language), "--origin", "SEATauBench"], adopted_dir)
            adopted = adopted_dir / "report.json"
            _run(["validate", *common, "--json", str(adopted)], adopted_dir)
            record = load_adoption(adopted_dir / f".babelflow/runs/tau2-retail/{language}/adopted_translations.json")
            assert record is not None, "adopt wrote no adoption record"
            before, after = _counts(original), _counts(adopted)
            findings = FailureSet.model_validate_json(adopted.read_bytes()).findings
            groups = group_findings(findings)
            key = f"adopted_{language}"  # the sample's name beside the original variants' samples
            if args.label:
                samples.write_sample(groups, findings, key, [])
            share, labelled, unlabelled = samples.precision(groups, key, "labels2")
            judged = f"{share:.0%} of {labelled}" + (f" ({len(unlabelled)} unlabelled)" if unlabelled else "")
            agreed, graded = samples.severity_agreement(groups, key)
            judged += f"; severity agreed {agreed}/{graded}" if graded else ""
            reasons = Counter(n.reason for n in record.not_adopted)
            table.add_row(
                language,
                f"{before['groups']} -> {after['groups']}",
                f"{before['value_groups']} -> {after['value_groups']}",
                f"{before['findings']} -> {after['findings']}",
                f"{before['several_ways']} -> {after['several_ways']}",
                f"{record.adopted_fields}/{record.translatable_fields} "
                f"({record.adopted_fields / max(record.translatable_fields, 1):.1%})",
                ", ".join(f"{reason} {n}" for reason, n in reasons.most_common()),
                f"{adopt_s:.1f} s / {validate_s:.1f} s = {adopt_s / validate_s:.2f}x",
                judged if samples.labels_path(key, "labels2").exists() else "-",
            )
            if args.keep:
                args.keep.mkdir(parents=True, exist_ok=True)
                shutil.copy(original, args.keep / f"original-{language}.json")
                shutil.copy(adopted, args.keep / f"adopted-{language}.json")
            console.print(f"{language}: done", highlight=False)
    console.print(table)
    shutil.rmtree(analyzed, ignore_errors=True)


if __name__ == "__main__":
    main()
