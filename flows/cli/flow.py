"""`babelflow flow`: the Prefect flow on one request, in this process or on a work pool; its results and
the next step of each language, as the commands to type."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.table import Table

from babelflow.adapt_request import AdaptRequest
from babelflow.errors import BabelflowError
from babelflow.settings import BabelflowSettings
from flows.cli.common import cli_errors, console
from flows.cli.common import out as report
from flows.cli.options import FLOW, takes_request
from flows.pipeline.reporting import units_made_by
from flows.server.auth import auth_path

if TYPE_CHECKING:
    from flows.pipeline.flow_results import AdaptFlowResult


@cli_errors
@takes_request(FLOW)
def flow(
    request: AdaptRequest,
    languages: list[str],
    max_concurrency: int | None = typer.Option(
        None,
        "--max-concurrency",
        show_default=False,
        help="Languages adapted at once (default 2); with --pool, runs of the pool's deployment at once (default: "
        "as many as the workers take).",
    ),
    pool: str | None = typer.Option(
        None,
        "--pool",
        help="Submit one flow run per language to this Prefect work pool (workers: `prefect worker start --pool "
        "NAME` in their own clones; shared state: README, Past one machine).",
    ),
    provider_limit: list[str] = typer.Option(
        [], "--provider-limit", help="With --pool: PROVIDER=N, at most N stages calling that provider at once."
    ),
    adopt_dir: Path | None = typer.Option(
        None,
        "--adopt",
        help="Start from an existing translation in this folder (one --lang), as `babelflow adopt --from` does; "
        "its repairs are reviewed in the flow's rounds.",
    ),
    adopt_origin: str = typer.Option(
        "", "--adopt-origin", help="With --adopt: who made it, shown as 'adopted from ORIGIN' (default: its folder)."
    ),
    estimate: bool = typer.Option(
        False,
        "--estimate",
        help="Print what each language's first round will spend with its model translator and validators (calls,"
        " tokens, USD with price_in/price_out) and stop: nothing is sent, no server starts, the project is not"
        " changed.",
    ),
) -> None:
    """Run the Prefect flow: analyze → translate → rebuild → validate → review rounds → sign-off
    (→ agents on the variant and its source, with --evaluate-agent/--evaluate-user).

    Runs against this project's local Prefect server (started in the background on first use and
    kept running, so runs, artifacts and paused review forms stay reachable in the UI after this
    command ends) or against PREFECT_API_URL when set. Prints the run's and report's UI addresses.
    Exit 0 when no findings remain (signed or awaiting sign-off), 1 when findings await review or the
    sign-off sample was rejected."""
    from flows.pipeline.launch import pool_options, preflight, run_languages  # noqa: PLC0415 - +1.3 s on --help
    from flows.pipeline.progress_views import terminal_progress  # noqa: PLC0415 - +50 ms on --help
    from flows.run_setup import resolved_once  # noqa: PLC0415

    on_pool = pool_options(pool, provider_limit, max_concurrency)  # refused before any work or server start
    if estimate:
        from flows.cli.estimating import print_estimates  # noqa: PLC0415 - +2.5 s on --help

        print_estimates(request, languages)
        return
    if adopt_dir is not None:
        request = adopted_request(request, languages)
    runs = preflight(BabelflowSettings(), request, languages)
    if adopt_dir is not None:
        from flows.pipeline.adopting import AdoptedFrom, seed_adoption  # noqa: PLC0415 - +2.5 s on --help

        seed_adoption(runs[0], AdoptedFrom(adopt_dir, adopt_origin or None), lambda message: None)
    ui = open_server()
    with terminal_progress(console), resolved_once(runs):
        say = lambda line: console.print(line, highlight=False, soft_wrap=True)  # noqa: E731
        results = run_languages(request, languages, on_pool, max_concurrency, say)
    print_results(request.benchmark, results, ui)
    print_costs(request.benchmark, results)
    if any(r.status in ("awaiting_review", "rounds_exhausted", "signoff_rejected") for r in results):
        raise typer.Exit(code=1)


def adopted_request(request: AdaptRequest, languages: list[str]) -> AdaptRequest:
    """The request a flow from an existing translation runs (one language: a variant is in one)."""
    if len(languages) != 1:
        raise BabelflowError(
            f"--adopt takes one --lang, not {len(languages)}",
            field="--lang",
            fix="run one flow per language, each with the folder of its own variant",
        )
    return request.for_adoption()


def open_server() -> str:
    """This project's Prefect server (started if need be) or PREFECT_API_URL's; returns the UI's address."""
    from flows.server.local_server import ensure_server, ui_base  # noqa: PLC0415 - +57 ms on --help

    api_url, record = ensure_server(BabelflowSettings())
    ui = ui_base(api_url)
    whose = (
        " (this project's background server; stop it with `babelflow server --stop`)"
        if record
        else " (PREFECT_API_URL)"
    )
    console.print(f"Prefect UI: {ui}{whose}")
    if record:  # the UI asks for the auth string at login: say where it is, never what it is
        login = f"UI login: the auth string in {auth_path(BabelflowSettings())} (readable by you only)"
        console.print(login, highlight=False, soft_wrap=True)
    return ui


