"""One adaptation run, resolved once and frozen: what every stage of it reads.

The benchmark, its family, the target language (validated once), the language pack (loaded once,
from the run's project, not ambient settings), the translator (resolved once: `auto` becomes the
translator it means, and its id keys the memory and caches), the paths, the entity overrides and the
provenance. The CLI, the plain pipeline (flows/pipeline/adapt.py) and the Prefect flow build it with
flows/run_setup.py and hand it to every stage; a stage never re-resolves any of it.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import ConfigDict, Field

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

    benchmark: str
    family: str
    language: str = Field(description="the BCP 47 tag, validated")
    pack: LanguagePack
    translator_spec: str = Field(description="as asked (auto, pseudo, apertium, PROVIDER:MODEL)")
    translator_id: str = Field(description="the translator the spec resolved to")
    source_dir: Path | None = None
    profile: Path | None = None
    out: Path | None = None
    validators: str = Field(default="", description="comma-separated PROVIDER:MODEL specs of validator agents")
    settings: BabelflowSettings
    paths: RunPaths
    entity_overrides: dict[str, EntityRendering] = Field(
        default_factory=dict, description="--entity CLASS_OR_KIND=POLICY: over the pack's table and the defaults"
    )
    provenance: RunProvenance

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
