"""Translations adopted from a variant made elsewhere (issue 40): the record `babelflow adopt` writes,
and how the translate stage uses it.

The adopted texts seed the translation below a reviewer's texts and above the translator's: a unit
whose every field the variant translated is not sent. Each Translate-Canonical value gets one
rendering taken from the variant (the catalogue record's own wins; the competing ones stay listed
with their counts), seeded into the canonical map as origin `adopted`; the rebuild then writes it in
every field the data flow links. A prose mention of the value in an adopted text becomes the map's
rendering, so a product named two ways, or a name the class's policy localizes, reads as the DB does.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter, defaultdict
from pathlib import Path
from typing import Literal

from pydantic import Field

from babelflow.atomic_io import write_bytes_atomic
from babelflow.canonical_map import CanonicalEntry, CanonicalMap, TakenRenderings, is_reviewed, mark_worlds
from babelflow.errors import BabelflowError
from babelflow.ir import Record
from translators.units import TranslationUnit

NotAdoptedReason = Literal[
    "missing",  # the variant has no text at the field's place (a file, a key, a block absent)
    "task_not_in_variant",  # the field's task is not among the variant's tasks
    "structure_differs",  # the artifact's structure differs (another block count): never guessed
    "left_in_source",  # the variant kept the source text of a field babelflow translates
    "code_not_in_variant",  # a code text: the variant holds no copy of its Python file
    "refused_by_checks",  # the adopted text fails the language pack's release checks
]
ChosenBy = Literal["catalogue record", "only rendering", "most fields"]
ADOPTED_ORIGIN = "adopted from"  # unit origins read 'adopted from <origin>'
ADOPTED_TERM_ORIGIN = "canonical map (adopted)"  # a catalogue value's unit whose rendering the variant gave
HUMAN_REVIEWED = " (human-reviewed)"


class NotAdopted(Record):
    """A translated field the variant's text was not taken for, and why: it goes to the translator (or stays
    a failure for review)."""

    element_id: str
    artifact: str
    where: str = Field(description="the field's locator, as the IR names it")
    reason: NotAdoptedReason
    detail: str = ""


class CompetingRendering(Record):
    rendering: str
    element_ids: list[str] = Field(
        description="the variant's fields holding this rendering: the rebuild writes the chosen one there instead"
    )

    @property
    def count(self) -> int:
        return len(self.element_ids)


class AdoptedTerm(Record):
    """One Translate-Canonical value's rendering, taken from the variant."""

    group: str
    source: str
    target: str
    chosen_by: ChosenBy
    competing: list[CompetingRendering] = Field(
        default_factory=list, description="the variant's other renderings of the value, with their counts"
    )
    fields: int = Field(default=0, description="the variant's fields holding the chosen rendering")


class RestoredValue(Record):
    """A Preserve value the variant changed: the rebuild writes the source's text back."""

    element_id: str
    artifact: str
    where: str
    source: str
    variant_text: str
    in_text: str | None = Field(
        default=None,
        description=(
            "where the value is quoted in a translated sentence (policy: \"status is 'tertunda'\"): the sentence as "
            "adopted, with the value written back"
        ),
    )


class Adoption(Record):
    """What `babelflow adopt` took from a variant made elsewhere, per field of the source IR."""

    origin: str = Field(description="who made the variant (shown as 'adopted from <origin>')")
    origin_dir: str = Field(description="the folder it was read from")
    human_reviewed: bool = Field(default=False, description="declared reviewed by people: XLIFF state translated")
    ir_sha256: str = Field(description="the source IR the fields were aligned against")
    texts: dict[str, str] = Field(description="element id -> the variant's text (Translate-Free fields)")
    terms: list[AdoptedTerm] = Field(default_factory=list)
    whole_fields: list[str] = Field(
        default_factory=list,
        description="element ids adopted whole although their sentence count differs from the source's",
    )
    not_adopted: list[NotAdopted] = Field(default_factory=list)
    restored: list[RestoredValue] = Field(default_factory=list)
    translatable_fields: int = Field(description="Translate-Free and Translate-Canonical fields of the source")

    @property
    def unit_origin(self) -> str:
        return f"{ADOPTED_ORIGIN} {self.origin}" + (HUMAN_REVIEWED if self.human_reviewed else "")

    @property
    def adopted_fields(self) -> int:
        return self.translatable_fields - len(self.not_adopted)

    def quoted_renderings(self) -> dict[str, str]:
        """Kept value -> the word the variant quoted for it in its sentences (the most used), which adopt wrote
        back: the checks still find that word where it was forced into an ordinary sentence."""
        counts: dict[str, Counter[str]] = defaultdict(Counter)
        for restored in self.restored:
            if restored.in_text is not None:
                counts[restored.source][restored.variant_text] += 1
        return {value: seen.most_common(1)[0][0] for value, seen in counts.items()}

    def variant_renderings(self) -> dict[tuple[str, str], set[str]]:
        """(group, source) -> every rendering the variant used for the value."""
        return {(t.group, t.source): {t.target, *(c.rendering for c in t.competing)} for t in self.terms}


