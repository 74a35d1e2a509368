"""Clean variants of every family and language: findings by severity per variant (issue 24).

Builds each (benchmark, language) variant with the default offline translator (Apertium for es,
the pseudo-localizer for en-XA / ar-XB) into one work project, validates it on the four layers
against the source's replays (run once per benchmark) and prints one row per variant: findings
by severity and the kinds above note. A clean variant must have 0 findings above note, except the
English words an MT draft left as they were (`bench.inject_defects.draft_english`: true defects of the
draft, for its review; counted in their own column).

The IR is the checkout's saved one when current (as `babelflow validate` reads it); otherwise the
benchmark is analysed and that IR saved, as `babelflow analyze` would.

Usage: python -m bench.clean_variants [--only agentdojo-banking:es,tau2-mock:en-XA] [--family agentdojo|tau2|tau3]
                                      [--keep DIR] [--reuse] [--json FILE]
  --keep   build in DIR and keep the variants (default: a temporary folder)
  --reuse  with --keep: validate the variants already in DIR instead of rebuilding them
  --json   write every finding above note (benchmark, language, kind, severity, pattern, texts) to FILE
Exit code 0 iff every variant has 0 findings above note but its draft's English words.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from rich.console import Console
from rich.table import Table

from babelflow.adapt_request import AdaptRequest
from bench.inject_defects import draft_english

AGENTDOJO = [
    f"agentdojo-{suite}:{lang}" for suite in ("banking", "slack", "travel", "workspace") for lang in ("es", "en-XA")
]
TAU2 = [
    f"tau2-{domain}:{lang}" for domain in ("mock", "airline", "retail", "telecom") for lang in ("es", "en-XA", "ar-XB")
]
# τ³ (tau2-bench 1.x) needs its own environment (bash scripts/install.sh --tau3): in the default plan
# only when installed, and said so when not
TAU3 = [
    f"tau3-{domain}:{lang}"
    for domain in ("mock", "airline", "retail", "telecom", "banking_knowledge")
    for lang in ("es", "en-XA", "ar-XB")
]
SEVERITIES = ("critical", "major", "minor", "note")


def _arguments(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="", help="comma-separated benchmark:lang pairs (default: all)")
    parser.add_argument("--family", choices=("agentdojo", "tau2", "tau3"), default=None)
    parser.add_argument("--keep", type=Path, default=None)
    parser.add_argument("--reuse", action="store_true")
    parser.add_argument("--json", type=Path, default=None)
    return parser.parse_args(argv)


def _plan(args: argparse.Namespace, console: Console) -> list[tuple[str, str]]:
    from source_benchmarks.tau3.runtime import find_runtime

    runtime = find_runtime()  # a Tau3Runtime, or why there is none
    tau3 = TAU3 if not isinstance(runtime, str) else []
    if not tau3 and (args.family == "tau3" or args.family is None):
        console.log(f"τ³ variants skipped: {runtime}")
    pairs = [p for p in args.only.split(",") if p] or {"agentdojo": AGENTDOJO, "tau2": TAU2, "tau3": tau3}.get(
        args.family or "", AGENTDOJO + TAU2 + tau3
    )
    return [(p.rsplit(":", 1)[0], p.rsplit(":", 1)[1]) for p in pairs]


def main(argv: list[str] | None = None) -> int:
    from babelflow.settings import BabelflowSettings, apply_offline_environment
    from flows.components import analyze_or_reuse
    from flows.pipeline.adapt import adapt
    from source_benchmarks import get_benchmark
    from validators.probes.behavior import replay_pairs_of
    from validators.run import validate_variant, variant_context

    args = _arguments(sys.argv[1:] if argv is None else argv)
    apply_offline_environment()
    console = Console(stderr=True)
    temporary = tempfile.TemporaryDirectory(prefix="babelflow-clean-") if args.keep is None else None
    root = Path(temporary.name) if temporary else args.keep.resolve()
    settings = BabelflowSettings(project_root=root / "project")
    table = Table(title="clean variants: findings by severity (default offline translators)")
    for column in (
        "benchmark",
        "lang",
        "build s",
        "validate s",
        *SEVERITIES,
        "draft's English words",
        "above note by kind",
        "notes by kind",
    ):
        table.add_column(column, overflow="fold")
    dumped: list[dict] = []
    clean = True
    irs: dict[str, object] = {}
    pairs: dict[str, dict] = {}
    try:
        for benchmark_id, language in _plan(args, console):
            source = get_benchmark(benchmark_id)
            if benchmark_id not in irs:
                irs[benchmark_id] = analyze_or_reuse(
                    source, None, BabelflowSettings().layout.ir(benchmark_id), console.log
                )
            ir = irs[benchmark_id]
            started = time.perf_counter()
            variant = settings.layout.variant(benchmark_id, language)
            if not (args.reuse and variant.is_dir()):
                console.log(f"{benchmark_id} {language}: adapting")
                variant = adapt(AdaptRequest.of_options(benchmark_id, language), settings=settings, ir=ir).paths.variant  # type: ignore[arg-type]
            build = time.perf_counter() - started
            if benchmark_id not in pairs:
                console.log(f"{benchmark_id}: replaying the source once")
                pairs[benchmark_id] = replay_pairs_of(source, source.task_ids(None), "source replays")
            console.log(f"{benchmark_id} {language}: validating")
            started = time.perf_counter()
            # the variant carries the canonical map it was built with: validate_variant reads it there
            failures = validate_variant(
                variant_context(source, variant, ir, language, source_pairs=pairs[benchmark_id])
            )  # type: ignore[arg-type]
            seconds = time.perf_counter() - started
            counts = Counter(f.severity.value for f in failures.findings)
            above = [f for f in failures.findings if f.severity.value != "note"]
            drafts = [f for f in above if draft_english(f)]
            clean &= len(drafts) == len(above)
            kinds = Counter(f"{f.layer.value}/{f.kind}" for f in above)
            notes = Counter(f"{f.layer.value}/{f.kind}" for f in failures.findings if f.severity.value == "note")
            row = (
                benchmark_id,
                language,
                f"{build:.1f}",
                f"{seconds:.1f}",
                *(str(counts[s]) for s in SEVERITIES),
                str(len({draft_english(f) for f in drafts})),
                ", ".join(f"{k}×{n}" for k, n in kinds.most_common()),
                ", ".join(f"{k}×{n}" for k, n in notes.most_common()),
            )
            table.add_row(*row)
            console.log(" | ".join(row))  # as it comes: a full run takes a while
            for f in above:
                evidence = f.evidence[0] if f.evidence else None
                dumped.append(
                    {
                        "benchmark": benchmark_id,
                        "language": language,
                        "layer": f.layer.value,
                        "kind": f.kind,
                        "severity": f.severity.value,
                        "artifact": f.artifact,
                        "location": f.location,
                        "pattern": f.pattern,
                        "message": f.message,
                        "source": evidence.source if evidence else None,
                        "target": evidence.target if evidence else None,
                    }
                )
    finally:
        Console(width=200).print(table)
        if args.json is not None:
            args.json.write_text(json.dumps(dumped, ensure_ascii=False, indent=1), encoding="utf-8")
        if temporary is not None:
            temporary.cleanup()
    return 0 if clean else 1


if __name__ == "__main__":
    sys.exit(main())
