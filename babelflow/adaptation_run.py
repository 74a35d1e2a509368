"""One adaptation run, resolved once and frozen: what every stage of it reads.

The request as asked (babelflow/adapt_request.py), its family, the target language (validated
once), the language pack (loaded once, from the run's project, not ambient settings), the translator's
id (resolved once: `auto` becomes the translator it means, and its id keys the memory and caches), the
paths and the provenance. The CLI, the plain pipeline (flows/pipeline/adapt.py) and the Prefect flow
build it with flows/run_setup.py and hand it to every stage; a stage never re-resolves any of it.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import ConfigDict, Field

from babelflow.adapt_request import AdaptRequest
from babelflow.entity_policy import EntityRendering, entity_renderings
from babelflow.ir import EntityClassDecision, Record
from babelflow.language_pack import LanguagePack
from babelflow.settings import BabelflowSettings


class RunPaths(Record):
    """Every file and folder one (benchmark, language, translator) run reads or writes."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    ir: Path
    memory: Path = Field(description="the translator's memory: keyed by the resolved translator id")
    canonical_map: Path
    variant: Path
    reviewed: Path = Field(description="element id -> a reviewer's or human translator's text (review loop, imports)")
    run_dir: Path
    review_dir: Path
    overrides: Path = Field(description="reviewed per-element profile decisions of the benchmark")
    targets: Path
    behavior_cache: Path
    term_base: Path = Field(description="the terms stage's term base: renderings, context, signals, confidence")
    adopted: Path = Field(description="translations adopted from a variant made elsewhere (`babelflow adopt`)")


class RunProvenance(Record):
    """What made the variant: recorded in reports and manifests."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    babelflow_version: str
    benchmark_source_version: str
    family: str
    translator_id: str
    language_pack: str = Field(description="<tag>@<version>")


class AdaptationRun(Record):
    """One (benchmark, language) adaptation, frozen after resolution."""

    model_config = ConfigDict(extra="forbid", frozen=True, arbitrary_types_allowed=True)

    request: AdaptRequest = Field(description="what was asked: stored in the variant's manifest")
    family: str
    language: str = Field(description="the BCP 47 tag, validated")
    pack: LanguagePack
    translator_id: str = Field(description="the translator the request's spec resolved to")
    settings: BabelflowSettings
    paths: RunPaths
    provenance: RunProvenance

    @property
    def benchmark(self) -> str:
        return self.request.benchmark

    @property
    def translator_spec(self) -> str:
        """The translator as asked, spelled as on the command line (auto, pseudo, apertium, PROVIDER:MODEL)."""
        return self.request.translator.text

    @property
    def validators(self) -> str:
        return self.request.validators

    @property
    def source_dir(self) -> Path | None:
        return self.request.source_dir

    @property
    def profile(self) -> Path | None:
        return self.request.profile

    @property
    def out(self) -> Path | None:
        return self.request.out

    @property
    def entity_overrides(self) -> dict[str, EntityRendering]:
        return self.request.entities

    @property
    def pack_version(self) -> str:
        return f"{self.pack.tag}@{self.pack.version}"

    def entity_renderings(self, classes: list[EntityClassDecision]) -> dict[str, EntityRendering]:
        """How this run renders each canonical entity class of the IR (babelflow/entity_policy.py)."""
        return entity_renderings(
            classes,
            script=self.pack.script,
            pseudo=self.pack.offline_rendering is not None,
            pack=self.pack.entities,
            overrides=self.entity_overrides,
        )
