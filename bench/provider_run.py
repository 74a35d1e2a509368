"""Keyed runs against a loopback provider that behaves like a real one (issue 42, first part: translation).

The provider is the strict three-protocol fake of the provider tests (tests/translators/providers/fakes.py)
with a `Pace`: latency drawn from a log-normal (median 1.5 s, p95 6 s for a 400-token reply, proportional
to a reply's tokens), a requests- and tokens-per-minute limit answered with 429 and Retry-After (DashScope's
without), and server errors and timeouts at given rates. Everything stays on 127.0.0.1, through the
official SDKs, as a user's run goes.

For each configuration it runs the user's command in a fresh project whose IR is analysed beforehand:

    babelflow adapt tau2-DOMAIN --lang zh-Hans --translator dashscope:qwen3-32b?timeout=…

and prints the wall time, the span of model calls, calls (answered, 429, server errors, timeouts), tokens,
and the lower bound of that span: the calls are independent, so the bound is the larger of the answered
calls' summed latency over the allowed concurrency (at least the longest one) and what the limits allow
(the requests or tokens beyond one minute's allowance, at the limit's rate). The ratio span / bound is
the measure; the rest of the wall time is babelflow's own work (protection, rebuild, checks).

    python -m bench.provider_run [--domain retail] [--rpm 0] [--tpm 0] [--errors 0] [--timeouts 0]
                                 [--concurrency 4] [--median 1.5] [--p95 6] [--seed 0]
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "translators" / "providers"))  # the strict fakes and their wire rules

from fakes import KEYS, MODELS, FakeLLMServer, Pace  # noqa: E402

LANGUAGE = "zh-Hans"


def _env(project: Path, server: FakeLLMServer | None) -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.endswith(("_API_KEY", "_BASE_URL")) and "PROXY" not in key.upper()
    }
    env |= {"BABELFLOW_PROJECT_ROOT": str(project), "PYTHONPATH": str(ROOT), "DO_NOT_TRACK": "1"}
    env |= {"PREFECT_SERVER_ANALYTICS_ENABLED": "false", "NO_PROXY": "127.0.0.1,localhost"}
    if server is not None:
        env |= {"DASHSCOPE_API_KEY": KEYS["dashscope"], "DASHSCOPE_HTTP_BASE_URL": server.base_urls()["dashscope"]}
    return env


def _cli(project: Path, server: FakeLLMServer | None, *args: str) -> tuple[subprocess.CompletedProcess, float]:
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "flows.cli.app", *args],
        cwd=project,
        env=_env(project, server),
        capture_output=True,
        text=True,
        check=False,
    )
    return done, time.perf_counter() - started


def lower_bound(latencies: list[float], tokens: list[int], concurrency: int, rpm: int, tpm: int) -> float:
    """The least span in which these independent calls could be answered: their summed latency over the
    allowed concurrency (at least the longest), and what the per-minute limits allow beyond the first minute."""
    if not latencies:
        return 0.0
    work = max(sum(latencies) / concurrency, max(latencies))
    by_requests = (len(latencies) - rpm) / rpm * 60.0 if rpm and len(latencies) > rpm else 0.0
    by_tokens = (sum(tokens) - tpm) / tpm * 60.0 if tpm and sum(tokens) > tpm else 0.0
    return max(work, by_requests, by_tokens)


def run(args: argparse.Namespace) -> dict[str, float | int | str]:
    benchmark = f"tau2-{args.domain}"
    project = Path(tempfile.mkdtemp(prefix="babelflow-provider-run-"))
    done, seconds = _cli(project, None, "adapt", benchmark, "--lang", "en-XA")  # the analysis, once, unkeyed
    if done.returncode not in (0, 1):
        raise SystemExit(f"warm-up adapt exited {done.returncode}:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    pace = Pace(
        median_s=args.median,
        p95_s=args.p95,
        rpm=args.rpm,
        tpm=args.tpm,
        error_rate=args.errors,
        timeout_rate=args.timeouts,
        timeout_s=args.client_timeout + 5,
        seed=args.seed,
    )
    options = f"timeout={args.client_timeout}&concurrency={args.concurrency}"
    with FakeLLMServer(KEYS) as server:
        server.state.pace = pace
        spec = f"dashscope:{MODELS['dashscope']}?{options}"
        done, wall = _cli(project, server, "adapt", benchmark, "--lang", LANGUAGE, "--translator", spec)
        seen = [s for s in server.state.seen if s.task == "translate"]
    if done.returncode not in (0, 1):
        raise SystemExit(f"keyed adapt exited {done.returncode}:\n{done.stdout[-3000:]}{done.stderr[-3000:]}")
    answered = [s for s in seen if s.status == 200 and s.usage]
    latencies = [s.answered - s.at for s in answered]
    tokens = [sum(s.usage or (0, 0)) for s in answered]
    span = max((s.answered for s in answered), default=0.0) - min((s.at for s in seen), default=0.0)
    bound = lower_bound(latencies, tokens, args.concurrency, args.rpm, args.tpm)
    if args.timeline:  # when each call started and how long it took: where the span goes
        first = min(s.at for s in seen)
        for s in sorted(seen, key=lambda s: s.at):
            took = (s.answered - s.at) if s.answered else 0.0
            print(f"{s.at - first:7.2f} s  +{took:5.2f} s  {len(s.segment_ids):3d} segments  {s.fault or s.status}")
    return {
        "domain": args.domain,
        "limits": f"rpm {args.rpm or '∞'}, tpm {args.tpm or '∞'}",
        "faults": f"{args.errors:.0%} 5xx, {args.timeouts:.0%} timeouts",
        "wall_s": round(wall, 1),
        "span_s": round(span, 1),
        "bound_s": round(bound, 1),
        "ratio": round(span / bound, 2) if bound else math.nan,
        "answered": len(answered),
        "limited": sum(s.fault == "429" for s in seen),
        "errors": sum(s.fault in ("500", "overloaded") for s in seen),
        "timeouts": sum(s.fault == "timeout" for s in seen),
        "tokens": sum(tokens),
        "median_latency_s": round(statistics.median(latencies), 2) if latencies else 0.0,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--domain", default="retail")
    parser.add_argument("--rpm", type=int, default=0)
    parser.add_argument("--tpm", type=int, default=0)
    parser.add_argument("--errors", type=float, default=0.0)
    parser.add_argument("--timeouts", type=float, default=0.0)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--median", type=float, default=1.5)
    parser.add_argument("--p95", type=float, default=6.0)
    parser.add_argument("--client-timeout", type=float, default=20.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timeline", action="store_true", help="print each call's start, duration and size")
    row = run(parser.parse_args())
    table = Table(title="keyed translation against a paced loopback provider")
    for key in row:
        table.add_column(key)
    table.add_row(*(str(v) for v in row.values()))
    Console(width=200).print(table)


if __name__ == "__main__":
    main()
