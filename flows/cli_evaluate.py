"""`babelflow evaluate`: run agents on a variant with tau2's own orchestrator (flows/evaluate.py)."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.table import Table

from flows.cli_common import BENCHMARK_HELP, cli_errors, console, status_line


def _summary_rows(table: Table, label: str, run) -> None:
    passes = "  ".join(f"pass^{k} {v:.2f}" for k, v in sorted(run.pass_hat_k.items()))
    consistency = "—" if run.language_consistency is None else f"{run.language_consistency:.0%}"
    table.add_row(label, run.domain, f"{run.average_reward:.3f}", passes, consistency)


@cli_errors
def evaluate_command(
    benchmark: str = typer.Argument(..., help=BENCHMARK_HELP),
    lang: str = typer.Option(
        ..., "--lang", "-l", help="Language of the variant (made by `babelflow flow` or `adapt`)."
    ),
    agent_llm: str = typer.Option(
        ...,
        "--agent-llm",
        help="The agent's model: openai:MODEL, anthropic:MODEL, dashscope:MODEL or openai-compatible:MODEL@URL.",
    ),
    user_llm: str = typer.Option(..., "--user-llm", help="The user simulator's model (same grammar)."),
    trials: int = typer.Option(1, "--trials", "-k", help="Trials per task (pass^1..pass^k)."),
    tasks: list[str] = typer.Option([], "--tasks", help="Task ids (repeat or comma-separate); default: every task."),
    with_source: bool = typer.Option(
        False, "--with-source", help="Also run the same agent on the English source, for comparison."
    ),
    variant: Path | None = typer.Option(None, "--variant", help="Variant folder; default adapted/<benchmark>/<lang>/."),
) -> None:
    """Run an agent and a user simulator on the variant with tau2's orchestrator (localized prompts and greeting).

    Reports reward per task, pass^k, token usage and the language consistency of the agent's replies;
    saves the report as adapted/<benchmark>/<lang>.evaluation.json. Keys only from the environment."""
    # the engine (language id, provider layer, registry of translators: ~0.5 s) stays off `babelflow --help`
    from babelflow.llm.costs import cost_table  # noqa: PLC0415 - +11 ms on --help
    from flows.evaluate import evaluate, evaluation_path  # noqa: PLC0415

    task_ids = [t.strip() for item in tasks for t in item.split(",") if t.strip()] or None
    with console.status("evaluating", spinner="dots") as status:
        report = evaluate(
            benchmark,
            lang,
            agent_llm,
            user_llm,
            trials=trials,
            task_ids=task_ids,
            with_source=with_source,
            variant=variant,
            progress=status_line(status),
        )
    per_task = Table(title=f"{benchmark} {lang}: reward per task ({report.trials_per_task} trial(s) each)")
    for column in ("task", "rewards", "successes"):
        per_task.add_column(column, overflow="fold")
    source_tasks = {t.task_id: t for t in report.source_run.tasks} if report.source_run else {}
    if source_tasks:
        per_task.add_column("source rewards")
    for task in report.variant_run.tasks:
        row = [task.task_id, " ".join(f"{r:g}" for r in task.rewards), f"{task.successes}/{len(task.rewards)}"]
        if source_tasks:
            row.append(" ".join(f"{r:g}" for r in source_tasks[task.task_id].rewards))
        per_task.add_row(*row)
    console.print(per_task)
    summary = Table(title=f"agent {report.agent_llm} · user {report.user_llm}")
    for column in ("run", "domain", "average reward", "pass^k", "agent replies in language"):
        summary.add_column(column)
    _summary_rows(summary, lang, report.variant_run)
    if report.source_run:
        _summary_rows(summary, "source (en)", report.source_run)
    console.print(summary)
    if report.costs.rows:
        console.print(cost_table(report.costs, "model usage (tokens)"))
    console.print(f"report saved to [bold]{evaluation_path(report.variant)}[/]")
