"""`--estimate` on `adapt` and `flow`: print what the keyed run will spend, save it, and send nothing."""

from __future__ import annotations

from babelflow.adapt_request import AdaptRequest
from babelflow.settings import BabelflowSettings
from flows.cli.common import console, status_line
from flows.cli.common import out as report


def print_estimates(request: AdaptRequest, languages: list[str]) -> None:
    """One estimate per language (flows/pipeline/estimate.py), each saved beside the run's cost files as
    estimate.json, so the cost report after the run can set it beside what was spent."""
    from babelflow.llm.costs import report_costs  # noqa: PLC0415 - +11 ms on --help
    from flows.pipeline.estimate import assumptions, estimate_run  # noqa: PLC0415 - +2.5 s on --help

    settings = BabelflowSettings()
    for language in languages:
        asked = request.for_language(language)
        with console.status(f"estimating {asked.benchmark} → {language}", spinner="dots") as status:
            estimate, source_language = estimate_run(asked, settings, status_line(status))
        title = f"{asked.benchmark} → {language}: estimate before any call (nothing was sent)"
        if not estimate.rows:
            report.print(f"{title}: no model call (the translator and validators are offline or nothing changed)")
            continue
        path = settings.layout.costs(asked.benchmark, language, "estimate")
        report_costs(estimate, report, path, title)  # the run's cost report sets it beside what was spent
        for line in assumptions(asked, source_language):
            report.print(f"  assumed: {line}", highlight=False, soft_wrap=True)


def print_spent(settings: BabelflowSettings, benchmark: str, language: str, actual) -> None:
    """After a run: its `--estimate`, if one was made for these models and agents, beside what it spent."""
    from babelflow.llm.costs import against_estimate, rows_table  # noqa: PLC0415 - +11 ms on --help
    from flows.pipeline.stage_io import matching_estimate  # noqa: PLC0415

    estimate = matching_estimate(settings, benchmark, language, actual)
    if estimate is not None:
        report.print(
            rows_table(against_estimate(estimate, actual), f"{benchmark} → {language}: estimate against the run")
        )
