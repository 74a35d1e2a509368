"""Analysis of all four tau2 domains, side by side in one run: the analysis before issue 13 (plain
golden replay), the instrumented + differential analysis with a cold cache, the same again with the
cache it left (an unchanged source), and tau2's own golden replay + scoring. Per domain: the share
of Preserve fields with runtime evidence and of types the profile alone decides.

Each measurement runs in a fresh subprocess (python -m bench.analysis_speed_worker) so peak RSS
belongs to that work alone.
Usage: python -m bench.analysis_speed [--skip-stock]
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time

DOMAINS = ("tau2-mock", "tau2-airline", "tau2-retail", "tau2-telecom")


def run(mode: str, cache: str) -> dict:
    env = {
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "PATH": "/usr/bin:/bin",
        "HOME": "/tmp",
        "BABELFLOW_ANALYSIS_CACHE": cache,
        "DO_NOT_TRACK": "1",
    }
    out = subprocess.run(
        [sys.executable, "-m", "bench.analysis_speed_worker", mode, *DOMAINS],
        check=True,
        capture_output=True,
        text=True,
        env=env,
        cwd=os.getcwd(),
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    from rich.console import Console
    from rich.table import Table

    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="babelflow-analysis-cache-") as cache:
        before = run("replay", cache)
        cold = run("traced", cache)
        warm = run("traced", cache)
    stock = None if "--skip-stock" in sys.argv else run("stock", cache)
    table = Table(
        title=(
            "tau2 analysis, one run on this machine: before issue 13 vs instrumented + differential (cold, then "
            "unchanged source)"
        )
    )
    for column in (
        "benchmark",
        "tasks",
        "IR elements",
        "before s",
        "traced cold s",
        "traced warm s",
        "stock replay s",
        "Preserve w/ runtime evidence",
        "perturbed, no role",
        "profile alone decides",
    ):
        table.add_column(column, justify="right")
    rows = {
        name: {r["benchmark"]: r for r in result["rows"]}
        for name, result in (("before", before), ("warm", warm), ("stock", stock or {"rows": []}))
    }
    preserve = runtime = elements = profile_only = 0
    for row in cold["rows"]:
        name = row["benchmark"]
        other = rows["stock"].get(name)
        preserve, runtime, elements, profile_only = (
            preserve + row["preserve"],
            runtime + row["runtime"],
            elements + row["elements"],
            profile_only + row["profile_only"],
        )
        table.add_row(
            name,
            str(row["tasks"]),
            f"{row['elements']:,}",
            f"{rows['before'][name]['seconds']:.1f}",
            f"{row['seconds']:.1f}",
            f"{rows['warm'][name]['seconds']:.1f}",
            f"{other['seconds']:.1f}" if other else "-",
            f"{100 * row['runtime'] / max(1, row['preserve']):.1f}% of {row['preserve']:,}",
            f"{row['no_role']:,}",
            f"{100 * row['profile_only'] / max(1, row['elements']):.2f}% ({row['profile_only']:,})",
        )
    table.add_row(
        "all four",
        "",
        f"{elements:,}",
        f"{before['total']:.1f}",
        f"{cold['total']:.1f}",
        f"{warm['total']:.1f}",
        f"{stock['total']:.1f}" if stock else "-",
        f"{100 * runtime / max(1, preserve):.1f}%",
        "",
        f"{100 * profile_only / max(1, elements):.2f}%",
    )
    Console(width=220).print(table)
    print(
        f"share of types decided by the profile alone: {100 * profile_only / max(1, elements):.2f}% ({profile_only:,} "
        f"of {elements:,} elements)"
    )
    print(
        f"Preserve fields with runtime evidence (traced or differential): {100 * runtime / max(1, preserve):.1f}% "
        f"({runtime:,} of {preserve:,}; target >= 90%)"
    )
    print(
        f"instrumented + differential / before, cold cache: {cold['total'] / before['total']:.2f}x (target <= 10x); "
        f"unchanged source (warm cache): {warm['total'] / before['total']:.2f}x"
    )
    print(
        f"peak RSS: before {before['peak_rss_mb']:.0f} MB, traced cold {cold['peak_rss_mb']:.0f} MB, warm "
        f"{warm['peak_rss_mb']:.0f} MB"
    )
    if stock:
        print(f"stock replay: {stock['total']:.1f} s, peak RSS {stock['peak_rss_mb']:.0f} MB")
    print(f"bench wall: {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
