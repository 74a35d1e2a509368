"""Resolve an adaptation run once (babelflow/adaptation_run.py): the CLI, the plain pipeline and
the Prefect flow call this, then pass the frozen run to every stage."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from importlib import metadata
from pathlib import Path

from babelflow.adapt_request import AdaptRequest
from babelflow.adaptation_run import AdaptationRun, RunPaths, RunProvenance
from babelflow.errors import StaleArtifactError
from babelflow.language_pack import load_pack
from babelflow.settings import BabelflowSettings
from babelflow.variant import load_manifest
from source_benchmarks.registry import available_family_of, get_benchmark
from translators.spec import make_translator, translator_id_of, validate_language_tag


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
        term_base=layout.term_base(benchmark, language),
        adopted=layout.adopted_translations(benchmark, language),
    )


# runs a command resolved before starting the flow in this process (`resolved_once`): the flow's own
_RESOLVED: dict[str, AdaptationRun] = {}


def _resolution_key(settings: BabelflowSettings, request: AdaptRequest) -> str:
    return settings.model_dump_json() + request.model_dump_json()


@contextmanager
def resolved_once(runs: list[AdaptationRun]) -> Iterator[None]:
    """While a command runs the flow in this process, `resolve_run` answers the requests of `runs` (its
    pre-check resolved them before any work) with those runs: one resolution per language per process."""
    keys = [_resolution_key(run.settings, run.request) for run in runs]
    _RESOLVED.update(zip(keys, runs, strict=True))
    try:
        yield
    finally:
        for key in keys:
            _RESOLVED.pop(key, None)


def resolve_run(settings: BabelflowSettings, request: AdaptRequest, *, translating: bool = True) -> AdaptationRun:
    """Validate the tag, load the pack from the run's project, resolve the translator and the paths: once.

    Refused (exit 2) before any work: an unknown benchmark or one whose runtime is missing, a bad
    tag, a pack that does not load, a translator that cannot run here (no Apertium pair, no key).
    ``translating`` False: the run only reads what was made (units, review, corrections), so a model
    translator's key is not asked for."""
    known = _RESOLVED.get(_resolution_key(settings, request))
    if known is not None:
        return known
    family = available_family_of(request.benchmark)
    tag = validate_language_tag(request.language)
    if settings.layout.adopted_translations(request.benchmark, tag).is_file():
        request = request.for_adoption()  # a later run of an adopted language asks what `adopt` asked
    pack = load_pack(tag, settings.project_root)
    translator_id = (
        make_translator(request.translator, tag, pack).translator_id
        if translating
        else translator_id_of(request.translator, tag, pack)
    )
    bench = get_benchmark(request.benchmark, source_dir=request.source_dir)
    return AdaptationRun(
        request=request,
        family=family.name,
        language=tag,
        pack=pack,
        translator_id=translator_id,
        settings=settings,
        paths=run_paths(settings, request.benchmark, tag, translator_id, request.out),
        provenance=RunProvenance(
            babelflow_version=metadata.version("babelflow"),
            benchmark_source_version=bench.source_version,
            family=family.name,
            translator_id=translator_id,
            language_pack=f"{pack.tag}@{pack.version}",
        ),
    )


def stored_request(settings: BabelflowSettings, benchmark: str, language: str) -> AdaptRequest:
    """What the run that made the variant asked for (its manifest): every rebuild of the run (the review
    workbench, `units`, `correct`, `export`, `import`) asks the same. The defaults for a variant made
    before manifests stored requests, or made elsewhere."""
    try:
        manifest = load_manifest(settings.layout.variant(benchmark, language))
    except StaleArtifactError:
        manifest = None
    if manifest is None or manifest.request is None or manifest.benchmark != benchmark:
        return AdaptRequest(benchmark=benchmark, language=language)
    return manifest.request
