"""Stored human texts (reviewed translations: corrections, imports, hand edits, form replacements)
against the language pack's release checks, one rule for the flow's translate stage and for what the
review workbench shows: when only stored human texts fail, they are set aside (the unit keeps its
machine text, `TranslationOutcome.set_aside` names each with its problems) instead of stopping the
run; the texts being applied right now are not set aside, so their command is refused whole."""

from __future__ import annotations

from dataclasses import dataclass

from babelflow.canonical_map import CanonicalMap
from babelflow.entity_policy import EntityRendering
from babelflow.ir import IRDocument
from babelflow.language_pack import LanguagePack
from translators.adoption import ADOPTED_ORIGIN, ADOPTED_TERM_ORIGIN, Adoption
from translators.engine import TranslationEngine
from translators.outcomes import Progress, TranslationOutcome, UnitFailure
from translators.pack_checks import check_translations
from translators.units import extract_units

HUMAN_ORIGINS = ("reviewed", "canonical map (reviewer)")


@dataclass(frozen=True)
class FailingUnit:
    """One unit the pack's release checks refuse, with who made its text."""

    failure: UnitFailure
    origin: str

    @property
    def unit_key(self) -> str:
        return self.failure.unit_key

    @property
    def element_ids(self) -> list[str]:
        return self.failure.element_ids


def failing_units(pack: LanguagePack, ir: IRDocument, outcome: TranslationOutcome) -> list[FailingUnit]:
    """The units whose texts the pack's release checks refuse, each problem once."""
    elements = {e.id: e for e in ir.elements}
    canonical, free = extract_units(ir)
    failing: list[FailingUnit] = []
    for unit in canonical + free:
        fields = [elements[i] for i in unit.element_ids if i in outcome.targets]
        found = check_translations(pack, ir.model_copy(update={"elements": fields}), outcome.targets)
        if found:
            failure = UnitFailure(
                unit_key=unit.key,
                element_ids=unit.element_ids,
                source_text=unit.text,
                problems=list(dict.fromkeys(found)),
            )
            failing.append(FailingUnit(failure, outcome.unit_origins.get(unit.key, "?")))
    return failing


def _set_aside_origin(origin: str) -> bool:
    """A text a person or another team gave: refused on its own, not the run (a draft failing is the pack's)."""
    return origin == "reviewed" or origin.startswith(ADOPTED_ORIGIN) or origin == ADOPTED_TERM_ORIGIN


def translate_setting_aside(
    engine: TranslationEngine,
    pack: LanguagePack,
    ir: IRDocument,
    cmap: CanonicalMap,
    *,
    reviewed: dict[str, str],
    renderings: dict[str, EntityRendering],
    progress: Progress | None = None,
    applying: frozenset[str] = frozenset(),
    adoption: Adoption | None = None,
) -> TranslationOutcome:
    """The engine's outcome with the stored human texts (and adopted ones) the release checks refuse set
    aside, when they are all that fails (a failing draft is the pack's problem: the caller's release check
    says so). `applying`: unit keys whose human text is being applied now: never set aside."""
    outcome = engine.translate(ir, cmap, reviewed=reviewed, progress=progress, renderings=renderings, adoption=adoption)
    failing = failing_units(pack, ir, outcome)
    refused = [u for u in failing if _set_aside_origin(u.origin) and u.unit_key not in applying]
    if not refused or len(refused) != len(failing):
        return outcome
    withheld = {e for u in refused for e in u.element_ids}
    kept = {k: v for k, v in reviewed.items() if k not in withheld}
    adopted = dict(adoption.texts) if adoption is not None else {}
    if adoption is not None:
        # an adopted catalogue rendering the checks refuse leaves the map: the translator renders the value
        values = {u.failure.source_text for u in refused if u.origin == ADOPTED_TERM_ORIGIN}
        dropped = [t for t in adoption.terms if t.source in values]
        cmap.discard({(t.group, t.source) for t in dropped})
        rendering = {t.source: t.target for t in dropped}
        adopted |= {
            e: rendering[u.failure.source_text]
            for u in refused
            if u.failure.source_text in rendering
            for e in u.element_ids
        }
        adoption = adoption.model_copy(
            update={
                "texts": {k: v for k, v in adoption.texts.items() if k not in withheld},
                "terms": [t for t in adoption.terms if t not in dropped],
            }
        )
    outcome = engine.translate(ir, cmap, reviewed=kept, progress=progress, renderings=renderings, adoption=adoption)
    human = {**adopted, **reviewed}
    set_aside = [
        u.failure.model_copy(update={"human_text": human.get(u.element_ids[0]) or u.failure.source_text})
        for u in refused
    ]
    return outcome.model_copy(update={"set_aside": set_aside})