def print_results(benchmark: str, results: list[AdaptFlowResult], ui: str) -> None:
    table = Table(title=f"{benchmark}: flow results")
    for column in ("language", "status", "rounds", "open findings", "units made by"):
        table.add_column(column, overflow="fold")
    for result in results:
        table.add_row(
            result.language,
            result.status,
            str(len(result.rounds)),
            str(len(result.open_findings)),
            units_made_by(result.rounds[-1].units_by_origin if result.rounds else {}),
        )
    report.print(table)
    for result in results:
        for line in result.hand_edits:
            report.print(f"{result.language}: {line}", highlight=False, soft_wrap=True)
        report.print(f"{result.language}: variant {result.variant_dir}", highlight=False, soft_wrap=True)
        if result.evaluation_report is not None:
            report.print(
                f"{result.language}: evaluation {result.evaluation_report}"
                + (" (cached: nothing changed)" if result.evaluation_cached else ""),
                highlight=False,
                soft_wrap=True,
            )
    for result in results:
        report.print(
            f"{result.language}: flow run {ui}/runs/flow-run/{result.flow_run_id}  ·  "
            "failure report "
            + (
                f"{ui}/artifacts/artifact/{result.report_artifact_id}"
                if result.report_artifact_id
                else f"{ui}/artifacts/key/{result.report_artifact_key}"
            ),
            highlight=False,
            soft_wrap=True,
        )
    for result in results:  # one line per next step, with the exact command
        report.print(next_step(benchmark, result.language, result.status), highlight=False, soft_wrap=True)
        last = result.rounds[-1] if result.rounds else None
        doubtful = max(0, last.doubtful_terms - last.term_decisions) if last else 0
        if doubtful:
            report.print(
                f"terms ({result.language}): {doubtful} doubtful rendering(s) went on unreviewed: babelflow terms"
                f" {benchmark} --lang {result.language} --doubtful  (approve or correct, then rerun the flow)",
                highlight=False,
                soft_wrap=True,
            )


def print_costs(benchmark: str, results: list[AdaptFlowResult]) -> None:
    """Each language's model usage (USD with a spec's prices), and its `--estimate` beside it if one was made."""
    from babelflow.llm.costs import report_costs  # noqa: PLC0415 - +11 ms on --help
    from flows.cli.estimating import print_spent  # noqa: PLC0415
    from flows.pipeline.stage_io import flow_costs  # noqa: PLC0415

    settings = BabelflowSettings()
    for result in results:
        spent = flow_costs(settings, benchmark, result.language)
        report_costs(spent, report, None, f"{benchmark} → {result.language}: model usage")
        print_spent(settings, benchmark, result.language, spent)


def next_step(benchmark: str, language: str, status: str) -> str:
    """What the user does next for one language, as the command to type."""
    where = f"{benchmark} --lang {language}"
    if status in ("awaiting_review", "rounds_exhausted"):
        return (
            f"next ({language}): findings await review: babelflow review {where}  (then rerun: babelflow flow {where})"
        )
    if status == "signoff_rejected":
        return (
            f"next ({language}): the sign-off sample was rejected; correct its failing units:"
            f" babelflow units {where} --failing  (then rerun: babelflow flow {where})"
        )
    if status == "awaiting_signoff":
        return (
            f"next ({language}): read the sample and sign: babelflow review {where} --sign"
            f"  (every unit: babelflow units {where})"
        )
    return f"next ({language}): signed; run agents on it: babelflow evaluate {where} --agent-llm SPEC --user-llm SPEC"
