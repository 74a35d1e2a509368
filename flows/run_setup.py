"""Resolve an adaptation run once (babelflow/adaptation_run.py): the CLI, the plain pipeline and
the Prefect flow call this, then pass the frozen run to every stage."""

from __future__ import annotations

from importlib import metadata
from pathlib import Path

from babelflow.adaptation_run import AdaptationRun, RunPaths, RunProvenance
from babelflow.entity_policy import parse_entity_options
from babelflow.language_pack import load_pack
from babelflow.settings import BabelflowSettings
from flows.components import translator_for
from source_benchmarks.registry import available_family_of, get_benchmark
from translators.choice import AUTO, default_spec
from translators.registry import validate_language_tag


def run_paths(
    settings: BabelflowSettings, benchmark: str, language: str, translator_id: str, out: Path | None = None
) -> RunPaths:
    layout = settings.layout
    run_dir = layout.run_dir(benchmark, language)
    return RunPaths(
        ir=layout.ir(benchmark),
        memory=layout.memory(benchmark, language, translator_id),
        canonical_map=layout.canonical_map(benchmark, language),
        variant=layout.variant(benchmark, language, out),
        reviewed=layout.reviewed_translations(benchmark, language),
        run_dir=run_dir,
        review_dir=layout.review_dir(benchmark, language),
        overrides=layout.profile_overrides(benchmark),
        targets=layout.targets(benchmark, language),
        behavior_cache=layout.behavior_cache(benchmark, language),
    )


def resolve_run(
    settings: BabelflowSettings,
    benchmark: str,
    language: str,
    *,
    translator: str = "auto",
    source_dir: Path | None = None,
    profile: Path | None = None,
    out: Path | None = None,
    validators: str = "",
    auto_fallback: str | None = None,
    entities: list[str] | tuple[str, ...] = (),
) -> AdaptationRun:
    """Validate the tag, load the pack from the run's project, resolve the translator and the paths: once.

    Refused (exit 2) before any work: an unknown benchmark or one whose runtime is missing, a bad
    tag, a pack that does not load, a translator that cannot run here (no Apertium pair, no key)."""
    family = available_family_of(benchmark)
    entity_overrides = parse_entity_options(entities)  # `--entity CLASS_OR_KIND=POLICY`, checked before any work
    tag = validate_language_tag(language)
    pack = load_pack(tag, settings.project_root)
    if translator == AUTO and auto_fallback is not None:  # e.g. export: no offline translator means empty targets
        translator = default_spec(tag, pack) or auto_fallback
    translator_id = translator_for(translator, tag, pack).translator_id
    bench = get_benchmark(benchmark, source_dir=source_dir)
    return AdaptationRun(
        benchmark=benchmark,
        family=family.name,
        language=tag,
        pack=pack,
        translator_spec=translator,
        translator_id=translator_id,
        source_dir=source_dir,
        profile=profile,
        out=out,
        validators=validators,
        settings=settings,
        paths=run_paths(settings, benchmark, tag, translator_id, out),
        entity_overrides=entity_overrides,
        provenance=RunProvenance(
            babelflow_version=metadata.version("babelflow"),
            benchmark_source_version=bench.source_version,
            family=family.name,
            translator_id=translator_id,
            language_pack=f"{pack.tag}@{pack.version}",
        ),
    )
