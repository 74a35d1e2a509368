"""The unit-level review workbench of one (benchmark, language): every translation unit with its
source and current target, its context (artifact, field, task, tool), its provenance (translator,
memory, canonical map, a human correction or import with author and time) and its checks.

The current text is what the next adapt/flow round writes: the engine is run over the translation
memory with the reviewed texts (no translator call for a unit the memory holds; 1.9 s on es retail).
Human texts are kept twice: the applied map (`reviewed_translations.json`, element id -> text, the
pipeline's input) and an append-only log of corrections (who, when, the previous text) next to the
decision log, from which provenance is read.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import orjson

from babelflow.adaptation_run import AdaptationRun
from babelflow.canonical_map import CanonicalMap, load_canonical_map
from babelflow.errors import BabelflowError
from babelflow.ir import IRDocument, IRElement, TranslationType
from babelflow.settings import BabelflowSettings
from flows.components import analyze_or_reuse
from flows.review.unit_records import (
    REFUSING_FIDELITY,
    Correction,
    CorrectionLog,
    UnitCheck,
    UnitRecord,
    origin_class,
    reprotect,
    stratum_of,
    xliff_state,
)
from flows.run_setup import resolve_run, stored_request
from source_benchmarks import get_benchmark
from translators.adoption import load_adoption
from translators.engine import TranslationEngine
from translators.human_texts import translate_setting_aside
from translators.interface import TranslationRequest, TranslationResponse, TranslationUsage, Translator
from translators.memory import TranslationMemory
from translators.pack_checks import check_translations
from translators.placeholders import PlaceholderError, ProtectedText, restore
from translators.spec import make_translator
from translators.unit_protection import pack_glossary, protect_as_rendered, protect_unit
from translators.units import TranslationUnit, canonical_groups_of_values, extract_units
from validators.finding_kinds import Severity
from validators.probes.pair_checks import FieldPair, check_pair

PENDING = "not translated yet: its translation-memory key changed (a glossary term, a canonical rendering, the source)"


class MemoryOnly:
    """Reads without translating: a unit the memory lacks is reported pending, and the next adapt or
    flow round translates it (and counts it). `babelflow units` and sign-off never call a translator."""

    def __init__(self, translator_id: str):
        self.translator_id = translator_id

    def translate(self, request: TranslationRequest) -> TranslationResponse:
        return TranslationResponse(
            translator_id=self.translator_id,
            segments=[],
            usage=TranslationUsage(input_characters=0, output_characters=0, requests=0),
            failed={segment.segment_id: [PENDING] for segment in request.segments},
        )


# fidelity findings a human text may not carry unless the reviewer insists (--force): the text is
# wrong whoever wrote it (numbers, protected tokens, placeholders), or it is not in the target
# language (an English target copied through, another language)
REFUSING_CHECKS = REFUSING_FIDELITY | {"untranslated"}


def _restores_to(coded: str, protected: ProtectedText, text: str) -> bool:
    """Is `coded` the live `text` with its codes? (A term's map rendering may differ from its draft: 'morado'.)"""
    try:
        return restore(coded, protected) == text
    except PlaceholderError:
        return False


def read_reviewed(path: Path) -> dict[str, str]:
    return orjson.loads(path.read_bytes()) if path.exists() else {}


@dataclass
class Workbench:
    """Every unit of one (benchmark, language) as the next round would write it."""

    run: AdaptationRun
    ir: IRDocument
    cmap: CanonicalMap
    engine: TranslationEngine
    units: list[TranslationUnit]
    targets: dict[str, str]
    origins: dict[str, str]
    protected: dict[str, ProtectedText]
    signed: bool

    @classmethod
    def load(cls, run: AdaptationRun, *, translate_missing: bool = False) -> Workbench:
        """`translate_missing`: draft the units the memory lacks (export: the file needs a draft to
        post-edit); else they are shown pending and no translator runs."""
        # imported here: flows.review.signoff imports this module's records
        from flows.review.signoff import signoff_state  # noqa: PLC0415

        benchmark = run.benchmark
        bench = get_benchmark(benchmark, source_dir=run.source_dir)
        ir = analyze_or_reuse(bench, run.profile, run.paths.ir, lambda m: None)
        cmap = load_canonical_map(run.paths.canonical_map, benchmark, run.language)
        drafter: Translator = (
            make_translator(run.request.translator, run.language, run.pack)
            if translate_missing
            else MemoryOnly(run.translator_id)  # reading what was made: no model, no key
        )
        engine = TranslationEngine(
            drafter,
            run.language,
            TranslationMemory(run.paths.memory),
            glossary=pack_glossary(run.pack, benchmark),
        )
        reviewed = read_reviewed(run.paths.reviewed)
        # the canonical map is copied: the engine adds its new terms to it, which only a run saves
        outcome = translate_setting_aside(  # the texts the variant holds: a refused human text is set aside
            engine,
            run.pack,
            ir,
            cmap.model_copy(deep=True),
            reviewed=reviewed,
            renderings=run.entity_renderings(ir.entity_classes),
            adoption=load_adoption(run.paths.adopted),
        )
        canonical, free = extract_units(ir)
        groups = canonical_groups_of_values(ir)
        protected = {u.key: protect_unit(u, cmap, groups) for u in canonical + free}
        for unit in canonical:  # a term code a reviewer rendered ('AC' in 'adaptador de CA') is no code of the unit
            target = outcome.targets.get(unit.element_ids[0], "") if unit.element_ids else ""
            if target and reprotect(target, protected[unit.key]) is None:
                protected[unit.key] = protect_as_rendered(unit, target)
        signed = signoff_state(run.paths.variant).valid
        origins = dict(outcome.unit_origins)
        for failure in outcome.failures:
            if failure.problems == [PENDING]:
                origins[failure.unit_key] = "pending"
        return cls(run, ir, cmap, engine, canonical + free, outcome.targets, origins, protected, signed)

    @classmethod
    def of_variant(cls, settings: BabelflowSettings, benchmark: str, language: str) -> Workbench:
        """The units of the variant as its run made them: the run rebuilt from the request its manifest stores."""
        return cls.load(resolve_run(settings, stored_request(settings, benchmark, language), translating=False))

    @property
    def language(self) -> str:
        return self.run.language

    @property
    def settings(self) -> BabelflowSettings:
        return self.run.settings

    @cached_property
    def elements(self) -> dict[str, IRElement]:
        return {e.id: e for e in self.ir.elements}

    @cached_property
    def _task_ids(self) -> dict[tuple[str, object], str]:
        """(artifact, index in its task list) -> task id: the IR keeps the tasks' ids as Preserve fields."""
        out: dict[tuple[str, object], str] = {}
        for element in self.ir.elements:
            path: tuple = getattr(element.locator, "path", ())
            if len(path) == 2 and path[1] == "id" and isinstance(path[0], int) and element.role.startswith("tasks"):
                out[(element.artifact, path[0])] = element.source_text
        return out

    def task_of(self, element: IRElement) -> str | None:
        path = getattr(element.locator, "path", ())
        return self._task_ids.get((element.artifact, path[0])) if path and isinstance(path[0], int) else None

    @staticmethod
    def tool_of(element: IRElement) -> str | None:
        if element.locator.kind != "python_literal":
            return None
        return element.locator.qualname

    @cached_property
    def log(self) -> CorrectionLog:
        return CorrectionLog(self.run.paths.review_dir)

    @cached_property
    def _open_findings(self) -> dict[str, list[str]]:
        from flows.review.store import ReviewStore  # noqa: PLC0415 - the queue is read only when asked for

        queue = ReviewStore(self.run.paths.review_dir).queue()
        out: dict[str, list[str]] = {}
        for finding in queue.findings if queue else []:
            if finding.element_id:
                out.setdefault(finding.element_id, []).append(finding.id)
        return out

    @cached_property
    def records(self) -> list[UnitRecord]:
        latest = self.log.latest()
        counts: dict[str, int] = {}
        for correction in self.log.entries():
            counts[correction.unit_key] = counts.get(correction.unit_key, 0) + 1
        return [self._record(unit, latest.get(unit.key), counts.get(unit.key, 0)) for unit in self.units]

    def _record(self, unit: TranslationUnit, human: Correction | None, corrections: int) -> UnitRecord:
        fields = [self.elements[i] for i in unit.element_ids]
        target = self.targets.get(unit.element_ids[0], "") if unit.element_ids else ""
        origin = self.origins.get(unit.key, "none")
        if human is not None and human.text != target:
            human = None  # a later run replaced it (a retranslation after a confirmed finding): not this text
        cls = origin_class(origin, human)
        return UnitRecord(
            key=unit.key,
            kind=unit.kind,
            source=unit.text,
            target=target,
            element_ids=list(unit.element_ids),
            canonical_group=unit.canonical_group,
            artifacts=sorted({e.artifact for e in fields}),
            roles=sorted({e.role for e in fields}),
            tasks=sorted({t for t in map(self.task_of, fields) if t}, key=lambda t: (len(t), t)),
            tools=sorted({t for t in map(self.tool_of, fields) if t}),
            origin=origin,
            origin_class=cls,
            human=human,
            corrections=corrections,
            stratum=stratum_of(fields[0].role) if fields else "other",
            state=xliff_state(target, cls, self.signed),
            findings=sorted({f for e in unit.element_ids for f in self._open_findings.get(e, [])}),
        )

    def find(self, key: str) -> UnitRecord:
        """A unit by its key or a unique prefix of it (at least 6 characters)."""
        matches = [r for r in self.records if r.key == key] or (
            [r for r in self.records if r.key.startswith(key)] if len(key) >= 6 else []
        )
        if len(matches) != 1:
            what = "no unit" if not matches else f"{len(matches)} units"
            raise BabelflowError(
                f"{what} with id {key!r} in {self.run.benchmark} {self.language}",
                field="--id",
                fix=f"list the units with `babelflow units {self.run.benchmark} --lang {self.language}`"
                " and give one id (or a unique prefix of 6+ characters)",
            )
        return matches[0]

    def unit_of_element(self, element_id: str) -> UnitRecord:
        for record in self.records:
            if element_id in record.element_ids:
                return record
        raise BabelflowError(
            f"Field {element_id} is not part of a translation unit (a Preserve field)",
            field="--finding",
            fix="give the unit id with --id instead",
        )

    def protected_target(self, record: UnitRecord) -> str | None:
        """The current text with its inline codes (⟦N⟧), as an exchange file carries it."""
        protected = self.protected[record.key]
        if record.origin_class == "draft":  # the memory's coded text is exact where a rendering occurs twice
            unit = next(u for u in self.units if u.key == record.key)
            drafted = self.engine.memory.entries.get(self.engine.pending_unit(unit, protected).tm_key)
            if drafted is not None and _restores_to(drafted, protected, record.target):
                return drafted
        return reprotect(record.target, protected) if record.target else None

    def _kept_by_map(self, element: IRElement, text: str) -> bool:
        """A canonical value the map renders as its source (an adopted variant's US address 'Suite 343', an
        option value a translator returned as it is): kept by the map's decision, not left untranslated."""
        if element.translation_type is not TranslationType.TRANSLATE_CANONICAL or text != element.source_text:
            return False
        return self.cmap.target_of(element.canonical_group or "default", element.source_text) == element.source_text

    def checks(self, record: UnitRecord, text: str | None = None) -> list[UnitCheck]:
        """The flow's per-field checks on the unit's text (or on `text`): fidelity (language,
        numbers, protected tokens, placeholders) and the language pack's release checks."""
        text = record.target if text is None else text
        out: dict[tuple[str, str], UnitCheck] = {}
        for element_id in record.element_ids[:3]:  # the fields of a unit share source and kind
            element = self.elements[element_id]
            pair = FieldPair.of(element, text)
            for finding in check_pair("review", pair, self.language, self.run.pack, None, self.ir.source_language):
                if finding.kind == "untranslated" and self._kept_by_map(element, text):
                    continue  # the map's decision, which validation lists once for the map's reviewer
                refusing = finding.kind in REFUSING_CHECKS and finding.severity not in (Severity.MINOR, Severity.NOTE)
                out[(finding.kind, finding.message)] = UnitCheck(
                    kind=finding.kind, severity=finding.severity.value, message=finding.message, refusing=refusing
                )
        fields = [self.elements[i] for i in record.element_ids]
        for problem in check_translations(
            self.run.pack, self.ir.model_copy(update={"elements": fields}), dict.fromkeys(record.element_ids, text)
        ):
            out[("release_check", problem)] = UnitCheck(
                kind="release_check", severity="major", message=problem, refusing=True
            )
        return list(out.values())
