"""`babelflow adopt`: a variant made elsewhere becomes a babelflow variant.

Its texts are read against the source IR (flows/pipeline/variant_reading.py) and saved as the run's adopted
translations (translators/adoption.py); the run's translate stage then uses them below a reviewer's
texts, the canonical map takes one rendering per value from them, and the rebuild writes the variant
as any run does: Preserve values back to the source's text, each rendering wherever the data flow
links it. What was not adopted goes to the translator (`--translator`; none offline for most
languages: those fields stay failures for review), each listed with its reason.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from babelflow.adapt_request import AdaptRequest
from babelflow.adaptation_run import AdaptationRun
from babelflow.atomic_io import sha256_file, write_bytes_atomic
from babelflow.run_lock import run_lock
from babelflow.settings import BabelflowSettings
from flows.components import analyze_or_reuse
from flows.pipeline.adapt import AdaptResult, adapt_run
from flows.pipeline.variant_reading import check_adoptable, open_variant_context, read_variant, where_of
from flows.run_setup import resolve_run
from source_benchmarks import get_benchmark
from translators.adoption import Adoption, NotAdopted, save_adoption
from translators.rebuild import source_folders


@dataclass
class AdoptOutcome:
    adoption: Adoption
    adapted: AdaptResult


@dataclass(frozen=True)
class AdoptedFrom:
    """The variant to adopt: its folder, who made it, and whether people reviewed its texts."""

    folder: Path
    origin: str | None = None  # default: the folder's name
    human_reviewed: bool = False


def read_adoption(run: AdaptationRun, source: AdoptedFrom, progress: Callable[[str], None]) -> Adoption:
    """The adoption record of `source` against the run's source benchmark (refused, exit 2, before any write)."""
    folder = source.folder
    bench = get_benchmark(run.benchmark, source_dir=run.source_dir)
    sources, _ = source_folders(bench)
    check_adoptable(bench, run.benchmark, folder, sources)
    ir = analyze_or_reuse(bench, run.profile, run.paths.ir, progress)
    progress("reading the variant")
    reading = read_variant(open_variant_context(bench, folder, ir, run.language), folder)
    return Adoption(
        origin=source.origin or folder.resolve().name,
        origin_dir=str(folder.resolve()),
        human_reviewed=source.human_reviewed,
        ir_sha256=sha256_file(run.paths.ir),
        texts=reading.texts,
        terms=reading.terms(),
        whole_fields=reading.whole_fields,
        not_adopted=reading.not_adopted,
        restored=reading.restored,
        translatable_fields=reading.translatable_fields,
    )


def seed_adoption(run: AdaptationRun, source: AdoptedFrom, progress: Callable[[str], None]) -> Adoption:
    """Read the variant (refused, exit 2, before any write) and save it as the run's adopted translations:
    the run's next translate stage, `adopt`'s or a flow's, starts from them."""
    adoption = read_adoption(run, source, progress)
    _save(run, adoption)
    return adoption


def _save(run: AdaptationRun, adoption: Adoption) -> None:
    with run_lock(run.settings.layout.locks(), run.benchmark, run.language, holder="adopt"):
        save_adoption(adoption, run.paths.adopted)


def adopt(
    request: AdaptRequest,
    source: AdoptedFrom,
    *,
    settings: BabelflowSettings | None = None,
    progress: Callable[[str], None] | None = None,
    translation_progress: Callable[[int, int], None] | None = None,
) -> AdoptOutcome:
    """Read the variant, save what was adopted, then translate what it lacks and rebuild. A refused run puts
    the previous adoption record back: nothing is left half written."""
    run = resolve_run(settings or BabelflowSettings(), request.for_adoption())
    progress = progress or (lambda message: None)
    path = run.paths.adopted
    previous = path.read_bytes() if path.is_file() else None
    adoption = seed_adoption(run, source, progress)
    try:
        adapted = adapt_run(run, progress=progress, translation_progress=translation_progress)
    except BaseException:
        if previous is None:
            path.unlink(missing_ok=True)
        else:
            write_bytes_atomic(path, previous)
        raise
    refused = refused_texts(adoption, adapted)
    if refused:  # listed with their reason; the translation does not depend on this list (adoption_key)
        adoption = adoption.model_copy(update={"not_adopted": [*adoption.not_adopted, *refused]})
        _save(run, adoption)
    return AdoptOutcome(adoption=adoption, adapted=adapted)


def refused_texts(adoption: Adoption, adapted: AdaptResult) -> list[NotAdopted]:
    """Adopted texts the release checks set aside (an order id dropped): the field keeps the source's text
    until it is corrected or translated, and the review queue names why."""
    elements = adapted.ir.by_id()
    rendered = {term.source for term in adoption.terms}  # a catalogue value's rendering the checks refused
    out = []
    for failure in adapted.outcome.set_aside:
        for element_id in failure.element_ids:
            element = elements.get(element_id)
            if element is None or (element_id not in adoption.texts and failure.source_text not in rendered):
                continue
            out.append(
                NotAdopted(
                    element_id=element_id,
                    artifact=element.artifact,
                    where=where_of(element),
                    reason="refused_by_checks",
                    detail="; ".join(failure.problems[:3]),
                )
            )
    return out
