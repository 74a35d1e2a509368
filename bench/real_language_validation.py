"""Validate real model translations of τ²-bench retail (SEATauBench vi, th, id, tl) made by
another project, and print per language: findings, groups, labelled precision, time.

    python -m bench.real_language_validation [CORPUS_DIR] [--lang vi ...] [--label]

CORPUS_DIR is laid out like ../shared/corpora/seatau-retail (en/ and one folder per language);
without it the slices committed under tests/data/seatau/ are rebuilt into a temporary folder.
--label (re)writes tests/data/seatau/labels_<lang>.json with the seeded sample of 40 groups,
keeping labels already given. Precision = sampled groups labelled a true defect / labelled.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from tests.data.seatau import corpus

ROOT = Path(__file__).resolve().parent.parent
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("corpus", nargs="?", type=Path)
    parser.add_argument("--lang", action="append", dest="languages")
    parser.add_argument("--label", action="store_true")
    args = parser.parse_args()
    from flows.components import analyze_or_reuse
    from source_benchmarks import get_benchmark
    from validators.findings import group_findings
    from validators.run import validate_variant

    with tempfile.TemporaryDirectory() as scratch:
        root = args.corpus or corpus.rebuild(Path(scratch) / "seatau")
        bench = get_benchmark("tau2-retail", source_dir=root / "en")
        started = time.perf_counter()
        ir = analyze_or_reuse(bench, None, Path(scratch) / "ir.json", lambda m: None)
        print(f"analysis of the English source: {time.perf_counter() - started:.1f} s")
        print(
            f"{'lang':<5} {'findings':>8} {'groups':>6} {'critical':>8} {'major':>5} {'minor':>5} {'note':>4} "
            f"{'precision':>10} {'time':>7}"
        )
        for language in args.languages or corpus.LANGUAGES:
            started = time.perf_counter()
            failures = validate_variant(bench, root / language, ir, language, agents=[])
            elapsed = time.perf_counter() - started
            groups = group_findings(failures.findings)
            if args.label:
                corpus.write_sample(groups, language)
            share, labelled, unlabelled = (
                corpus.precision(groups, language) if corpus.labels_path(language).exists() else (0.0, 0, [])
            )
            by = failures.summary.groups_by_severity
            cell = f"{share:.0%} of {labelled}" + (f" ({len(unlabelled)} unlabelled)" if unlabelled else "")
            print(
                f"{language:<5} {len(failures.findings):>8} {len(groups):>6} {by.get('critical', 0):>8} "
                f"{by.get('major', 0):>5} {by.get('minor', 0):>5} {by.get('note', 0):>4} {cell:>10} {elapsed:>6.1f}s",
                flush=True,
            )


if __name__ == "__main__":
    main()
