"""One adaptation run, resolved once and frozen: what every stage of it reads.

The benchmark, its family, the target language (validated once), the language pack (loaded once,
from the run's project, not ambient settings), the translator (resolved once: `auto` becomes the
translator it means, and its id keys the memory and caches), the paths, the entity policy and the
provenance. The CLI, the plain pipeline (flows/adapt.py) and the Prefect flow build it with
flows/run_setup.py and hand it to every stage; a stage never re-resolves any of it.
"""

from __future__ import annotations

from enum import Enum
from pathlib import Path

from pydantic import ConfigDict, Field

from babelflow.ir import Record
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


class EntityPolicy(str, Enum):
    """How the run renders entity values (names, catalogue values). Today the profile and the
    evidence decide per field and entities the evidence links stay as they are (KEEP)."""

    KEEP = "keep"


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
    entity_policy: EntityPolicy = EntityPolicy.KEEP
    provenance: RunProvenance

    @property
    def pack_version(self) -> str:
        return f"{self.pack.tag}@{self.pack.version}"
