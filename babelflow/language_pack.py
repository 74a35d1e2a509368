"""Language packs: one typed, versioned data file per target language (language_packs/<tag>.toml).

A pack carries the tag and its script and direction, name order, number/date/currency
conventions (computed from CLDR via babel, never typed by hand), per-benchmark glossaries of
required terms, forbidden renderings, user-simulator persona texts and pragmatics, the agent's
language clause and notes for reviewers. It feeds the translator (glossary, conventions) and the
validators (glossary use, script). Adding a language is adding a file: no code changes.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from babelflow.cldr_pack import cldr_default_pack
from babelflow.errors import BabelflowError, validate_input
from babelflow.glossary import MAX_GLOSSARY_TERMS, MAX_PACK_BYTES
from babelflow.language_pack_model import ForbiddenRendering, GlossaryTerm, LanguagePack, UserSimulator
from babelflow.language_tag import MAX_TAG_LENGTH, tag_too_long
from babelflow.toml_input import parse_toml, read_bounded

__all__ = [
    "ForbiddenRendering",
    "GlossaryTerm",
    "LanguagePack",
    "UserSimulator",
    "available_packs",
    "load_pack",
    "read_pack",
]

REPO_PACKS = Path(__file__).resolve().parent.parent / "language_packs"


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
    default = cldr_default_pack(tag)  # a pack refines a language; it is not a precondition
    if default is not None:
        return default
    raise BabelflowError(
        f"No language pack for {tag!r}",
        field="--lang",
        fix=f"add language_packs/{tag}.toml (copy an existing pack; data only)",
    )


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
    pack = validate_input(
        LanguagePack,
        data,
        what="Language pack does not match the schema",
        file=path,
        fix="see language_packs/zh-Hans.toml for the format",
    )
    if pack.tag != Path(path).stem:
        raise BabelflowError(
            f"Pack file name must be its tag ({pack.tag}.toml)",
            file=path,
            field="tag",
            fix=f"rename the file to {pack.tag}.toml",
        )
    return pack


def available_packs(project_root: Path | None = None) -> list[str]:
    tags = {p.stem for folder in packs_dir(project_root) if folder.exists() for p in folder.glob("*.toml")}
    return sorted(tags)
