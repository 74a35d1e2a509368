"""What the simulated user and the agent read from the code's own texts on a variant (issue 38).

Replays the golden actions of N tasks on the source and on the variant (τ²'s own device and agent tools,
the variant's code overlay applied by its harness), reads every source tool output a code text with slots
made back through that text (nested messages too: a toggle's message inside the status-bar template), and
counts, in the variant's output of the same call, raw slot syntax and slot values that did not arrive.

Usage: python -m bench.rendered_outputs [VARIANT_DIR] [--benchmark tau2-telecom] [--tasks 20]
VARIANT_DIR defaults to adapted/<benchmark>/es (`babelflow adapt tau2-telecom --lang es` makes it).
Exit 0 iff no call shows raw slot syntax or loses a value.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

from rich.console import Console
from rich.table import Table


def main(argv: list[str] | None = None) -> int:
    from babelflow.settings import apply_offline_environment
    from babelflow.variant import OVERLAY_NAME, load_overlay
    from source_benchmarks import get_benchmark, open_variant
    from source_benchmarks.message_catalog import MessageCatalog
    from validators.map_parity import Renderings
    from validators.probes.rendered_outputs import rendered_call

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("variant", type=Path, nargs="?")
    parser.add_argument("--benchmark", default="tau2-telecom")
    parser.add_argument("--tasks", type=int, default=20)
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    apply_offline_environment()
    console = Console()
    variant_dir = args.variant or Path("adapted") / args.benchmark / "es"
    overlay = load_overlay(variant_dir / OVERLAY_NAME)
    if overlay is None:
        console.print(f"[red]{variant_dir} has no code overlay[/]: run `babelflow adapt {args.benchmark} --lang es`")
        return 2
    source = get_benchmark(args.benchmark)
    variant = open_variant(args.benchmark, variant_dir)
    ids = source.task_ids(None)[: args.tasks]
    expected = {g.task_id: g for g in source.replay_golden(ids, label="source")}
    observed = {g.task_id: g for g in variant.replay_golden(ids, label=f"{overlay.language} variant")}
    catalog = MessageCatalog.of_overlay(overlay)
    counts: Counter[str] = Counter()
    templates: Counter[str] = Counter()
    broken = []
    for task_id in ids:
        for theirs, ours in zip(expected[task_id].tool_calls, observed[task_id].tool_calls):
            counts["tool calls"] += 1
            counts[f"tool calls by the {theirs.requestor}"] += 1
            call = rendered_call(theirs.output, ours.output, catalog, Renderings())
            if call is None:
                continue
            counts["made by code texts with slots"] += 1
            counts[f"made by code texts with slots, {theirs.requestor}"] += 1
            counts["slot values checked"] += sum(len(f.values) for f in call.fills)
            templates.update(f.source for f in call.fills)
            counts["calls with raw slot syntax"] += bool(call.raw_slots)
            counts["calls that lost a slot value"] += bool(call.lost_values)
            if call.raw_slots or call.lost_values:
                broken.append((task_id, call))
    table = Table(title=f"{args.benchmark} → {overlay.language}: {len(ids)} tasks' golden calls")
    table.add_column("what")
    table.add_column("count", justify="right")
    for name in sorted(counts):
        table.add_row(name, str(counts[name]))
    table.add_row("distinct code texts rendered", str(len(templates)))
    console.print(table)
    for source_text, n in templates.most_common():
        console.print(f"  {n:5d}× {source_text[:100]!r}")
    for task_id, call in broken[:10]:
        console.print(
            f"[red]task {task_id}[/]: {call.raw_slots} {call.lost_values}\n  {call.source!r}\n  {call.target!r}"
        )
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
