"""Step 3a: translate the IR's units through any `Translator`, canonical terms first.

Canonical terms are translated once (or taken from the reviewed map) and then injected into prose
as placeholders that restore to the canonical rendering, so an entity reads identically in the DB,
the task, the policy and the golden actions. A unit whose placeholders come back dropped,
duplicated or illegally reordered is recorded as a failure against its fields, never patched.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from babelflow.canonical_map import CanonicalEntry, CanonicalMap, mark_worlds
from babelflow.entity_policy import EntityRendering
from babelflow.glossary import term_matcher
from babelflow.ir import IRDocument
from babelflow.worlds import worlds_of_terms
from translators.adoption import Adoption, adopted_texts, seed_map
from translators.interface import GlossaryEntry, ProtectedSegment, TranslationRequest, Translator, check_response
from translators.memory import TranslationMemory, memory_key
from translators.outcomes import Progress, TermsOutcome, TranslationOutcome, TranslationStats, UnitFailure
from translators.placeholders import PlaceholderError, ProtectedText, protect, restore
from translators.term_renderings import (
    PROPER_NAME,
    PolicyRendering,
    case_of_source,
    distinct_renderings,
    entity_policy_renderings,
    half_translated,
    still_fits,
)
from translators.terms.term_base import term_contexts
from translators.unit_protection import protect_unit, refuse_changed_slots, with_term_context
from translators.units import (
    Failed,
    Translated,
    TranslationUnit,
    UnitResult,
    canonical_groups_of_values,
    extract_units,
    naive_characters,
    unique_characters,
)


@dataclass
class PendingUnit:
    """A unit ready to send: its protected text and the translation-memory key that text has."""

    unit: TranslationUnit
    protected: ProtectedText
    tm_key: str


def _batches(items: list[PendingUnit], max_items: int, max_chars: int) -> Iterable[list[PendingUnit]]:
    batch: list[PendingUnit] = []
    size = 0
    for item in items:
        length = len(item.protected.text)
        if batch and (len(batch) >= max_items or size + length > max_chars):
            yield batch
            batch, size = [], 0
        batch.append(item)
        size += length
    if batch:
        yield batch


class TranslationEngine:
    """`glossary`: the language pack's required renderings; each request carries the entries its
    segments mention, and a unit's memory key includes them (a changed term is translated again)."""

    def __init__(
        self,
        translator: Translator,
        language: str,
        memory: TranslationMemory,
        *,
        max_items: int | None = None,
        max_chars: int | None = None,
        glossary: list[GlossaryEntry] | None = None,
    ):
        self.translator = translator
        self.pack_terms = list(glossary or [])
        self._use_glossary(self.pack_terms)
        self.language = language
        self.memory = memory
        self.source_language = "en"  # the IR's: render_terms and translate set it before any request
        self._origins: dict[str, str] = {}  # unit key -> who made its text, per translate() call
        # a backend may ask for bigger batches (Apertium pays one process start per call; a model translator
        # keeps its request slots busy); a size the caller gives wins
        limits: tuple[int, int] = getattr(translator, "batch_limits", None) or (40, 12_000)
        self.max_items, self.max_chars = max_items or limits[0], max_chars or limits[1]

    def _use_glossary(self, entries: list[GlossaryEntry]) -> None:
        self.glossary = entries
        self._terms = term_matcher(tuple(entry.source for entry in self.glossary))  # one index, not a regex per term

    def _use_canonical_terms(self, cmap: CanonicalMap) -> None:
        """Free text is translated with the map's renderings as glossary terms too (issue 23: 'the water
        bottle' in a task reads as the catalogue's rendering, with grammar that fits around it). Names and
        multiword values only: a lone lowercase value ('light', 'low') is also an ordinary word, which
        the translator renders by its sense; the pack's own terms win."""
        pack_sources = {entry.source.casefold() for entry in self.pack_terms}
        canonical = sorted(
            {
                (entry.source, entry.target)
                for entry in cmap.lookup().values()
                if entry.target != entry.source
                and entry.source.casefold() not in pack_sources
                and (" " in entry.source.strip() or entry.source[:1].isupper())
            }
        )
        self._use_glossary(self.pack_terms + [GlossaryEntry(source=s, target=t) for s, t in canonical])

    def _terms_in(self, text: str) -> list[GlossaryEntry]:
        return [self.glossary[index] for index in self._terms.present(text)]

    def _misses_pack_terms(self, entry: CanonicalEntry) -> bool:
        """A translator's stored rendering made before the pack's glossary named a term it holds ('Beauty
        Salon' → 'Belleza Salon', then salon = salón): the translator renders it again, with the term, rather
        than the map keeping what the pack now refuses. A person's rendering, or one approved, stays."""
        if entry.origin != "translator" or entry.review_state == "confirmed" or not self._terms.present(entry.source):
            return False  # the word index first: protecting every entry of a 15k-term map costs ~0.3 s a run
        target = entry.target.casefold()
        owed = (self.glossary[index] for index in self._terms.outermost(protect(entry.source).text))
        return any(term.target.casefold() not in target for term in owed)

    def _run(
        self,
        pending: list[PendingUnit],
        stats: TranslationStats,
        progress: Progress | None,
        done_offset: int,
        total: int,
    ) -> dict[str, UnitResult]:
        """Translate what the memory does not have; returns unit key -> its result."""
        results: dict[str, UnitResult] = {}
        misses = []
        for item in pending:
            cached = self.memory.get(item.tm_key)
            if cached is not None:
                results[item.unit.key] = self._restore(item, cached)
                self._origins[item.unit.key] = f"{self.translator.translator_id} (memory)"
                stats.memory_hits += 1
            else:
                misses.append(item)
        done = done_offset + len(pending) - len(misses)
        # units whose protected text is identical (e.g. "Test the ⟦0⟧ functionality") share one request
        sharing: dict[str, list[PendingUnit]] = {}
        for item in misses:
            sharing.setdefault(item.tm_key, []).append(item)
        for batch in _batches([group[0] for group in sharing.values()], self.max_items, self.max_chars):
            self._send(batch, sharing, results, stats)
            done += sum(len(sharing[first.tm_key]) for first in batch)
            if progress:
                progress(done, total)
        self._retry_slots(misses, sharing, results, stats)
        return results

    def _send(
        self,
        batch: list[PendingUnit],
        sharing: dict[str, list[PendingUnit]],
        results: dict[str, UnitResult],
        stats: TranslationStats,
    ) -> None:
        """One request for `batch` (one unit per shared protected text); results of every sharer recorded."""
        request = TranslationRequest(
            source_language=self.source_language,
            target_language=self.language,
            segments=[
                ProtectedSegment(segment_id=i.unit.key, text=i.protected.text, context=i.unit.context, kind=i.unit.kind)
                for i in batch
            ],
            glossary=self._terms_in("\n".join(i.protected.text for i in batch)),
        )
        response = self.translator.translate(request)
        stats.requests += response.usage.requests
        stats.segments_sent += len(batch)
        stats.characters_sent += response.usage.input_characters
        problems = check_response(request, response)
        by_id = {s.segment_id: s.text for s in response.segments}
        fresh: dict[str, str] = {}
        for first in batch:
            text = by_id.get(first.unit.key)
            for item in sharing[first.tm_key]:
                if text is None:
                    failed = response.failed.get(first.unit.key)
                    results[item.unit.key] = Failed(
                        (list(failed) if failed else None)
                        or problems
                        or ["translator returned no text for this segment"]
                    )
                    continue
                restored = self._restore(item, text)
                results[item.unit.key] = restored
                self._origins[item.unit.key] = self.translator.translator_id
                if isinstance(restored, Translated):
                    fresh[item.tm_key] = text  # only good translations are remembered
        self.memory.put_many(fresh)

    def _retry_slots(
        self,
        misses: list[PendingUnit],
        sharing: dict[str, list[PendingUnit]],
        results: dict[str, UnitResult],
        stats: TranslationStats,
    ) -> None:
        """A code text whose slots came back changed (a slot's placeholder lost or rewritten) is sent again
        alone, its slots still protected: a batch's neighbours no longer confuse the model. Failing twice,
        it stays a recorded failure, its problems saying it was retried."""
        failed = [
            item
            for item in misses
            if item.unit.slots and item is sharing[item.tm_key][0] and isinstance(results.get(item.unit.key), Failed)
        ]
        for item in failed:
            self._send([item], sharing, results, stats)
            stats.slot_retries += 1
            again = results[item.unit.key]
            if isinstance(again, Failed):
                for sharer in sharing[item.tm_key]:
                    results[sharer.unit.key] = Failed(
                        again.problems + ["retried alone with its slots protected: the slots came back changed again"]
                    )

    @staticmethod
    def _restore(item: PendingUnit, translated: str) -> UnitResult:
        try:
            return Translated(restore(translated, item.protected))
        except PlaceholderError as exc:
            return Failed(list(exc.problems))

    def pending_unit(self, unit: TranslationUnit, protected: ProtectedText) -> PendingUnit:
        context = unit.context
        terms = self._terms_in(protected.text)
        if terms:  # only units that mention a glossary term depend on it
            context += "\0glossary:" + "\0".join(f"{t.source}={t.target}" for t in terms)
        key = memory_key(self.translator.translator_id, self.language, unit.kind, context, protected.text)
        return PendingUnit(unit, protected, key)

    def memory_keys(self, ir: IRDocument, cmap: CanonicalMap, element_ids: set[str]) -> set[str]:
        """Translation-memory keys of the units holding these elements (to retranslate exactly them)."""
        canonical_units, free_units = extract_units(ir)
        groups = canonical_groups_of_values(ir)
        keys = set()
        self._use_glossary(self.pack_terms)
        hit = [unit for unit in canonical_units if element_ids & set(unit.element_ids)]
        contexts = term_contexts(ir, [(u.canonical_group or "default", u.text) for u in hit])
        for unit in hit:  # as render_terms sends them: with their class context, protected with the map only
            sent = with_term_context(unit, contexts.get((unit.canonical_group or "default", unit.text)))
            keys.add(self.pending_unit(sent, protect_unit(unit, cmap, {})).tm_key)
        self._use_canonical_terms(cmap)
        for unit in free_units:
            if element_ids & set(unit.element_ids):
                keys.add(self.pending_unit(unit, protect_unit(unit, cmap, groups)).tm_key)
        return keys

    def render_terms(
        self,
        ir: IRDocument,
        cmap: CanonicalMap,
        progress: Progress | None = None,
        renderings: dict[str, EntityRendering] | None = None,
        stats: TranslationStats | None = None,
    ) -> TermsOutcome:
        """Step 1, the terms: every canonical term gets one rendering, written into `cmap`. Reviewed map
        entries win; then the class's policy (kept, localized); new terms go to the translator once.
        `renderings`: canonical group (entity class) -> keep / translate / localize; unlisted: translate."""
        self.source_language = ir.source_language  # what the IR says its texts are written in
        canonical_units, free_units = extract_units(ir)
        stats = stats or TranslationStats(
            translator_id=self.translator.translator_id,
            canonical_units=len(canonical_units),
            free_units=len(free_units),
            naive_characters=naive_characters(ir),
            unique_characters=unique_characters(ir),
        )
        total = len(canonical_units) + len(free_units)
        targets: dict[str, str] = {}
        failures: list[UnitFailure] = []
        drafts: dict[tuple[str, str], str] = {}
        self._use_glossary(self.pack_terms)  # canonical terms are translated with the pack's terms only
        # a capitalised value the rule takes for a brand is no brand where the pack renders a word of it
        # ('Sunny Turning Cloudy' among 'sunny', 'cloudy': the pack's cloudy = nublado)
        policy_made = {
            key: made
            for key, made in entity_policy_renderings(canonical_units, ir, self.language, renderings or {}).items()
            if made.detail != PROPER_NAME or not self._terms_in(key[1])
        }
        known = {
            key: entry
            for key, entry in cmap.lookup().items()
            if still_fits(entry, policy_made.get(key)) and not self._misses_pack_terms(entry)
        }
        asked = [
            u
            for u in canonical_units
            if (u.canonical_group or "default", u.text) not in known
            and (u.canonical_group or "default", u.text) not in policy_made
        ]
        contexts = term_contexts(ir, [(u.canonical_group or "default", u.text) for u in asked])
        # each term goes with its class's context: the record it sits in and a sentence that uses it
        todo = [
            self.pending_unit(with_term_context(u, contexts.get((u.canonical_group or "default", u.text))), p)
            for u, p in ((u, protect_unit(u, cmap, {})) for u in asked)
        ]
        results = self._run(todo, stats, progress, len(canonical_units) - len(todo), total)
        for pending in todo:  # the translator's own rendering, before the rules below keep or mark it
            result = results.get(pending.unit.key)
            if isinstance(result, Translated):
                drafts[(pending.unit.canonical_group or "default", pending.unit.text)] = case_of_source(
                    pending.unit.text, result.text
                )
        fixed = [(w, e.target) for w, e in known.items()] + [(w, m.target) for w, m in policy_made.items()]
        # a term holding a pack term keeps the translator's draft: kept whole, it would refuse the pack's rendering
        half_done = [
            unit
            for unit in half_translated([p.unit for p in todo], results, self.language)
            if not self._terms_in(unit.text)
        ]
        for unit in half_done:  # kept whole, like a term the policy keeps: a reviewer can render it
            where = (unit.canonical_group or "default", unit.text)
            policy_made[where] = PolicyRendering(unit.text, "kept", "the translator left source words in it")
            fixed.append((where, unit.text))
        stats.half_translated_terms = [unit.text for unit in half_done]
        kept_whole = {unit.key for unit in half_done}
        translated = [p.unit for p in todo if p.unit.key not in kept_whole]
        worlds = worlds_of_terms(ir)
        stats.disambiguated_terms = distinct_renderings(
            translated, results, fixed, worlds, ir.source_language, self.language
        )
        for unit in canonical_units:
            where = (unit.canonical_group or "default", unit.text)
            entry = known.get(where)
            if entry is None and where in policy_made:
                made = policy_made[where]
                entry = CanonicalEntry(
                    group=where[0], source=unit.text, target=made.target, origin=made.origin, origin_detail=made.detail
                )
                cmap.upsert(entry)
            result = Translated(entry.target) if entry else results[unit.key]
            if entry:
                self._origins[unit.key] = f"canonical map ({entry.origin})"
            if isinstance(result, Failed):
                failures.append(
                    UnitFailure(
                        unit_key=unit.key, element_ids=unit.element_ids, source_text=unit.text, problems=result.problems
                    )
                )
                continue
            if entry is None:
                cmap.upsert(
                    CanonicalEntry(
                        group=unit.canonical_group or "default",
                        source=unit.text,
                        target=result.text,
                        origin="translator",
                        origin_detail=self.translator.translator_id,
                    )
                )
            targets.update(dict.fromkeys(unit.element_ids, result.text))
        mark_worlds(cmap, worlds)  # a rendering two tasks' values share names the tasks of each
        return TermsOutcome(targets=targets, failures=failures, stats=stats, drafts=drafts)

    def translate(
        self,
        ir: IRDocument,
        cmap: CanonicalMap,
        progress: Progress | None = None,
        reviewed: dict[str, str] | None = None,
        renderings: dict[str, EntityRendering] | None = None,
        adoption: Adoption | None = None,
    ) -> TranslationOutcome:
        """`reviewed`: element id -> a reviewer's translation, used instead of the translator's.
        `renderings`: canonical group (entity class) -> keep / translate / localize; unlisted: translate.
        `adoption`: texts and renderings adopted from a variant made elsewhere, below the reviewer's."""
        self.source_language = ir.source_language  # what the IR says its texts are written in
        self._origins = {}
        seed_map(cmap, adoption, worlds_of_terms(ir))
        terms = self.render_terms(ir, cmap, progress, renderings)
        stats, targets, failures = terms.stats, dict(terms.targets), list(terms.failures)
        canonical_units, free_units = extract_units(ir)
        total = len(canonical_units) + len(free_units)

        # 2. free text, with canonical terms injected and preserved tokens protected
        self._use_canonical_terms(cmap)
        groups = canonical_groups_of_values(ir)
        reviewed = reviewed or {}
        adopted = adopted_texts(adoption, free_units, groups, cmap, reviewed)
        given = {**adopted, **reviewed}
        # a unit whose every field has a reviewer's (or imported, or adopted) text is not sent at all
        settled = {u.key for u in free_units if u.element_ids and all(e in given for e in u.element_ids)}
        pending = [
            self.pending_unit(unit, protect_unit(unit, cmap, groups)) for unit in free_units if unit.key not in settled
        ]
        results = self._run(pending, stats, progress, len(canonical_units) + len(settled), total)
        for unit in free_units:
            if unit.key in settled:
                targets.update({e: given[e] for e in unit.element_ids})
                by_reviewer = all(e in reviewed for e in unit.element_ids)
                self._origins[unit.key] = "reviewed" if by_reviewer or adoption is None else adoption.unit_origin
                continue
            result = results[unit.key]
            if isinstance(result, Failed):
                failures.append(
                    UnitFailure(
                        unit_key=unit.key, element_ids=unit.element_ids, source_text=unit.text, problems=result.problems
                    )
                )
                continue
            targets.update(dict.fromkeys(unit.element_ids, result.text))
        for element_id, text in given.items():
            if element_id in targets:
                targets[element_id] = text
        failures += refuse_changed_slots(free_units, ir, targets)
        for failure in failures:
            self._origins[failure.unit_key] = "failed"
        origins = dict(self._origins)
        for origin in origins.values():
            stats.units_by_origin[origin] = stats.units_by_origin.get(origin, 0) + 1
        return TranslationOutcome(targets=targets, failures=failures, stats=stats, unit_origins=origins)
