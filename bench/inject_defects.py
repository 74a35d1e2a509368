"""Defect-injection benchmark for the validators: is every catalogued defect kind caught, by a
finding that names the broken field?

For each defect kind (bench/defects/) a clean variant of the kind's home benchmark is
copied, the defect injected, and the copy validated with `validators.run.validate_variant`. A
defect is caught iff at least one finding names the injected field: the same IR element id when
the defect has one, otherwise the same artifact and a layer the defect is expected to show on.
Each clean variant is validated too and must have no finding above note (a note claims no defect),
except, in a real language, the English words the MT engine passed through (`draft_english`): true
defects of the draft, printed apart, not false alarms.

Clean variants are built once per benchmark (flows.pipeline.adapt.adapt into a temporary project, from
the checkout's saved IR when it is current, as `babelflow validate` reads it), and the source's
golden/do-nothing replays are computed once per benchmark and passed to every validation as
`source_pairs` (retail's replay is the slow part). Kinds of a benchmark whose runtime is not
installed here (τ³ without .venv-tau3) are skipped and listed.

Usage: python -m bench.inject_defects [--lang en-XA] [--seed 0] [--kinds k1,k2]
                                     [--on tau2-mock,fixture-library] [--keep DIR] [--profile FILE]
  --on       run each kind on every listed benchmark it applies to (default: the kind's home benchmark)
  --keep     build in DIR and keep the defective copies for inspection (default: a temporary folder)
  --profile  analyse with this profile (e.g. entity classes set to translate) instead of the
             benchmark's own; the IR is made in the work folder, the checkout's saved IR is untouched
Exit code 0 iff every kind run is caught and every clean variant has 0 findings above note.
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from rich.console import Console
from rich.table import Table

from babelflow.adapt_request import AdaptRequest
from babelflow.ir import IRDocument


def _arguments(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lang", default="en-XA")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--kinds", default="", help="comma-separated defect kinds (default: all)")
    parser.add_argument("--on", default="", help="comma-separated benchmarks to run every applicable kind on")
    parser.add_argument("--keep", type=Path, default=None, help="work folder to keep (default: temporary)")
    parser.add_argument("--profile", type=Path, default=None, help="profile to analyse with (default: the bundled one)")
    return parser.parse_args(argv)


class Prepared:
    """A benchmark's clean variant, IR, canonical map, source and source replays."""

    def __init__(
        self,
        benchmark_id: str,
        language: str,
        root: Path,
        console: Console,
        ir: IRDocument | None = None,
        profile: Path | None = None,
    ):
        from babelflow.canonical_map import load_canonical_map
        from babelflow.settings import BabelflowSettings
        from flows.components import analyze_or_reuse
        from flows.pipeline.adapt import adapt
        from source_benchmarks import get_benchmark
        from validators.probes.behavior import replay_pairs_of
        from validators.run import validate_variant, variant_context

        started = time.perf_counter()
        settings = BabelflowSettings(project_root=root / "project")
        self.source = get_benchmark(benchmark_id)
        # the checkout's saved IR when it is current (same analyzer, source, harness, profile), as
        # `babelflow validate` reads it: τ³ banking's analysis is minutes cold, ~1 min warm
        if ir is None and profile is not None:  # another profile: its own IR, beside the variant
            ir = analyze_or_reuse(self.source, profile, settings.layout.ir(benchmark_id), console.log)
        if ir is None:  # a test passes the IR its session already holds
            ir = analyze_or_reuse(self.source, None, BabelflowSettings().layout.ir(benchmark_id), console.log)
        console.log(f"{benchmark_id}: adapting to {language}")
        result = adapt(AdaptRequest.of_options(benchmark_id, language), settings=settings, ir=ir)
        self.benchmark_id, self.language, self.ir, self.variant = (
            benchmark_id,
            language,
            result.ir,
            result.paths.variant,
        )
        self.canonical_map = load_canonical_map(result.paths.canonical_map, benchmark_id, language)
        console.log(f"{benchmark_id}: replaying the source once")
        self.source_pairs = replay_pairs_of(self.source, self.source.task_ids(None), "source replays")
        console.log(f"{benchmark_id}: validating the clean variant")
        self.clean = validate_variant(
            variant_context(
                self.source,
                self.variant,
                self.ir,
                language,
                canonical_map=self.canonical_map,
                source_pairs=self.source_pairs,
            )
        )
        self.seconds = time.perf_counter() - started

    def validate(self, variant_dir: Path):
        from validators.run import validate_variant, variant_context

        return validate_variant(
            variant_context(
                self.source,
                variant_dir,
                self.ir,
                self.language,
                canonical_map=self.canonical_map,
                source_pairs=self.source_pairs,
            )
        )

    def plant(self, kind: str, work: Path, seed: int = 0):
        """(the defect, the failure set): `kind` planted into a fresh copy of the clean variant at `work`,
        validated as the clean one was. DefectNotApplicable when the variant offers no place for it."""
        from bench.defects import inject_defect

        shutil.rmtree(work, ignore_errors=True)
        shutil.copytree(self.variant, work)
        defect = inject_defect(kind, work, self.ir, random.Random(seed))
        return defect, self.validate(work)


def draft_english(finding) -> str | None:
    """The word of a minor `source_words_left` finding: English an MT draft left as it was ('upcoming',
    for want of an entry). None for any other finding; a sentence left (major) is not one."""
    if finding.kind != "source_words_left" or finding.severity.value != "minor" or not finding.evidence:
        return None
    return str(finding.evidence[0].detail.get("word"))


