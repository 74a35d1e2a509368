"""What the agent reads in tool results on a localized variant: target-language text, or \\uXXXX escapes.

Runs the scripted agent and user (`babelflow evaluate ... --agent-llm scripted`) on a variant twice,
each in its own process: as babelflow registers it (tool results re-dumped with non-ASCII kept as
text), and with that switched off (the stock harness's json.dumps). Counts the tool results that
carry non-ASCII text as text and those that carry it escaped, and checks the rewards agree.

Usage: python -m bench.tool_output_text PROJECT_ROOT BENCHMARK LANG [--tasks N]
(the variant must exist: `babelflow adapt BENCHMARK --lang LANG` in PROJECT_ROOT)
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

from babelflow.adapt_request import AgentRunRequest, EvaluationRequest

ESCAPED = re.compile(r"\\u(?:[0-9a-fA-F]{4})")


def child(project: Path, benchmark: str, language: str, tasks: int, plain: bool) -> None:
    from babelflow.settings import BabelflowSettings
    from flows.evaluation.evaluate import evaluate, runner_of
    from source_benchmarks import family_of

    module = sys.modules[type(family_of(benchmark)).__module__]
    module.PLAIN_TOOL_OUTPUT = plain  # the family's switch (tau2: source_benchmarks/tau2/family.py)
    settings = BabelflowSettings(project_root=project)
    run = runner_of(benchmark).prepare(benchmark, language, settings.layout.variant(benchmark, language))
    report = evaluate(
        AgentRunRequest(
            benchmark=benchmark,
            language=language,
            models=EvaluationRequest(agent="scripted", user="scripted"),
            task_ids=run.task_ids[:tasks],
        ),
        settings=settings,
    )
    texts = [
        turn["text"]
        for line in report.trajectories.read_text().splitlines()
        for turn in json.loads(line)["record"]["turns"]
        if turn["role"] == "tool"
    ]
    print(
        json.dumps(
            {
                "tool_results": len(texts),
                "non_ascii_as_text": sum(not t.isascii() for t in texts),
                "escaped": sum(bool(ESCAPED.search(t)) for t in texts),
                "rewards": [t.rewards for t in report.variant_run.tasks],
            }
        )
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("project", type=Path)
    parser.add_argument("benchmark")
    parser.add_argument("language")
    parser.add_argument("--tasks", type=int, default=20)
    parser.add_argument("--child", choices=("plain", "escaped"))
    args = parser.parse_args()
    if args.child:
        child(args.project, args.benchmark, args.language, args.tasks, args.child == "plain")
        return
    env = {**os.environ, "DO_NOT_TRACK": "1", "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    results = {}
    for mode in ("plain", "escaped"):
        started = time.perf_counter()
        out = (
            subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "bench.tool_output_text",
                    str(args.project),
                    args.benchmark,
                    args.language,
                    "--tasks",
                    str(args.tasks),
                    "--child",
                    mode,
                ],
                check=True,
                capture_output=True,
                text=True,
                env=env,
            )
            .stdout.strip()
            .splitlines()[-1]
        )
        results[mode] = json.loads(out)
        results[mode]["wall_s"] = round(time.perf_counter() - started, 1)
    plain, escaped = results["plain"], results["escaped"]
    print(f"{args.benchmark} {args.language}, {args.tasks} tasks, scripted agent and user:")
    for mode, row in results.items():
        print(
            f"  {mode:8} tool results {row['tool_results']:4}  with target text as text {row['non_ascii_as_text']:4}"
            f"  escaped {row['escaped']:4}  ({row['wall_s']} s)"
        )
    print(f"  rewards equal: {plain['rewards'] == escaped['rewards']}")


if __name__ == "__main__":
    main()
