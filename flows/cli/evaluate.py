"""`babelflow evaluate`: run agents on a variant through its family's own runner (flows/evaluation/evaluate.py)."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

from babelflow.adapt_request import AgentRunRequest, EvaluationRequest
from flows.cli.common import cli_errors, console, status_line
from flows.cli.options import BENCHMARK, LANG, Declared, takes

results = Console()  # results on stdout; progress and errors stay on stderr (flows/cli/common.console)


def _share(value: float | None) -> str:
    return "—" if value is None else f"{value:.0%}"


def _rewards(rewards: list[float]) -> str:
    return " ".join(f"{r:g}" for r in rewards) or "— (unscored)"


def _summary_rows(table: Table, label: str, run) -> None:
    passes = "  ".join(f"pass^{k} {v:.2f}" for k, v in sorted(run.pass_hat_k.items()))
    table.add_row(
        label,
        run.domain,
        "—" if run.average_reward is None else f"{run.average_reward:.3f}",
        _share(run.utility_rate),
        _share(run.attack_success_rate),
        passes,
        _share(run.language_consistency),
        _share(run.user_language_consistency),
    )


def _taxonomy_table(report) -> Table:
    from flows.evaluation.taxonomy import FailureClass  # noqa: PLC0415 - with the engine, off --help

    table = Table(title="failure taxonomy (occurrences in the models' turns and tool calls)")
    table.add_column("class")
    table.add_column(report.language, justify="right")
    if report.source_run:
        table.add_column(f"source ({report.source_run.language})", justify="right")
    for failure in FailureClass:
        row = [failure.value, str(report.variant_run.failures.get(failure, 0))]
        if report.source_run:
            row.append(str(report.source_run.failures.get(failure, 0)))
        table.add_row(*row)
    return table


AGENT_RUN = (
    BENCHMARK,
    LANG,
    Declared(
        "agent_llm",
        str,
        typer.Option(
            ...,
            "--agent-llm",
            help="The agent's model: openai:MODEL, anthropic:MODEL, dashscope:MODEL or openai-compatible:MODEL@URL; "
            "`scripted` plays the gold actions and answers in the variant's language, offline (measures no model); "
            "scripted:english|mixed|digits|translated-argument misbehave on purpose (the failure taxonomy's classes).",
        ),
    ),
    Declared(
        "user_llm",
        str,
        typer.Option(
            ..., "--user-llm", help="The user simulator's model (same grammar; `scripted`: the task's first line)."
        ),
    ),
    Declared(
        "judge_llm",
        str,
        typer.Option(
            "",
            "--judge-llm",
            help="The judge's model (same grammar), where the benchmark scores by a model's reading: VitaBench's "
            "rubric judge. Without it a VitaBench trial runs but is not scored (reward —).",
        ),
    ),
    Declared("trials", int, typer.Option(1, "--trials", "-k", help="Trials per task (pass^1..pass^k).")),
    Declared(
        "tasks",
        list[str],
        typer.Option([], "--tasks", help="Task ids (repeat or comma-separate); default: every task."),
    ),
    Declared(
        "with_source",
        bool,
        typer.Option(False, "--with-source", help="Also run the same agent on the English source, for comparison."),
    ),
    Declared(
        "with_injections",
        bool,
        typer.Option(
            False,
            "--with-injections",
            help="AgentDojo: also run every user task with every injection task (security).",
        ),
    ),
    Declared(
        "variant",
        Path | None,
        typer.Option(None, "--variant", help="Variant folder; default adapted/<benchmark>/<lang>/."),
    ),
)


def _agent_run(given: dict) -> AgentRunRequest:
    return AgentRunRequest(
        benchmark=given["benchmark"],
        language=given["lang"],
        models=EvaluationRequest(
            agent=given["agent_llm"], user=given["user_llm"], judge=given["judge_llm"], trials=given["trials"]
        ),
        task_ids=[t.strip() for item in given["tasks"] for t in item.split(",") if t.strip()] or None,
        with_source=given["with_source"],
        with_injections=given["with_injections"],
        variant=given["variant"],
    )


@cli_errors
@takes("asked", AGENT_RUN, _agent_run)
def evaluate_command(
    asked: AgentRunRequest,
    verbose: bool = typer.Option(False, "--verbose", help="Show the benchmark's own logging (tau2's DEBUG …)."),
) -> None:
    """Run an agent (and a user simulator) on the variant through its family's own runner and scorer.

    τ²/τ³: the orchestrator with the localized agent, user and greeting, and evaluate_simulation;
    AgentDojo: its pipeline and utility/security checks with the variant registered. Reports reward
    (utility, security) per task, pass^k, tokens per role, the language of every agent and user turn,
    and the failure taxonomy (wrong language, mixing, numerals in another script, tool misuse);
    saves adapted/<benchmark>/<lang>.evaluation.json and the trajectories beside it. Keys only from
    the environment; `--agent-llm scripted --user-llm scripted` needs none."""
    # the engine (language id, provider layer, registry of translators: ~0.5 s) stays off `babelflow --help`
    from babelflow.llm.costs import cost_table  # noqa: PLC0415 - +11 ms on --help
    from flows.evaluation.evaluate import evaluate, evaluation_path  # noqa: PLC0415

    benchmark, lang = asked.benchmark, asked.language
    with console.status("evaluating", spinner="dots") as status:
        report = evaluate(asked, progress=status_line(status), verbose=verbose)
    per_task = Table(title=f"{benchmark} {lang}: reward per task ({report.trials_per_task} trial(s) each)")
    for column in ("task", "rewards", "successes"):
        per_task.add_column(column, overflow="fold")
    source_tasks = {t.task_id: t for t in report.source_run.tasks} if report.source_run else {}
    if source_tasks:
        per_task.add_column("source rewards")
    per_task.add_column("failure taxonomy", overflow="fold")
    for task in report.variant_run.tasks:
        row = [task.task_id, _rewards(task.rewards), f"{task.successes}/{len(task.rewards)}"]
        if source_tasks:
            row.append(_rewards(source_tasks[task.task_id].rewards))
        row.append(", ".join(f"{failure.value} {count}" for failure, count in sorted(task.failures.items())) or "—")
        per_task.add_row(*row)
    results.print(per_task)
    judge = f" · judge {report.judge_llm}" if report.judge_llm else ""
    summary = Table(title=f"agent {report.agent_llm} · user {report.user_llm}{judge}")
    columns = ("run", "harness", "average reward", "utility", "attacks that worked", "pass^k", "agent turns in")
    for column in (*columns, "user turns in"):
        summary.add_column(column)
    _summary_rows(summary, lang, report.variant_run)
    if report.source_run:
        _summary_rows(summary, f"source ({report.source_run.language})", report.source_run)
    results.print(summary)
    results.print(_taxonomy_table(report))
    if report.costs.rows:
        results.print(cost_table(report.costs, "model usage (tokens per role)"))
    if not report.measures_model:
        results.print(
            "scripted run: gold actions and the variant's own sentences — it checks that the variant runs and "
            "scores in its harness, and measures no model"
        )
    for basis, trials in sorted(report.variant_run.unscored.items()):
        results.print(
            f"not scored: {basis} in {trials} of {len(report.variant_run.trials)} trials: its judge is a model this"
            " run was not given (VitaBench: --judge-llm); any other basis is scored, the same way on the source",
            soft_wrap=True,
        )
    results.print(f"report: {evaluation_path(report.variant)}")
    results.print(f"trajectories: {report.trajectories}")
