"""What a translation run gives back: per-unit failures, the run's counts, and the targets (records that cross
from the translators to the flows)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pydantic import Field

from babelflow.ir import Record

Progress = Callable[[int, int], None]


class UnitFailure(Record):
    unit_key: str
    element_ids: list[str]
    source_text: str
    problems: list[str]
    human_text: str | None = Field(
        default=None, description="a human text set aside because it fails the release checks (None: a translator's)"
    )


class TranslationStats(Record):
    translator_id: str
    canonical_units: int
    free_units: int
    characters_sent: int = 0
    naive_characters: int
    unique_characters: int
    requests: int = 0
    segments_sent: int = 0
    memory_hits: int = 0
    slot_retries: int = Field(default=0, description="code texts sent again alone after their slots came back changed")
    units_by_origin: dict[str, int] = Field(
        default_factory=dict,
        description="who made the units: translator id, '… (memory)', 'canonical map (…)', 'reviewed', 'failed'",
    )
    half_translated_terms: list[str] = Field(
        default_factory=list,
        description="canonical terms kept whole because the translator left source words in them",
    )
    disambiguated_terms: list[str] = Field(
        default_factory=list,
        description="canonical terms the translator rendered like another term of their class, made distinct by "
        "the source term in parentheses ('source -> target'); a reviewer may give a better rendering",
    )


class TranslationOutcome(Record):
    targets: dict[str, str] = Field(description="element id -> translated text (source text for failed units)")
    failures: list[UnitFailure]
    stats: TranslationStats
    unit_origins: dict[str, str] = Field(
        default_factory=dict, description="unit key -> who made its text (see TranslationStats.units_by_origin)"
    )
    set_aside: list[UnitFailure] = Field(
        default_factory=list,
        description="stored human texts (hand edits, earlier corrections) the release checks refuse: the unit keeps"
        " its machine text and the review queue gets a finding",
    )


@dataclass
class TermsOutcome:
    """Step 1's result: canonical element id -> rendering, failed terms, and the translator's own drafts
    ((group, source) -> rendering as the translator gave it, before terms it half translated were kept whole)."""

    targets: dict[str, str]
    failures: list[UnitFailure]
    stats: TranslationStats
    drafts: dict[tuple[str, str], str]
