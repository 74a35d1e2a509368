"""The language pack's schema: glossary terms, forbidden renderings, the user simulator's persona, the pack.

Loading and resolving packs is babelflow/language_pack.py; the CLDR default pack (cldr_pack.py)
builds one of these too, so both import the schema from here."""

from __future__ import annotations

import datetime
import re
from typing import Literal

import langcodes
from babel import Locale
from babel.dates import format_date
from babel.numbers import format_currency, format_decimal
from pydantic import Field, field_validator

from babelflow.entity_policy import EntityRendering
from babelflow.ir import Record
from babelflow.language_tag import tag_too_long

_SEMVER = re.compile(r"^\d+\.\d+\.\d+$")


class GlossaryTerm(Record):
    benchmark: str = Field(description="benchmark id the term applies to, or * for all")
    source: str
    target: str
    note: str = ""


class ForbiddenRendering(Record):
    benchmark: str = "*"
    target: str = Field(description="a rendering that must not appear in translations")
    source: str = ""
    note: str = ""


class UserSimulator(Record):
    persona: str = Field(description="persona text in this language, given to the simulated user")
    pragmatics: str = Field(default="", description="politeness, register, how numbers and dates are spoken")


class LanguagePack(Record):
    tag: str
    version: str
    name: str
    script: str = Field(description="ISO 15924 code, e.g. Latn, Hans, Deva, Arab")
    direction: Literal["ltr", "rtl"]
    name_order: Literal["given_family", "family_given"]
    cldr_locale: str = Field(description="CLDR locale for conventions (pseudo-locales use their base, e.g. en)")
    offline_rendering: Literal["accented", "mirrored"] | None = Field(
        default=None, description="pseudo-locale style the offline translator produces"
    )
    agent_language_clause: str
    user_simulator: UserSimulator
    glossary: list[GlossaryTerm] = Field(default_factory=list)
    forbidden: list[ForbiddenRendering] = Field(default_factory=list)
    reviewer_notes: str = ""
    entities: dict[str, EntityRendering] = Field(
        default_factory=dict,
        description="entity rendering by class name or kind (catalogue, person, place, other): keep, translate "
        "or localize; unset classes follow the default for their kind (babelflow/entity_policy.py)",
    )
    derived_from_cldr: bool = Field(
        default=False, description="a default made from CLDR (babelflow/cldr_pack.py), not a hand-written file"
    )

    @field_validator("tag")
    @classmethod
    def _bcp47(cls, tag: str) -> str:
        too_long = tag_too_long(tag)
        if too_long:
            raise ValueError(too_long)
        if not langcodes.tag_is_valid(tag):
            raise ValueError(f"{tag!r} is not a valid BCP 47 tag")
        return tag

    @field_validator("version")
    @classmethod
    def _semver(cls, version: str) -> str:
        if not _SEMVER.match(version):
            raise ValueError("version must be MAJOR.MINOR.PATCH")
        return version

    def glossary_for(self, benchmark: str) -> list[GlossaryTerm]:
        return [g for g in self.glossary if g.benchmark in ("*", benchmark)]

    def conventions(self) -> dict[str, str]:
        """Number, date and currency conventions from CLDR (babel)."""
        locale = Locale.parse(self.cldr_locale, sep="_" if "_" in self.cldr_locale else "-")
        return {
            "decimal_example": format_decimal(1234567.89, locale=locale),
            "date_example": format_date(datetime.date(2024, 5, 15), format="medium", locale=locale),
            "currency_example": format_currency(1628.5, "USD", locale=locale),
            "cldr_text_direction": locale.text_direction,
        }

    @property
    def is_pseudo(self) -> bool:
        return self.offline_rendering is not None
