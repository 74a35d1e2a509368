"""`babelflow validate`: a variant against its source on four layers, its finding groups, and (with
--review) the findings saved as the variant's review queue."""

from __future__ import annotations

from pathlib import Path

import typer
from pydantic import Field
from rich.table import Table

from babelflow.errors import BabelflowError
from babelflow.ir import Record
from babelflow.output_guard import check_file_out
from babelflow.settings import BabelflowSettings
from babelflow.variant import MANIFEST_NAME, checked_owner, load_manifest, save_record
from flows.cli.common import cli_errors, console, shown_text, stage_line
from flows.cli.common import out as report
from flows.cli.options import BENCHMARK, DOMAIN_PACKAGE, LANG, PROFILE, SOURCE_DIR, VALIDATORS, Declared, takes
from source_benchmarks import get_benchmark
from source_benchmarks.registry import resolve_benchmark
from validators.findings import group_findings, summarize


def check_variant_is_of(folder: Path, benchmark: str, lang: str) -> None:
    """A variant babelflow built names its benchmark and language in its manifest: validating it as
    another benchmark (tau2-mock's as tau3-mock) or language compares unrelated files. A folder made
    elsewhere (no manifest, e.g. SEATau's) is taken as given."""

    owner = checked_owner(folder, benchmark, "--variant", "validate")
    if owner is not None and (folder / MANIFEST_NAME).is_file():
        made_for = load_manifest(folder).language
        if made_for != lang:
            raise BabelflowError(
                f"{folder} is the {made_for} variant, not {lang}",
                field="--lang",
                fix=f"pass --lang {made_for}, or the {lang} variant",
            )


class ValidationOutputs(Record):
    """Where a validation's results go besides the terminal."""

    failure_set: Path | None = Field(default=None, description="the failure set as JSON")
    inferred_map: Path | None = Field(default=None, description="renderings inferred from a variant made elsewhere")
    review_queue: bool = Field(default=False, description="the findings as the variant's review queue")


OUTPUTS = (
    Declared("json_out", Path | None, typer.Option(None, "--json", help="Write the failure set as JSON here.")),
    Declared(
        "save_inferred_map_to",
        Path | None,
        typer.Option(
            None,
            "--save-inferred-map",
            help="Write the renderings inferred from a variant made elsewhere as a canonical map (JSON) here.",
        ),
    ),
    Declared(
        "for_review",
        bool,
        typer.Option(
            False,
            "--review",
            help="Save the findings as the variant's review queue: `babelflow review` then opens them (a hand-edited"
            " variant, or one made elsewhere with --variant).",
        ),
    ),
)


def _outputs(given: dict) -> ValidationOutputs:
    return ValidationOutputs(
        failure_set=given["json_out"], inferred_map=given["save_inferred_map_to"], review_queue=given["for_review"]
    )


@cli_errors
@takes("outputs", OUTPUTS, _outputs)
def validate(
    outputs: ValidationOutputs,
    benchmark: str = BENCHMARK.info,
    lang: str = LANG.info,
    variant: Path | None = typer.Option(
        None,
        "--variant",
        help="Variant folder; default adapted/<benchmark>/<lang>/. May be another tool's copy of tau2's data/ folder.",
    ),
    source_dir: Path | None = SOURCE_DIR.info,
    validators: str = VALIDATORS.info,
    profile: Path | None = PROFILE.info,
    domain_package: str | None = DOMAIN_PACKAGE.info,
) -> None:
    """Validate a variant against its source on four layers. Exit 0: no findings, 1: findings, 2: error.

    With --validators, each agent reviews the probes' evidence with its own model; their token
    usage is printed and saved under .babelflow/costs/<benchmark>/<lang>/validate.json."""
    benchmark = resolve_benchmark(benchmark, domain_package)
    from babelflow.canonical_map import load_canonical_map, map_exists  # noqa: PLC0415 - +36 ms on --help
    from babelflow.llm.costs import CostLedger, report_costs  # noqa: PLC0415 - +11 ms on --help
    from babelflow.variant import CANONICAL_MAP_NAME  # noqa: PLC0415 - +5 ms on --help
    from flows.components import analyze_or_reuse, check_same_profile  # noqa: PLC0415 - +1.8 s on --help
    from translators.spec import validate_language_tag  # noqa: PLC0415 - +0.4 s on --help
    from validators.model_backends import make_validator_agents  # noqa: PLC0415 - +0.7 s on --help
    from validators.run import validate_variant, variant_context  # noqa: PLC0415 - +0.4 s on --help

    validate_language_tag(lang)
    costs = CostLedger()
    settings = BabelflowSettings()
    memory = settings.layout.agent_memory(benchmark, lang)
    agents = (
        make_validator_agents(validators, costs=costs, memory_dir=memory) if validators.strip() else None
    )  # keys checked before any work
    from translators.adoption import adopted_renderings  # noqa: PLC0415 - off --help
    from translators.rebuild import source_folders  # noqa: PLC0415 - +0.15 s on --help

    bench = get_benchmark(benchmark, source_dir=source_dir)
    sources, _ = source_folders(bench)
    json_out, save_inferred_map_to = outputs.failure_set, outputs.inferred_map
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
            cmap = load_canonical_map(cmap_path, benchmark, lang) if map_exists(cmap_path) and not own_map else None
            context = variant_context(
                bench,
                layout.variant(benchmark, lang, variant),
                ir,
                lang,
                canonical_map=cmap,
                # the project's own variant: what adopt wrote back is still known to the checks
                adopted_renderings=adopted_renderings(layout.adopted_translations(benchmark, lang))
                if variant is None
                else {},
            )
            failures = validate_variant(
                context,
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
    if variant is None:  # the project's own variant: what `babelflow adopt` repaired is reviewed too
        from flows.pipeline.adoption_findings import with_adoption_repairs  # noqa: PLC0415 - off --help

        failures = with_adoption_repairs(failures, layout.adopted_translations(benchmark, lang), ir)
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
    if outputs.review_queue:
        report.print(queue_for_review(settings, benchmark, lang, variant, failures), highlight=False, soft_wrap=True)
    if summary.blocking:  # notes (a policy of the variant, a file the harness supplies) need no fix
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
