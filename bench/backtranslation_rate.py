"""How often the Apertium back-translation agent raises a unit of a clean variant, and whether it
catches a planted one (issue #18).

For each benchmark: adapt it into Spanish offline (Apertium eng-spa, the default for ``es``),
back-translate every unit the agent reads with spa-eng and score it (validators/backtranslation.py);
print the share of units raised (goal: under 5% on clean variants), the chrF distribution and
the lowest-scoring units. Then replace one task field with a fluent but unrelated Spanish
sentence and check that exactly that field is raised.

Usage: python -m bench.backtranslation_rate [--benchmarks tau2-mock,tau2-retail] [--lowest 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import orjson

from babelflow.adapt_request import AdaptRequest

UNRELATED = "El tiempo en Madrid será soleado durante todo el fin de semana, con temperaturas suaves por la tarde."


def plant(variant_dir: Path, ir, unit) -> None:
    """Write UNRELATED into the variant at the unit's JSON locator."""
    element = ir.by_id()[unit.unit_id]
    path = variant_dir / element.artifact
    document = orjson.loads(path.read_bytes())
    node = document
    for segment in element.locator.path[:-1]:
        node = node[segment]
    node[element.locator.path[-1]] = UNRELATED
    path.write_bytes(orjson.dumps(document, option=orjson.OPT_INDENT_2))


def measure(benchmark_id: str, root: Path, lowest: int) -> dict:
    from analyzers.analyze import analyze_benchmark
    from babelflow.settings import BabelflowSettings
    from flows.pipeline.adapt import adapt
    from source_benchmarks import get_benchmark
    from validators.backtranslation import THRESHOLD, BacktranslationAgent
    from validators.context import ValidationContext

    source = get_benchmark(benchmark_id)
    ir = analyze_benchmark(source)
    result = adapt(
        AdaptRequest.of_options(benchmark_id, "es"), settings=BabelflowSettings(project_root=root / benchmark_id), ir=ir
    )
    agent = BacktranslationAgent()
    started = time.perf_counter()
    scores = agent.score(ValidationContext(source, result.paths.variant, ir, "es"), [])
    seconds = time.perf_counter() - started
    if scores is None:
        raise SystemExit(
            "no Apertium spa-eng pair installed (scripts/install.sh installs apertium-eng-spa, which has both "
            "directions)"
        )
    raised = [s for s in scores if s.divergent]
    print(
        f"\n{benchmark_id} (es, clean): {len(raised)}/{len(scores)} units raised = "
        f"{100 * len(raised) / len(scores):.2f}% "
        f"(goal < 5%); chrF median {statistics.median(s.chrf for s in scores):.1f}, lowest "
        f"{min(s.chrf for s in scores):.1f}; "
        f"back-translation {seconds:.1f} s"
    )
    for s in sorted(scores, key=lambda s: s.chrf)[:lowest]:
        print(
            f"  chrF {s.chrf:5.1f} {'RAISED ' if s.divergent else ''}{s.unit.source[:70]!r} -> "
            f"{s.back_translation[:70]!r}" + (f" lost {s.missing}" if s.missing else "")
        )

    task_fields = [
        s.unit
        for s in scores
        if s.unit.task_id is not None and s.unit.role.endswith(("reason_for_call", "task_instructions", "instructions"))
    ]
    target = task_fields[len(task_fields) // 2]
    plant(result.paths.variant, ir, target)
    planted = agent.score(ValidationContext(source, result.paths.variant, ir, "es"), [])
    hit = [s for s in planted if s.divergent and s.unit.unit_id == target.unit_id]
    others = {s.unit.unit_id for s in planted if s.divergent} - {target.unit_id}
    print(
        f"  planted unrelated sentence in task {target.task_id} {target.role}: {'RAISED' if hit else 'MISSED'}"
        + (f" (chrF {hit[0].chrf:g})" if hit else "")
        + f"; other units raised {len(others)} (clean run: {len(raised)})"
    )
    return {
        "benchmark": benchmark_id,
        "units": len(scores),
        "raised": len(raised),
        "rate": len(raised) / len(scores),
        "planted_raised": bool(hit),
        "threshold": THRESHOLD,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--benchmarks", default="tau2-mock,tau2-retail")
    parser.add_argument("--lowest", type=int, default=5, help="print the N lowest-scoring units of each variant")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    from babelflow.settings import apply_offline_environment

    apply_offline_environment()
    rows = []
    with tempfile.TemporaryDirectory(prefix="babelflow-bt-") as tmp:
        for benchmark_id in [b for b in args.benchmarks.split(",") if b]:
            rows.append(measure(benchmark_id, Path(tmp), args.lowest))
    print("\n| benchmark | units | raised (clean) | rate | planted unit raised |\n|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['benchmark']} | {r['units']:,} | {r['raised']} | {100 * r['rate']:.2f}% | "
            f"{'yes' if r['planted_raised'] else 'NO'} |"
        )
    return 0 if all(r["rate"] < 0.05 and r["planted_raised"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
