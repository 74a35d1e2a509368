"""τ²'s own evaluator on every task: does a built variant score exactly as its source? (issue 23)

    python -m bench.evaluator_agreement [--domains tau2-mock,tau2-airline,tau2-retail,tau2-telecom]
        --lang es [--lang en-XA ...] [--json FILE] [--source-dir DIR]

Run it in the project folder whose adapted/ holds the variants (an adopted variant's too, with the
--source-dir it was adopted against).

For every task of each domain (telecom: all 2,285), on the source and on each built variant
(adapted/<benchmark>/<lang>, as `babelflow adapt` leaves it; the variant is registered in τ²'s
registry as its own domain, e.g. retail_es, with its translated tasks, DB and code overlay):

- golden reward: the task's gold actions executed in τ²'s environment (the golden trajectory, its
  communicate_info said by the agent at the end), scored by τ²'s stock
  `evaluate_simulation(..., EvaluationType.ALL)`;
- do-nothing reward: the same evaluator on the task's initial message history alone ('crash' when
  τ²'s evaluator raises on it, as mock's assert_task_status does: the variant must crash too);
- tool-error sequence: (tool name, error flag) of every gold action's response, in order.

A task agrees when all three equal the source's. Nothing here is babelflow's own scoring: the
replays are τ²'s environment and evaluator; babelflow only opens the variant's files.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import Field
from rich.console import Console
from rich.table import Table

from babelflow.ir import Record
from babelflow.settings import BabelflowSettings, apply_offline_environment

DOMAINS = ("tau2-mock", "tau2-airline", "tau2-retail", "tau2-telecom")


class TaskScore(Record):
    golden: float | str
    nothing: float | str
    tool_errors: list[tuple[str, bool]]


class Agreement(Record):
    benchmark: str
    language: str
    tasks: int
    golden_agree: int
    nothing_agree: int
    tool_errors_agree: int
    all_agree: int
    disagreements: dict[str, list[str]] = Field(default_factory=dict, description="task id -> what differs")
    source_seconds: float
    variant_seconds: float


def _score_all(bench: Any, domain: str, progress: Callable[[str], None]) -> dict[str, TaskScore]:
    from tau2.data_model.simulation import SimulationRun, TerminationReason
    from tau2.evaluator.evaluator import EvaluationType, evaluate_simulation

    from source_benchmarks.tau_common.replay import golden_trajectory

    def evaluate(task: Any, messages: list[Any]) -> float | str:
        run = SimulationRun(
            id="agreement",
            task_id=task.id,
            start_time="",
            end_time="",
            duration=0.0,
            termination_reason=TerminationReason.AGENT_STOP,
            messages=messages,
        )
        try:
            return evaluate_simulation(run, task, EvaluationType.ALL, solo_mode=False, domain=domain).reward
        except Exception as exc:  # τ²'s evaluator raising is an outcome the variant must share
            return f"crash: {type(exc).__name__}"

    scores: dict[str, TaskScore] = {}
    ids = bench.task_ids(None)
    for n, task_id in enumerate(ids, 1):
        task = bench.task(task_id)
        try:
            messages, records, _ = golden_trajectory(task, bench.environment_factory, task_id, None)
        except Exception as exc:
            scores[task_id] = TaskScore(golden=f"crash: {type(exc).__name__}", nothing="-", tool_errors=[])
            continue
        history = list(task.initial_state.message_history or []) if task.initial_state else []
        scores[task_id] = TaskScore(
            golden=evaluate(task, messages),
            nothing=evaluate(task, history),
            tool_errors=[(r.name, bool(r.error)) for r in records],
        )
        if n % 250 == 0:
            progress(f"{n}/{len(ids)} tasks")
    return scores


def compare(
    benchmark: str,
    language: str,
    source: dict[str, TaskScore],
    variant_dir: Path,
    console: Console,
    source_seconds: float = 0.0,
) -> Agreement:
    from source_benchmarks import open_variant
    from source_benchmarks.tau_common.registration import register_variant

    started = time.perf_counter()
    domain = register_variant(variant_dir)
    variant = open_variant(benchmark, variant_dir)
    target = _score_all(variant, domain, _logger(console, f"{benchmark} {language}"))
    result = Agreement(
        benchmark=benchmark,
        language=language,
        tasks=len(source),
        golden_agree=0,
        nothing_agree=0,
        tool_errors_agree=0,
        all_agree=0,
        source_seconds=source_seconds,
        variant_seconds=0.0,
    )
    for task_id, s in source.items():
        t = target.get(task_id)
        if t is None:
            result.disagreements[task_id] = ["missing in the variant"]
            continue
        differs = []
        if s.golden == t.golden:
            result.golden_agree += 1
        else:
            differs.append(f"golden reward {s.golden} -> {t.golden}")
        if s.nothing == t.nothing:
            result.nothing_agree += 1
        else:
            differs.append(f"do-nothing reward {s.nothing} -> {t.nothing}")
        if s.tool_errors == t.tool_errors:
            result.tool_errors_agree += 1
        else:
            differs.append(
                "tool errors "
                + " ".join(f"{n}{'!' if e else ''}" for n, e in s.tool_errors)
                + " -> "
                + " ".join(f"{n}{'!' if e else ''}" for n, e in t.tool_errors)
            )
        if differs:
            result.disagreements[task_id] = differs
        else:
            result.all_agree += 1
    result.variant_seconds = time.perf_counter() - started
    return result


def _logger(console: Console, prefix: str) -> Callable[[str], None]:
    return lambda line: console.log(f"{prefix}: {line}")


def run(domains: list[str], languages: list[str], console: Console, source_dir: Path | None = None) -> list[Agreement]:
    from source_benchmarks import get_benchmark

    apply_offline_environment()
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    from loguru import logger

    logger.disable("tau2")
    layout = BabelflowSettings().layout
    results = []
    for benchmark in domains:
        variants = {lang: layout.variant(benchmark, lang) for lang in languages}
        missing = [str(p) for p in variants.values() if not p.is_dir()]
        if missing:
            raise SystemExit(f"no variant at {', '.join(missing)}: build it with babelflow adapt {benchmark} --lang L")
        started = time.perf_counter()
        bench = get_benchmark(benchmark, source_dir=source_dir)
        source = _score_all(bench, benchmark.removeprefix("tau2-"), _logger(console, benchmark))
        seconds = time.perf_counter() - started
        for lang, variant_dir in variants.items():
            result = compare(benchmark, lang, source, variant_dir, console, seconds)
            console.log(
                f"{benchmark} {lang}: {result.all_agree}/{result.tasks} agree "
                f"(source {seconds:.0f} s, variant {result.variant_seconds:.0f} s)"
            )
            results.append(result)
    return results


def render(results: list[Agreement], console: Console, shown: int = 5) -> None:
    table = Table(title="τ²'s own evaluator: variant vs source on every task")
    for column in ("domain", "lang", "tasks", "golden reward", "do-nothing reward", "tool-error sequence", "all"):
        table.add_column(column, justify="left" if column in ("domain", "lang") else "right")
    for r in results:
        table.add_row(
            r.benchmark,
            r.language,
            str(r.tasks),
            f"{r.golden_agree}/{r.tasks}",
            f"{r.nothing_agree}/{r.tasks}",
            f"{r.tool_errors_agree}/{r.tasks}",
            f"{r.all_agree}/{r.tasks}",
        )
    console.print(table)
    for r in results:
        for task_id, differs in list(r.disagreements.items())[:shown]:
            console.print(f"  {r.benchmark} {r.language} task {task_id}: {'; '.join(differs)[:300]}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.evaluator_agreement", description=__doc__.split("\n")[0])
    parser.add_argument("--domains", default=",".join(DOMAINS))
    parser.add_argument("--lang", action="append", required=True)
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument(
        "--source-dir", type=Path, default=None, help="the source's data folder, as given to adapt/adopt --source-dir"
    )
    args = parser.parse_args(argv)
    results = run([d for d in args.domains.split(",") if d], args.lang, Console(stderr=True), args.source_dir)
    render(results, Console(width=160))
    if args.json:
        args.json.write_text("[" + ",".join(r.model_dump_json() for r in results) + "]")
    return 0 if all(r.all_agree == r.tasks for r in results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
