"""Validate real model translations of τ²-bench retail (SEATauBench vi, th, id, tl) made by
another project, leave-one-language-out: for each language, the checks' calibration
(validators/calibration.py) is computed on the other three and the language is measured with it
(held-out), and again with the calibration of all four (calibrated). Prints per language the
held-out run's groups, findings and severities; precision of the calibrated run (labeller 1) and
of the held-out run (labeller 1, who wrote the checks, and labeller 2, who was given only
docs/labelling_guideline.md and the samples); raw agreement and Cohen's kappa of the two
labellers; the defect kinds reported; time.

    python -m bench.real_language_validation [CORPUS_DIR] [--lang vi ...] [--label] [--store-default]

CORPUS_DIR is laid out like ../shared/corpora/seatau-retail (en/ and one folder per language);
without it the slices committed under tests/data/seatau/ are rebuilt into a temporary folder.
--label writes tests/data/seatau/sample_<lang>.json, the seeded sample of up to 40 groups of the
held-out run, self-contained for a labeller (docs/labelling_guideline.md).
--store-default writes the calibration of all four languages to validators/data/calibration.json.
Precision = sampled groups labelled a true defect / labelled.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from collections import Counter
from pathlib import Path

from tests.data.seatau import corpus

ROOT = Path(__file__).resolve().parent.parent
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


def _cell(groups, language: str, labeller: str) -> str:
    if not corpus.labels_path(language, labeller).exists():
        return "-"
    share, labelled, unlabelled = corpus.precision(groups, language, labeller)
    agreed, graded = corpus.severity_agreement(groups, language, labeller)
    severity = f" sev {agreed}/{graded}" if graded else ""
    return f"{share:.0%} of {labelled}" + (f" ({len(unlabelled)} unl.)" if unlabelled else "") + severity


def _texts(bench, root: Path, ir, language: str):
    """finding -> the whole (source, target) of its field, for the labelling sample."""
    from validators.context import ValidationContext

    ctx = ValidationContext(bench, root / language, ir, language)
    elements = ir.by_id()

    def texts(finding):
        element = elements.get(finding.element_id or "")
        if element is None or element.locator.kind == "python_literal":
            return None
        return element.source_text, ctx.target_text(element)

    return texts


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("corpus", nargs="?", type=Path)
    parser.add_argument("--lang", action="append", dest="languages")
    parser.add_argument("--label", action="store_true")
    parser.add_argument("--store-default", action="store_true")
    args = parser.parse_args()
    from flows.components import analyze_or_reuse
    from source_benchmarks import get_benchmark
    from validators.calibration import DEFAULT_PATH, calibrate
    from validators.calibration_measure import measure
    from validators.context import ValidationContext
    from validators.findings import group_findings
    from validators.probes.behavior import replay_pairs_of
    from validators.run import validate_variant, variant_context

    with tempfile.TemporaryDirectory() as scratch:
        root = args.corpus or corpus.rebuild(Path(scratch) / "seatau")
        bench = get_benchmark("tau2-retail", source_dir=root / "en")
        started = time.perf_counter()
        ir = analyze_or_reuse(bench, None, Path(scratch) / "ir.json", lambda m: None)
        print(f"analysis of the English source: {time.perf_counter() - started:.1f} s")
        lengths = {
            language: measure(ValidationContext(bench, root / language, ir, language)) for language in corpus.LANGUAGES
        }
        everything = calibrate(list(lengths.values()))
        print(
            f"calibration on {', '.join(everything.languages)}: length spread {everything.length_spread} "
            f"around each variant's own median ({everything.fields} fields); loanwords pooled per script: "
            + ", ".join(f"{script} {len(words)}" for script, words in everything.loanwords.items())
        )
        if args.store_default:
            DEFAULT_PATH.parent.mkdir(parents=True, exist_ok=True)
            DEFAULT_PATH.write_text(everything.model_dump_json(indent=1) + "\n", encoding="utf-8")
            print(f"stored {DEFAULT_PATH.relative_to(ROOT)}")
        source_pairs = replay_pairs_of(bench, bench.task_ids(None), "behaviour replays: source")
        print(
            f"{'lang':<5} {'groups':>6} {'findings':>8} {'crit':>4} {'maj':>4} {'min':>4} {'note':>4} "
            f"{'calibrated run: L1':>18} {'held-out: L1':>14} {'held-out: L2':>14} {'agree':>6} {'kappa':>5} "
            f"{'time':>5}"
        )
        kinds_seen: dict[str, set[str]] = {}
        for language in args.languages or corpus.LANGUAGES:
            held = calibrate([m for other, m in lengths.items() if other != language], excluded=[language])
            runs = {}
            for run, calibration in (("held-out", held), ("calibrated", everything)):
                started = time.perf_counter()
                failures = validate_variant(
                    variant_context(
                        bench, root / language, ir, language, source_pairs=source_pairs, calibration=calibration
                    ),
                    agents=[],
                )
                runs[run] = (failures, group_findings(failures.findings), time.perf_counter() - started)
            failures, groups, elapsed = runs["held-out"]
            kinds_seen[language] = {g.kind for g in groups}
            if args.label:
                corpus.write_sample(
                    groups, failures.findings, language, held.languages, _texts(bench, root, ir, language)
                )
            by = Counter(g.severity.value for g in groups)
            agree, both = corpus.agreement(groups, language)
            kappa = corpus.kappa(groups, language)
            print(
                f"{language:<5} {len(groups):>6} {len(failures.findings):>8} {by['critical']:>4} {by['major']:>4} "
                f"{by['minor']:>4} {by['note']:>4} {_cell(runs['calibrated'][1], language, 'labels'):>18} "
                f"{_cell(groups, language, 'labels'):>14} {_cell(groups, language, 'labels2'):>14} "
                f"{(f'{agree}/{both}' if both else '-'):>6} {(f'{kappa:.2f}' if kappa is not None else '-'):>5} "
                f"{elapsed:>4.0f}s",
                flush=True,
            )
        print("defect kinds reported (held-out runs):")
        for language, kinds in kinds_seen.items():
            print(f"  {language}: {', '.join(sorted(kinds))}")


if __name__ == "__main__":
    main()
