"""`babelflow adapt`: analyze, translate and rebuild a runnable variant of one request, then (with
--validators) validate it with model-backed agents."""

from __future__ import annotations

import typer
from rich.table import Table

from babelflow.adapt_request import AdaptRequest
from babelflow.settings import BabelflowSettings
from flows.cli.common import cli_errors, console, shown_text, status_line
from flows.cli.common import out as report
from flows.cli.options import ADAPT, takes_request
from source_benchmarks import get_benchmark

ESTIMATE_HELP = (
    "Print the model calls, tokens and (with price_in/price_out in a spec) USD the keyed run will spend, per stage"
    " and agent, and stop: nothing is sent, no key is needed, the project is not changed."
)


@cli_errors
@takes_request(ADAPT)
def adapt(request: AdaptRequest, estimate: bool = typer.Option(False, "--estimate", help=ESTIMATE_HELP)) -> None:
    """Analyze, translate and rebuild a runnable variant of BENCHMARK in LANG.

    Model keys come only from OPENAI_API_KEY / ANTHROPIC_API_KEY / DASHSCOPE_API_KEY (and
    OPENAI_COMPATIBLE_API_KEY for openai-compatible servers) and are checked before any work. Token usage is
    printed per stage, language and provider (USD with a spec's price_in/price_out), and saved under
    .babelflow/costs/<benchmark>/<lang>/adapt.json; `--estimate` first shows what a run would spend."""
    if estimate:
        from flows.cli.estimating import print_estimates  # noqa: PLC0415 - +2.5 s on --help

        print_estimates(request, [request.language])
        return
    benchmark, lang, validators = request.benchmark, request.language, request.validators
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn  # noqa: PLC0415 - +17 ms on --help

    from babelflow.llm.costs import CostLedger, report_costs  # noqa: PLC0415 - +11 ms on --help
    from flows.pipeline.adapt import adapt as run_adapt  # noqa: PLC0415 - +2.5 s on --help
    from validators.model_backends import make_validator_agents  # noqa: PLC0415 - +0.7 s on --help

    costs = CostLedger()
    layout = BabelflowSettings().layout
    memory = layout.agent_memory(benchmark, lang)
    agents = (
        make_validator_agents(validators, costs=costs, memory_dir=memory) if validators.strip() else None
    )  # keys checked before any work
    costs_path = layout.costs(benchmark, lang, "adapt")
    try:
        from flows.pipeline.progress_views import bars_for_reports  # noqa: PLC0415 - +50 ms on --help

        with (
            Progress(TextColumn("[cyan]{task.description}"), BarColumn(), MofNCompleteColumn(), console=console) as bar,
            bars_for_reports(bar),
        ):
            stage = bar.add_task("starting", total=None)
            units = bar.add_task("translation units", total=None, visible=False)

            def on_units(done: int, total: int) -> None:
                bar.update(units, completed=done, total=total, visible=True)

            result = run_adapt(
                request,
                progress=lambda message: bar.update(stage, description=message),
                translation_progress=on_units,
                costs=costs,
            )
            bar.update(stage, description="done", total=1, completed=1)
        stats = result.outcome.stats
        table = Table(title=f"{benchmark} → {lang}: {result.manifest.domain_name}")
        table.add_column("what")
        table.add_column("value", justify="right")
        for name, value in (
            ("translation units (canonical / free)", f"{stats.canonical_units} / {stats.free_units}"),
            ("characters sent", f"{stats.characters_sent:,}"),
            ("naive per-field characters", f"{stats.naive_characters:,}"),
            ("unique-text characters", f"{stats.unique_characters:,}"),
            ("translation-memory hits", str(stats.memory_hits)),
            ("failed units", str(len(result.outcome.failures))),
            *((f"units made by {origin}", str(count)) for origin, count in sorted(stats.units_by_origin.items())),
        ):
            table.add_row(name, value)
        report.print(table)
        report.print(f"variant written to [bold]{result.paths.variant}[/] (manifest: babelflow_manifest.json)")
        if result.voided_signoff:
            report.print(shown_text(result.voided_signoff), style="bold red", highlight=False)
        for line in result.hand_edits:
            report.print(shown_text(line), highlight=False)
        for aside in result.outcome.set_aside:
            report.print(
                shown_text(
                    f"unit {aside.unit_key}: its human text {aside.human_text!r} was set aside, the variant keeps the"
                    f" machine text: {'; '.join(aside.problems[:2])}; fix: `babelflow correct {benchmark} --lang {lang}"
                    f" --id {aside.unit_key} --text …`"
                ),
                style="yellow",
                highlight=False,
            )
        findings = []
        if agents:
            from babelflow.canonical_map import load_canonical_map  # noqa: PLC0415 - +36 ms on --help
            from validators.run import validate_variant, variant_context  # noqa: PLC0415 - +0.4 s on --help

            with console.status("validating", spinner="dots") as status:
                cmap = load_canonical_map(result.paths.canonical_map, benchmark, lang)
                failures = validate_variant(
                    variant_context(
                        get_benchmark(benchmark, source_dir=request.source_dir),
                        result.paths.variant,
                        result.ir,
                        lang,
                        canonical_map=cmap,
                    ),
                    agents=agents,
                    progress=status_line(status),
                )
            findings = failures.findings
            report.print(
                f"validation by probes + {', '.join(a.validator_id for a in agents)}: {len(findings)} findings"
            )
            for finding in findings[:20]:
                report.print(
                    f"[red]{finding.id}[/] {finding.layer.value}/{finding.kind} "
                    f"{shown_text(f'{finding.artifact} {finding.location}: {finding.message}')}"
                )
    finally:
        report_costs(costs.report(), console, costs_path, f"{benchmark} → {lang}: model usage")
        from flows.cli.estimating import print_spent  # noqa: PLC0415

        print_spent(BabelflowSettings(), benchmark, lang, costs.report())
    if result.outcome.failures:
        for failure in result.outcome.failures[:10]:
            report.print(
                f"[red]failed[/] {shown_text(f'{failure.source_text[:60]!r}: ' + '; '.join(failure.problems))}"
            )
    if result.outcome.failures or findings:
        raise typer.Exit(code=1)
