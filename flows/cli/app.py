"""The `babelflow` command line. Every command exits 0 on success, 1 on findings, 2 on bad input."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import typer
from rich.table import Table

from babelflow.atomic_io import dump_json_bytes, write_bytes_atomic, write_text_atomic
from babelflow.errors import BabelflowError
from babelflow.ir import ir_json_schema, save_ir
from babelflow.output_guard import check_file_out
from babelflow.run_lock import one_at_a_time
from babelflow.settings import BabelflowSettings
from babelflow.variant import MANIFEST_NAME, folder_owner, load_manifest, save_record
from flows.cli.common import (
    BENCHMARK_HELP,
    ENTITY_HELP,
    SOURCE_DIR_HELP,
    cli_errors,
    console,
    shown_text,
    stage_line,
    status_line,
)
from flows.cli.common import out as report
from flows.pipeline.reporting import units_made_by
from flows.server.auth import auth_path
from source_benchmarks import get_benchmark
from source_benchmarks.registry import resolve_benchmark
from validators.findings import group_findings, summarize

# Every command imports its engine inside its body: this module is what `babelflow --help` loads, and each
# noqa below names what the import would add to it (measured on top of `import flows.cli.app`).

app = typer.Typer(
    name="babelflow",
    help="Adapt an executable LLM-agent benchmark (tau2-bench) into another language without breaking it.",
    no_args_is_help=True,
    add_completion=False,
)


@app.command()
@cli_errors
def analyze(
    benchmark: str = typer.Argument(..., help=BENCHMARK_HELP),
    out: Path = typer.Option(..., "--out", "-o", help="Where to write the IR (JSON)."),
    source_dir: Path | None = typer.Option(None, "--source-dir", help=SOURCE_DIR_HELP),
    profile: Path | None = typer.Option(None, "--profile", help="Analysis profile (TOML); default: the packaged one."),
    no_profile: bool = typer.Option(
        False, "--no-profile", help="Type from runtime evidence, structure and shape alone (no reviewed profile)."
    ),
    starter_profile: Path | None = typer.Option(
        None, "--starter-profile", help="Also write a profile drafted from the evidence (TOML) here, for review."
    ),
    domain_package: str | None = typer.Option(
        None,
        "--domain-package",
        help="A tau2-style domain package (module name or folder) outside tau2; use with the benchmark `tau2`.",
    ),
    reanalyze: bool = typer.Option(
        False,
        "--reanalyze",
        help="Analyse again even when the saved IR (state folder) was made from the same files, harness and profile.",
    ),
) -> None:
    """Trace every text field the benchmark reads at run time and type it
    (Preserve / Translate-Free / Translate-Canonical).

    The IR is also kept in the state folder, where `flow` and `adapt` read it: a rerun with nothing
    changed (same analyzer, source files, harness and profile) reuses it instead of replaying the benchmark."""
    benchmark = resolve_benchmark(benchmark, domain_package)
    from analyzers.analyze import analyze_benchmark  # noqa: PLC0415 - +1.6 s on --help
    from flows.components import analysis_lock, analyze_or_reuse  # noqa: PLC0415 - +1.8 s on --help
    from translators.rebuild import source_folders  # noqa: PLC0415 - +0.15 s on --help

    bench = get_benchmark(benchmark, source_dir=source_dir)
    sources, _ = source_folders(bench)
    check_file_out(out, sources)
    if starter_profile is not None:
        check_file_out(starter_profile, sources, "--starter-profile")
    from flows.pipeline.progress_views import terminal_progress  # noqa: PLC0415 - +50 ms on --help

    def progress(message: str) -> None:
        console.print(f"[cyan]{message}", highlight=False)

    with terminal_progress(console):
        if no_profile:  # a typing without reviewed rules is a one-off look, never what `flow` should reuse
            document = analyze_benchmark(bench, None, progress=progress, use_profile=False)
            save_ir(document, out)
        else:
            ir_path = BabelflowSettings().layout.ir(benchmark)
            document = analyze_or_reuse(bench, profile, ir_path, progress, reuse=not reanalyze)
            with one_at_a_time(analysis_lock(ir_path)):  # the saved bytes: serialising 60k elements again costs ~10 s
                write_bytes_atomic(out, ir_path.read_bytes())
    counts = Counter(e.translation_type.value for e in document.elements)
    table = Table(title=f"{benchmark}: {len(document.elements)} text fields, {len(document.link_groups)} link groups")
    table.add_column("type")
    table.add_column("fields", justify="right")
    for name, count in sorted(counts.items()):
        table.add_row(name, str(count))
    report.print(table)
    from analyzers.evidence_report import evidence_summary  # noqa: PLC0415 - +11 ms on --help

    for line in evidence_summary(document):
        report.print(line, highlight=False)
    if starter_profile is not None:
        from analyzers.starter_profile import starter_profile as draft  # noqa: PLC0415 - +1.6 s on --help

        write_text_atomic(starter_profile, draft(document, bench))
        report.print(f"starter profile written to [bold]{starter_profile}[/] (review it, then pass it with --profile)")
    report.print(f"IR written to [bold]{out}[/]")


@app.command()
@cli_errors
def adapt(
    benchmark: str = typer.Argument(..., help=BENCHMARK_HELP),
    lang: str = typer.Option(
        ..., "--lang", "-l", help="Target language (BCP 47). Offline: en-XA or ar-XB pseudo-locales."
    ),
    translator: str = typer.Option(
        "auto",
        "--translator",
        help=(
            "`auto` (default: pseudo for en-XA/ar-XB, Apertium for a language with an installed pair), `pseudo`, "
            "`apertium[:MODE]`, or openai:MODEL, anthropic:MODEL, dashscope:MODEL, openai-compatible:MODEL@URL."
        ),
    ),
    source_dir: Path | None = typer.Option(None, "--source-dir", help=SOURCE_DIR_HELP),
    profile: Path | None = typer.Option(None, "--profile", help="Analysis profile (TOML); default: the packaged one."),
    out: Path | None = typer.Option(None, "--out", "-o", help="Variant folder; default adapted/<benchmark>/<lang>/."),
    validators: str = typer.Option(
        "",
        "--validators",
        help=(
            "Then validate the variant with model-backed agents, one per comma-separated spec, "
            "e.g. openai:M,dashscope:M,anthropic:M."
        ),
    ),
    entity: list[str] = typer.Option(
        [],
        "--entity",
        help=ENTITY_HELP,
    ),
    domain_package: str | None = typer.Option(
        None,
        "--domain-package",
        help="A tau2-style domain package (module name or folder) outside tau2; use with the benchmark `tau2`.",
    ),
    version: str | None = typer.Option(
        None, "--version", help="AgentDojo benchmark version (v1 ... v1.2.2); default the newest."
    ),
) -> None:
    """Analyze, translate and rebuild a runnable variant of BENCHMARK in LANG.

    Model keys come only from OPENAI_API_KEY / ANTHROPIC_API_KEY / DASHSCOPE_API_KEY (and
    OPENAI_COMPATIBLE_API_KEY for openai-compatible servers) and are checked before any work. Token usage is
    printed per stage, language and provider, and saved under .babelflow/costs/<benchmark>/<lang>/adapt.json."""
    benchmark = resolve_benchmark(benchmark, domain_package, version)
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn  # noqa: PLC0415 - +17 ms on --help

    from babelflow.llm.costs import CostLedger, report_costs  # noqa: PLC0415 - +11 ms on --help
    from flows.pipeline.adapt import adapt as run_adapt  # noqa: PLC0415 - +2.5 s on --help
    from validators.model_backends import make_validator_agents  # noqa: PLC0415 - +0.7 s on --help

    costs = CostLedger()
    agents = (
        make_validator_agents(validators, costs=costs) if validators.strip() else None
    )  # keys checked before any work
    costs_path = BabelflowSettings().layout.costs(benchmark, lang, "adapt")
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
                benchmark,
                lang,
                translator_spec=translator,
                source_dir=source_dir,
                profile=profile,
                out=out,
                progress=lambda message: bar.update(stage, description=message),
                translation_progress=on_units,
                costs=costs,
                entities=entity,
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
        findings = []
        if agents:
            from babelflow.canonical_map import load_canonical_map  # noqa: PLC0415 - +36 ms on --help
            from validators.run import validate_variant, variant_context  # noqa: PLC0415 - +0.4 s on --help

            with console.status("validating", spinner="dots") as status:
                cmap = load_canonical_map(result.paths.canonical_map, benchmark, lang)
                failures = validate_variant(
                    variant_context(
                        get_benchmark(benchmark, source_dir=source_dir),
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
    if result.outcome.failures:
        for failure in result.outcome.failures[:10]:
            report.print(
                f"[red]failed[/] {shown_text(f'{failure.source_text[:60]!r}: ' + '; '.join(failure.problems))}"
            )
    if result.outcome.failures or findings:
        raise typer.Exit(code=1)


def check_variant_is_of(folder: Path, benchmark: str, lang: str) -> None:
    """A variant babelflow built names its benchmark and language in its manifest: validating it as
    another benchmark (tau2-mock's as tau3-mock) or language compares unrelated files. A folder made
    elsewhere (no manifest, e.g. SEATau's) is taken as given."""

    owner = folder_owner(folder)
    if owner is not None and owner != benchmark:
        raise BabelflowError(
            f"{folder} holds a variant of {owner}, not of {benchmark}",
            field="--variant",
            fix=f"validate it as {owner}, or pass a variant of {benchmark}",
        )
    if owner is not None and (folder / MANIFEST_NAME).is_file():
        made_for = load_manifest(folder).language
        if made_for != lang:
            raise BabelflowError(
                f"{folder} is the {made_for} variant, not {lang}",
                field="--lang",
                fix=f"pass --lang {made_for}, or the {lang} variant",
            )


@app.command()
@cli_errors
def validate(
    benchmark: str = typer.Argument(..., help=BENCHMARK_HELP),
    lang: str = typer.Option(..., "--lang", "-l", help="Language of the variant (BCP 47)."),
    variant: Path | None = typer.Option(
        None,
        "--variant",
        help="Variant folder; default adapted/<benchmark>/<lang>/. May be another tool's copy of tau2's data/ folder.",
    ),
    source_dir: Path | None = typer.Option(None, "--source-dir", help=SOURCE_DIR_HELP),
    json_out: Path | None = typer.Option(None, "--json", help="Write the failure set as JSON here."),
    validators: str = typer.Option(
        "",
        "--validators",
        help=(
            "Model-backed validator agents, one per comma-separated spec, e.g. openai:M,dashscope:M,anthropic:M "
            "(default: probes only)."
        ),
    ),
    profile: Path | None = typer.Option(
        None, "--profile", help="Analysis profile (TOML) the variant was built with; default: the packaged one."
    ),
    save_inferred_map_to: Path | None = typer.Option(
        None,
        "--save-inferred-map",
        help="Write the renderings inferred from a variant made elsewhere as a canonical map (JSON) here.",
    ),
    domain_package: str | None = typer.Option(
        None,
        "--domain-package",
        help="A tau2-style domain package (module name or folder) outside tau2; use with the benchmark `tau2`.",
    ),
    for_review: bool = typer.Option(
        False,
        "--review",
        help="Save the findings as the variant's review queue: `babelflow review` then opens them (a hand-edited"
        " variant, or one made elsewhere with --variant).",
    ),
) -> None:
    """Validate a variant against its source on four layers. Exit 0: no findings, 1: findings, 2: error.

    With --validators, each agent reviews the probes' evidence with its own model; their token
    usage is printed and saved under .babelflow/costs/<benchmark>/<lang>/validate.json."""
    benchmark = resolve_benchmark(benchmark, domain_package)
    from babelflow.canonical_map import load_canonical_map  # noqa: PLC0415 - +36 ms on --help
    from babelflow.llm.costs import CostLedger, report_costs  # noqa: PLC0415 - +11 ms on --help
    from babelflow.variant import CANONICAL_MAP_NAME  # noqa: PLC0415 - +5 ms on --help
    from flows.components import analyze_or_reuse, check_same_profile  # noqa: PLC0415 - +1.8 s on --help
    from translators.registry import validate_language_tag  # noqa: PLC0415 - +0.4 s on --help
    from validators.model_backends import make_validator_agents  # noqa: PLC0415 - +0.7 s on --help
    from validators.run import validate_variant, variant_context  # noqa: PLC0415 - +0.4 s on --help

    validate_language_tag(lang)
    costs = CostLedger()
    agents = (
        make_validator_agents(validators, costs=costs) if validators.strip() else None
    )  # keys checked before any work
    settings = BabelflowSettings()
    from translators.rebuild import source_folders  # noqa: PLC0415 - +0.15 s on --help

    bench = get_benchmark(benchmark, source_dir=source_dir)
    sources, _ = source_folders(bench)
    for path, option in ((json_out, "--json"), (save_inferred_map_to, "--save-inferred-map")):
        if path is not None:
            check_file_out(path, sources, option)
    layout = settings.layout
    check_variant_is_of(layout.variant(benchmark, lang, variant), benchmark, lang)
    try:
        from flows.pipeline.progress_views import terminal_progress  # noqa: PLC0415 - +50 ms on --help

        with terminal_progress(console) as bars:
            ir = analyze_or_reuse(bench, profile, layout.ir(benchmark), stage_line(bars))
            variant_dir = layout.variant(benchmark, lang, variant)
            check_same_profile(variant_dir, ir.profile_sha256, profile)
            cmap_path = layout.canonical_map(benchmark, lang)
            # the map the variant was built with travels in it (validate_variant reads it); else the project's
            own_map = (variant_dir / CANONICAL_MAP_NAME).is_file()
            cmap = load_canonical_map(cmap_path, benchmark, lang) if cmap_path.exists() and not own_map else None
            failures = validate_variant(
                variant_context(bench, layout.variant(benchmark, lang, variant), ir, lang, canonical_map=cmap),
                agents=agents,
                progress=stage_line(bars),
            )
    finally:
        report_costs(
            costs.report(),
            console,
            settings.layout.costs(benchmark, lang, "validate"),
            f"{benchmark} {lang}: model usage",
        )
    if json_out:
        save_record(failures, json_out)
    from validators.probes.policy import save_inferred_map  # noqa: PLC0415 - +0.1 s on --help

    summary = failures.summary or summarize(failures.findings)
    report.print(f"{benchmark} {lang}: {summary.line()}")  # the first line a reviewer reads
    if save_inferred_map_to is not None:
        saved = save_inferred_map(failures, save_inferred_map_to)
        report.print(f"inferred canonical map: {saved} entries -> {save_inferred_map_to}")
    table = Table(title=f"{benchmark} {lang}: {summary.groups} finding groups ({summary.findings} findings)")
    for column in ("group", "severity", "layer/kind", "n", "where", "example"):
        table.add_column(column, overflow="fold")
    for group in group_findings(failures.findings)[:200]:
        table.add_row(
            group.id,
            group.severity.value,
            f"{group.layer.value}/{group.kind}",
            str(len(group.finding_ids)),
            shown_text(f"{group.artifact} {group.pattern}"),
            shown_text(group.example),
        )
    report.print(table)
    for note in failures.notes[:3]:
        report.print(f"[dim]{note}[/]")
    for item in failures.suppressed[:10]:
        report.print(f"[yellow]suppressed[/] {item.layer.value} checks of {item.artifact}: {item.reason}")
    if for_review:
        report.print(queue_for_review(settings, benchmark, lang, variant, failures), highlight=False, soft_wrap=True)
    if summary.blocking:  # notes (a policy of the variant, a file the harness supplies) need no fix
        raise typer.Exit(code=1)


@app.command()
@cli_errors
def replay(
    benchmark: str = typer.Argument(..., help=BENCHMARK_HELP),
    source_dir: Path | None = typer.Option(None, "--source-dir", help=SOURCE_DIR_HELP),
    split: str = typer.Option("all", help="Task split (all, base, test, ...)."),
) -> None:
    """Replay every task's golden actions and a do-nothing trajectory, scored by the benchmark's own evaluator."""
    from rich.progress import track  # noqa: PLC0415 - +17 ms on --help

    bench = get_benchmark(benchmark, source_dir=source_dir)
    ids = bench.task_ids(split)
    golden = [bench.replay_golden([task_id])[0] for task_id in track(ids, description="golden replay", console=console)]
    nothing = bench.run_do_nothing(ids)
    table = Table(title=f"{benchmark} ({split}): {len(ids)} tasks")
    for column in ("trajectory", "reward 1.0", "other", "not replayable", "tool errors", "evaluator errors"):
        table.add_column(column)
    for name, outcomes in (("golden", golden), ("do-nothing", nothing)):
        table.add_row(
            name,
            str(sum(o.reward == 1.0 for o in outcomes)),
            str(sum(o.reward != 1.0 for o in outcomes)),
            str(sum(not o.replayable for o in outcomes)),
            str(sum(len(o.tool_error_sequence) for o in outcomes)),
            str(sum(o.evaluator_error is not None for o in outcomes)),
        )
    report.print(table)
    failed = [o.task_id for o in golden if o.replayable and o.reward != 1.0]
    if failed:
        report.print(f"[red]replayable tasks below 1.0:[/] {', '.join(failed[:20])}")
        raise typer.Exit(code=1)


@app.command()
@cli_errors
def flow(
    benchmark: str = typer.Argument(..., help=BENCHMARK_HELP),
    lang: list[str] = typer.Option(
        ..., "--lang", "-l", help="Target language(s); repeat for several (run with a concurrency limit)."
    ),
    review_timeout: int = typer.Option(
        0,
        "--review-timeout",
        help=(
            "Seconds to wait in the paused review form (Prefect UI or `babelflow review`). "
            "0 = unattended: stop awaiting review."
        ),
    ),
    max_concurrency: int = typer.Option(2, "--max-concurrency", help="Languages adapted at once."),
    profile: Path | None = typer.Option(None, "--profile", help="Analysis profile (TOML)."),
    source_dir: Path | None = typer.Option(None, "--source-dir", help=SOURCE_DIR_HELP),
    translator: str = typer.Option(
        "auto",
        "--translator",
        help=(
            "`auto` (default: pseudo for pseudo-locales, Apertium where a pair is installed), `pseudo`, "
            "`apertium[:MODE]` or PROVIDER:MODEL (openai, anthropic, dashscope, openai-compatible)."
        ),
    ),
    validators: str = typer.Option(
        "", "--validators", help="Comma-separated PROVIDER:MODEL specs: one isolated validator agent each."
    ),
    entity: list[str] = typer.Option(
        [],
        "--entity",
        help=ENTITY_HELP,
    ),
    domain_package: str | None = typer.Option(
        None,
        "--domain-package",
        help="A tau2-style domain package (module name or folder) outside tau2; use with the benchmark `tau2`.",
    ),
    version: str | None = typer.Option(
        None, "--version", help="AgentDojo benchmark version (v1 ... v1.2.2); default the newest."
    ),
    evaluate_agent: str = typer.Option(
        "",
        "--evaluate-agent",
        help="Evaluation stage once no findings remain: the agent model (as `babelflow evaluate --agent-llm`; "
        "`scripted` runs offline). Off by default.",
    ),
    evaluate_user: str = typer.Option("", "--evaluate-user", help="The evaluation stage's user simulator model."),
    evaluate_trials: int = typer.Option(1, "--evaluate-trials", help="Trials per task in the evaluation stage."),
    pool: str | None = typer.Option(
        None,
        "--pool",
        help="Submit one flow run per language to this Prefect work pool (workers: `prefect worker start --pool "
        "NAME` in their own clones; shared state: README, Past one machine).",
    ),
    provider_limit: list[str] = typer.Option(
        [], "--provider-limit", help="With --pool: PROVIDER=N, at most N stages calling that provider at once."
    ),
) -> None:
    """Run the Prefect flow: analyze → translate → rebuild → validate → review rounds → sign-off
    (→ agents on the variant and its source, with --evaluate-agent/--evaluate-user).

    Runs against this project's local Prefect server (started in the background on first use and
    kept running, so runs, artifacts and paused review forms stay reachable in the UI after this
    command ends) or against PREFECT_API_URL when set. Prints the run's and report's UI addresses.
    Exit 0 when no findings remain (signed or awaiting sign-off), 1 when findings await review."""
    benchmark = resolve_benchmark(benchmark, domain_package, version)
    provider_limits: dict[str, int] = {}
    if pool:  # a pool without shared state, or a bad limit, is refused before any work or server start
        from babelflow.shared_state.config import require_shared_config  # noqa: PLC0415
        from flows.pipeline.shared_run import parse_provider_limits  # noqa: PLC0415

        require_shared_config()
        provider_limits = parse_provider_limits(provider_limit)
    from flows.server.local_server import ensure_server, ui_base  # noqa: PLC0415 - +57 ms on --help

    if validators:
        from validators.model_backends import make_validator_agents  # noqa: PLC0415 - +0.7 s on --help

        make_validator_agents(validators)  # a missing key is an error before any work starts
    from flows.run_setup import resolve_run  # noqa: PLC0415 - +1.3 s on --help

    if evaluate_agent or evaluate_user:  # specs, keys and the family's runner checked before any work
        from flows.evaluation.evaluate import check_models, runner_of  # noqa: PLC0415 - the engine stays off --help
        from flows.pipeline.evaluation_stage import evaluation_config  # noqa: PLC0415

        evaluation_config(evaluate_agent, evaluate_user, evaluate_trials)
        runner_of(benchmark)
        for tag in lang:
            check_models(evaluate_agent, evaluate_user, tag)
    for tag in lang:  # each language resolves (tag, pack, Apertium pair or provider key) before any work
        resolve_run(
            BabelflowSettings(),
            benchmark,
            tag,
            translator=translator,
            source_dir=source_dir,
            profile=profile,
            validators=validators,
            entities=entity,
        )
    api_url, record = ensure_server(BabelflowSettings())
    from flows.pipeline.prefect_flows import (  # noqa: PLC0415 - Prefect: after the URL is set
        adapt_language,
        adapt_languages,
        outcome,
        outcomes,
    )

    ui = ui_base(api_url)
    console.print(
        f"Prefect UI: {ui}"
        + (
            " (this project's background server; stop it with `babelflow server --stop`)"
            if record
            else " (PREFECT_API_URL)"
        )
    )
    if record:  # the UI asks for the auth string at login: say where it is, never what it is
        login = f"UI login: the auth string in {auth_path(BabelflowSettings())} (readable by you only)"
        console.print(login, highlight=False, soft_wrap=True)
    from flows.pipeline.progress_views import terminal_progress  # noqa: PLC0415 - +50 ms on --help

    with terminal_progress(console):
        if pool:  # one flow run per language on the pool's workers (flows/pipeline/pools.py)
            from flows.pipeline.pools import run_on_pool  # noqa: PLC0415 - Prefect, after the URL

            fixed = {"translator": translator, "validators": validators, "entities": entity or None}
            results, _ = run_on_pool(
                benchmark,
                lang,
                pool,
                review_timeout=review_timeout,
                deploy_parameters={k: v for k, v in fixed.items() if v not in ("", None, "auto")},
                provider_limits=provider_limits,
                say=lambda line: console.print(line, highlight=False, soft_wrap=True),
            )
        elif len(lang) == 1:
            results = [  # the run ends in a named state (AwaitingReview, ...) carrying its result
                outcome(
                    adapt_language(
                        benchmark,
                        lang[0],
                        profile=profile,
                        source_dir=source_dir,
                        review_timeout=review_timeout,
                        translator=translator,
                        validators=validators,
                        entities=entity,
                        evaluate_agent=evaluate_agent,
                        evaluate_user=evaluate_user,
                        evaluate_trials=evaluate_trials,
                        return_state=True,
                    )
                )
            ]
        else:
            results = outcomes(
                adapt_languages(
                    benchmark,
                    lang,
                    max_concurrency=max_concurrency,
                    review_timeout=review_timeout,
                    translator=translator,
                    validators=validators,
                    entities=entity,
                    evaluate_agent=evaluate_agent,
                    evaluate_user=evaluate_user,
                    evaluate_trials=evaluate_trials,
                    return_state=True,
                )
            )
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
    if any(r.status in ("awaiting_review", "rounds_exhausted") for r in results):
        raise typer.Exit(code=1)


def queue_for_review(settings: BabelflowSettings, benchmark: str, lang: str, variant: Path | None, failures) -> str:
    """Save a validation's findings as the variant's review queue, under the run lock (a flow paused on
    the same variant is named and nothing is written); returns the next step."""
    from flows.review.importing import held_run_lock  # noqa: PLC0415 - +0.2 s on --help
    from flows.review.store import ReviewStore, review_folder  # noqa: PLC0415

    folder, own = review_folder(settings, benchmark, lang, variant)
    store = ReviewStore(folder)
    with held_run_lock(settings, benchmark, lang, holder="validate --review"):
        queue = store.open_findings(failures)  # dismissed before, field unchanged since: not asked again
        store.save_queue(queue, None)
    where = "" if own else f" --variant {variant}"
    return (
        f"next ({lang}): {len(queue.findings)} findings queued for review: babelflow review {benchmark} --lang {lang}"
        f"{where}" + ("  (fix a text: babelflow correct … --finding F-… --text …)" if own else "")
    )


def next_step(benchmark: str, language: str, status: str) -> str:
    """What the user does next for one language, as the command to type."""
    where = f"{benchmark} --lang {language}"
    if status in ("awaiting_review", "rounds_exhausted"):
        return (
            f"next ({language}): findings await review: babelflow review {where}  (then rerun: babelflow flow {where})"
        )
    if status == "awaiting_signoff":
        return (
            f"next ({language}): read the sample and sign: babelflow review {where} --sign"
            f"  (every unit: babelflow units {where})"
        )
    return f"next ({language}): signed; run agents on it: babelflow evaluate {where} --agent-llm SPEC --user-llm SPEC"


@app.command("ir-schema")
@cli_errors
def ir_schema(
    out: Path | None = typer.Option(None, "--out", "-o", help="Write the JSON Schema here instead of stdout."),
) -> None:
    """Print the JSON Schema of the IR."""
    data = dump_json_bytes(ir_json_schema())
    if out:
        write_bytes_atomic(out, data + b"\n")
    else:
        sys.stdout.write(data.decode() + "\n")


# command modules; they never import this one
from flows.cli import evaluate as cli_evaluate  # noqa: E402
from flows.cli import families as cli_families  # noqa: E402
from flows.cli import interchange as cli_interchange  # noqa: E402
from flows.cli import review as cli_review  # noqa: E402
from flows.cli import units as cli_units  # noqa: E402

app.command("review")(cli_review.review)
app.command("server")(cli_review.server)
app.command("export")(cli_interchange.export_command)
app.command("import")(cli_interchange.import_command)
app.command("evaluate")(cli_evaluate.evaluate_command)
app.command("families")(cli_families.families_command)
app.command("units")(cli_units.units_command)
app.command("correct")(cli_units.correct_command)

if __name__ == "__main__":
    app()