def adoption_key(path: Path) -> str | None:
    """What of the run's adoption record its translation depends on (texts, renderings, provenance), hashed:
    the fields it lists as not adopted, refusals included, change no translation."""
    adoption = load_adoption(path)
    if adoption is None:
        return None
    used = adoption.model_dump_json(include={"origin", "human_reviewed", "ir_sha256", "texts", "terms"})
    return hashlib.sha256(used.encode()).hexdigest()


def adopted_renderings(path: Path) -> dict[str, str]:
    """`Adoption.quoted_renderings` of the run's adoption record ({} when the run adopted nothing): what the
    validation context of an adopted variant is given."""
    adoption = load_adoption(path)
    return adoption.quoted_renderings() if adoption is not None else {}


def save_adoption(adoption: Adoption, path: Path) -> None:
    write_bytes_atomic(path, adoption.model_dump_json(indent=1).encode())


def load_adoption(path: Path) -> Adoption | None:
    if not path.is_file():
        return None
    try:
        return Adoption.model_validate_json(path.read_bytes())
    except ValueError as exc:
        raise BabelflowError(
            f"Adopted translations cannot be read: {str(exc).splitlines()[0]}",
            file=path,
            fix="run `babelflow adopt` again (it rewrites this file), or delete it to translate without adoption",
        ) from None


def seed_map(
    cmap: CanonicalMap, adoption: Adoption | None, worlds: dict[tuple[str, str], frozenset[str]] | None = None
) -> None:
    """The adopted renderings into the map, below a reviewer's entries (a person's word wins). Two values
    the variant renders alike keep that rendering where they never meet (`worlds`: two VitaBench tasks'
    products, babelflow/worlds.py); where they meet, the value with fewer fields is told apart by its
    source in parentheses and its note says so: the language check puts it in the review queue."""
    if adoption is None:
        return
    worlds = worlds or {}
    known = cmap.lookup()
    adopted = {(t.group, t.source) for t in adoption.terms}
    taken = TakenRenderings(worlds)
    for kept in known.values():  # what the adoption will not replace
        if is_reviewed(kept) or (kept.group, kept.source) not in adopted:
            taken.add(kept.group, kept.source, kept.target)
    ranked = sorted(adoption.terms, key=lambda t: (t.chosen_by != "catalogue record", -t.fields, t.source))
    for term in ranked:
        entry = known.get((term.group, term.source))
        if entry is not None and is_reviewed(entry):
            continue
        target, note = term.target, str(term.chosen_by)
        met = taken.met_by(term.group, term.source, target)
        if met:
            target = f"{term.target} ({term.source})"
            note = f"shares {term.target!r} with {met[0]!r} in one task: told apart by its source; {note}"
        taken.add(term.group, term.source, target)
        cmap.upsert(
            CanonicalEntry(
                group=term.group,
                source=term.source,
                target=target,
                origin="adopted",
                origin_detail=adoption.origin,
                note=(note + "".join(f"; also {c.rendering!r} ({c.count})" for c in term.competing))[:400],
            )
        )
    mark_worlds(cmap, worlds)


def _bounded(rendering: str) -> str:
    """A rendering as a mention: whole words where it begins or ends with a letter of a spaced script."""
    before = r"(?<![A-Za-zÀ-ɏ0-9])" if re.match(r"[A-Za-zÀ-ɏ0-9]", rendering) else ""
    after = r"(?![A-Za-zÀ-ɏ0-9])" if re.search(r"[A-Za-zÀ-ɏ0-9]$", rendering) else ""
    return before + re.escape(rendering) + after


def repair_mentions(
    text: str, mentioned: list[tuple[str, str]], variant: dict[tuple[str, str], set[str]], cmap: CanonicalMap
) -> tuple[str, int]:
    """`text` (an adopted field) with the variant's renderings of each mentioned value replaced by the map's:
    `mentioned` are the (group, source) values the field's source text names. Returns (text, replacements).
    The map's rendering is matched too, and left as it is: 'Máy đọc sách' is not replaced inside
    'Máy đọc sách điện tử'."""
    count = 0
    for group, source in mentioned:
        final = cmap.target_of(group, source)
        others = sorted((r for r in variant.get((group, source), ()) if r != final and len(r) >= 2), key=len)
        if not final or not others:
            continue
        alternatives = sorted([final, *others], key=len, reverse=True)  # longest first
        pattern = re.compile("|".join(_bounded(r) for r in alternatives))

        def swap(match: re.Match[str], final: str = final) -> str:
            nonlocal count
            if match.group() == final:
                return final
            count += 1
            return final

        text = pattern.sub(swap, text)
    return text, count


def adopted_texts(
    adoption: Adoption | None,
    free_units: list[TranslationUnit],
    groups: dict[str, str],
    cmap: CanonicalMap,
    reviewed: dict[str, str],
) -> dict[str, str]:
    """element id -> its adopted text, each mention of a canonical value in the map's rendering."""
    if adoption is None:
        return {}
    variant = adoption.variant_renderings()
    out: dict[str, str] = {}
    for unit in free_units:
        mentioned = [(groups[t], t) for t in unit.inline_tokens if t in groups]
        for element_id in unit.element_ids:
            text = adoption.texts.get(element_id)
            if text is None or element_id in reviewed:
                continue
            out[element_id] = repair_mentions(text, mentioned, variant, cmap)[0] if mentioned else text
    return out