def main(argv: list[str] | None = None) -> int:
    from babelflow.settings import apply_offline_environment
    from bench.defects import CATALOGUE, DefectNotApplicable, caught_by
    from source_benchmarks import family_of

    args = _arguments(sys.argv[1:] if argv is None else argv)
    apply_offline_environment()
    console = Console(stderr=True)
    kinds = [k for k in args.kinds.split(",") if k] or list(CATALOGUE)
    unknown = [k for k in kinds if k not in CATALOGUE]
    if unknown:
        console.print(f"[red]unknown defect kinds:[/] {', '.join(unknown)}")
        return 2
    targets = [b for b in args.on.split(",") if b]
    plan = [
        (kind, benchmark)
        for kind in kinds
        for benchmark in (targets or CATALOGUE[kind].benchmarks[:1])
        if benchmark in CATALOGUE[kind].benchmarks
    ]
    # a benchmark whose runtime is not installed here (τ³ without .venv-tau3): its kinds are skipped, said so
    missing = {b: family_of(b).unavailable(b) for b in {b for _, b in plan}}
    for kind, benchmark in plan:
        if missing[benchmark]:
            console.print(f"[yellow]skipped[/] {kind} on {benchmark}: {missing[benchmark]}")
    plan = [(kind, benchmark) for kind, benchmark in plan if not missing[benchmark]]

    temporary = tempfile.TemporaryDirectory(prefix="babelflow-defects-") if args.keep is None else None
    root = Path(temporary.name) if temporary else args.keep.resolve()
    root.mkdir(parents=True, exist_ok=True)
    prepared: dict[str, Prepared] = {}
    table = Table(title=f"defect injection, {args.lang}, seed {args.seed}", show_lines=False)
    for column in ("kind", "benchmark", "caught", "by layers", "finding kinds", "field", "all findings I/C/F/B", "s"):
        table.add_column(column, overflow="fold")
    passed = failed = 0
    caught_lines: list[str] = []  # the first finding naming each caught defect, printed after the table
    try:
        for kind, benchmark in plan:
            if benchmark not in prepared:
                prepared[benchmark] = Prepared(benchmark, args.lang, root, console, profile=args.profile)
            base = prepared[benchmark]
            work = root / "work" / benchmark / kind
            started = time.perf_counter()
            try:
                defect, failures = base.plant(kind, work, args.seed)
            except DefectNotApplicable as exc:
                table.add_row(kind, benchmark, "[red]no[/]", "", "", f"not applicable: {exc}", "", "")
                failed += 1
                continue
            console.log(f"{benchmark}: {kind}: {defect.description[:100]}")
            hits = caught_by(failures, defect)
            seconds = time.perf_counter() - started
            layers = sorted({f.layer.value for f in hits})
            hit_kinds = Counter(f.kind for f in hits)
            field = defect.element_id or f"{defect.artifact} {defect.location}"
            per_layer = Counter(f.layer.value for f in failures.findings)
            all_findings = "/".join(
                str(per_layer[layer]) for layer in ("integrity", "consistency", "fidelity", "behavior")
            )
            table.add_row(
                kind,
                benchmark,
                "[green]yes[/]" if hits else "[red]no[/]",
                ", ".join(layers),
                ", ".join(f"{k}×{n}" if n > 1 else k for k, n in sorted(hit_kinds.items())),
                field,
                all_findings,
                f"{seconds:.1f}",
            )
            if hits:
                passed += 1
                first = hits[0]
                caught_lines.append(
                    f"{kind} on {benchmark}: {first.layer.value}/{first.kind} {first.severity.value} "
                    f"{first.artifact} @ {first.location}: {first.message}"
                )
            else:
                failed += 1
                others = Counter((f.layer.value, f.kind, f.element_id is None) for f in failures.findings)
                console.log(f"[red]missed[/] {kind} on {benchmark}: findings were {dict(others) or 'none'}")
            if args.keep is None:
                shutil.rmtree(work, ignore_errors=True)
    finally:
        out = Console(width=200)
        out.print(table)
        for line in caught_lines:
            out.print(line, markup=False, highlight=False)
        clean_ok = True
        for benchmark, base in prepared.items():
            count = len(base.clean.findings)
            # a note claims no defect (a policy of the variant, a file the harness supplies): clean means none above it
            above = [f for f in base.clean.findings if f.severity.value != "note"]
            words = {draft_english(f) for f in above}
            clean_ok &= None not in words
            summary = ", ".join(
                f"{layer}/{kind} {severity}×{n}"
                for (layer, kind, severity), n in Counter(
                    (f.layer.value, f.kind, f.severity.value) for f in base.clean.findings
                ).items()
            )
            out.print(
                f"clean {benchmark} {args.lang}: {count} findings, {len(above)} above note"
                + (f" ({summary})" if summary else "")
                + (f"; the draft's English words: {', '.join(sorted(w for w in words if w))}" if words - {None} else "")
                + f"  [prepared in {base.seconds:.0f} s]"
            )
        out.print(f"{passed} passed, {failed} failed")
        if temporary is not None:
            temporary.cleanup()
    return 0 if failed == 0 and clean_ok else 1


if __name__ == "__main__":
    sys.exit(main())
