"""Language packs: one typed, versioned data file per target language (language_packs/<tag>.toml).

A pack carries the tag and its script and direction, name order, number/date/currency
conventions (computed from CLDR via babel, never typed by hand), per-benchmark glossaries of
required terms, forbidden renderings, user-simulator persona texts and pragmatics, the agent's
language clause and notes for reviewers. It feeds the translator (glossary, conventions) and the
validators (glossary use, script). Adding a language is adding a file: no code changes.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Literal

import langcodes
from pydantic import Field, field_validator

from babelflow.errors import BabelflowError, validate_input
from babelflow.glossary import MAX_GLOSSARY_TERMS, MAX_PACK_BYTES
from babelflow.ir import Record
from babelflow.language_tag import MAX_TAG_LENGTH, tag_too_long
from babelflow.toml_input import parse_toml, read_bounded

REPO_PACKS = Path(__file__).resolve().parent.parent / "language_packs"
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
    offline_rendering: Literal["accented", "mirrored"] | None = Field(default=None, description="pseudo-locale style the offline translator produces")
    agent_language_clause: str
    user_simulator: UserSimulator
    glossary: list[GlossaryTerm] = Field(default_factory=list)
    forbidden: list[ForbiddenRendering] = Field(default_factory=list)
    reviewer_notes: str = ""
    derived_from_cldr: bool = Field(default=False, description="a default made from CLDR (babelflow/cldr_pack.py), not a hand-written file")

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
        import datetime

        from babel import Locale
        from babel.dates import format_date
        from babel.numbers import format_currency, format_decimal

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


def packs_dir(project_root: Path | None = None) -> list[Path]:
    """Project packs first (users add theirs there), then the ones shipped with babelflow."""
    folders = []
    if project_root is not None:
        folders.append(Path(project_root) / "language_packs")
    folders.append(REPO_PACKS)
    return folders


def load_pack(tag: str, project_root: Path | None = None) -> LanguagePack:
    too_long = tag_too_long(tag)  # it names the file looked for: bounded before any path is made
    if too_long:
        fix = f"use a tag of at most {MAX_TAG_LENGTH} characters, such as zh-Hans or en-XA"
        raise BabelflowError(too_long, field="--lang", fix=fix)
    for folder in packs_dir(project_root):
        path = folder / f"{tag}.toml"
        if path.exists():
            return read_pack(path)
    from babelflow.cldr_pack import cldr_default_pack

    default = cldr_default_pack(tag)  # a pack refines a language; it is not a precondition
    if default is not None:
        return default
    raise BabelflowError(f"No language pack for {tag!r}", field="--lang", fix=f"add language_packs/{tag}.toml (copy an existing pack; data only)")


_GLOSSARY_FIX = f"keep the glossary to the renderings translators must follow (at most {MAX_GLOSSARY_TERMS:,} terms)"


@lru_cache(maxsize=8)
def _parse_pack(raw: bytes, file: str) -> dict:
    """The parsed TOML of a pack's bytes, once per content: a validation reads the pack in several
    probes, and a 20,000-term glossary takes ~1 s to parse (callers validate it, never change it)."""
    return parse_toml(raw, what="Language pack", file=file)


def read_pack(path: Path) -> LanguagePack:
    try:
        size = Path(path).stat().st_size
        if size > MAX_PACK_BYTES:  # parsing 600,000 terms (51 MB) took 22 s before they could be counted
            raise BabelflowError(
                f"Language pack is {size / 2**20:.1f} MB; at most {MAX_PACK_BYTES // 2**20} MB is read",
                file=path,
                field="glossary",
                fix=_GLOSSARY_FIX,
            )
        raw = read_bounded(path, what="Language pack", max_bytes=MAX_PACK_BYTES)  # not a FIFO or /dev/zero
    except OSError as exc:
        message = f"Language pack cannot be read: {exc.strerror}"
        raise BabelflowError(message, file=path, fix="make the pack a readable file") from None
    data = _parse_pack(raw, str(path))  # not UTF-8, not TOML, nested too deep: named errors
    terms = data.get("glossary")
    if isinstance(terms, list) and len(terms) > MAX_GLOSSARY_TERMS:
        raise BabelflowError(
            f"Language pack has {len(terms):,} glossary terms; at most {MAX_GLOSSARY_TERMS:,} are supported",
            file=path,
            field="glossary",
            fix=_GLOSSARY_FIX,
        )
    pack = validate_input(LanguagePack, data, what="Language pack does not match the schema", file=path, fix="see language_packs/zh-Hans.toml for the format")
    if pack.tag != Path(path).stem:
        raise BabelflowError(f"Pack file name must be its tag ({pack.tag}.toml)", file=path, field="tag", fix=f"rename the file to {pack.tag}.toml")
    return pack


def available_packs(project_root: Path | None = None) -> list[str]:
    tags = {p.stem for folder in packs_dir(project_root) if folder.exists() for p in folder.glob("*.toml")}
    return sorted(tags)
