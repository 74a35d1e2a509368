"""The term base: every Translate-Canonical value of a translated class with its one rendering, the
context a reviewer needs to judge it, the signals that fired and a confidence.

Built by the terms stage after the terms are rendered and before any prose is translated: a wrong
rendering found here is fixed once, before it spreads to the DB, the tasks, the golden arguments and
the prose. Values a class's policy settles (kept addresses, localized people) are not terms to review
and are left out; names kept whole because they are brands, or because the translator left English
in them, are in, with the reason.
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path
from typing import Final, Literal

import orjson
from pydantic import Field

from babelflow.atomic_io import write_bytes_atomic
from babelflow.canonical_map import CanonicalEntry, CanonicalMap
from babelflow.glossary import term_matcher
from babelflow.ir import DataValueLocator, IRDocument, Record, TranslationType
from babelflow.saved_records import load_saved_record
from translators.term_renderings import PROPER_NAME
from translators.terms.confidence import chance_wrong, doubtful_at, shipped_weights
from translators.terms.signals import TermDraft, TermSignal, term_signals

TERM_BASE_SCHEMA: Final = "babelflow.term_base/1"
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")
_EXAMPLES = 2
_RECORDS = 2


class TermContext(Record):
    records: list[str] = Field(default_factory=list, description="where the value sits: its field and the record")
    examples: list[str] = Field(default_factory=list, description="up to two prose sentences that mention it")


class TermEntry(Record):
    group: str = Field(description="the entity class (canonical group)")
    source: str
    rendering: str = Field(description="what the variant writes everywhere the data flow links the value")
    draft: str = Field(description="the translator's own rendering (differs when a rule kept the term whole)")
    origin: str
    origin_detail: str = ""
    state: Literal["approved", "proposed"] = Field(description="approved: a reviewer's entry; proposed: a draft")
    signals: list[TermSignal] = Field(default_factory=list)
    chance_wrong: float = Field(description="P(the rendering is wrong | the signals), 0 for approved terms")
    context: TermContext = Field(default_factory=TermContext)

    @property
    def doubtful(self) -> bool:
        # a term no signal fires on is never doubtful, whatever the rounding of its chance
        return self.state == "proposed" and bool(self.signals) and self.chance_wrong >= doubtful_at()


class TermBase(Record):
    schema_version: Literal["babelflow.term_base/1"] = TERM_BASE_SCHEMA
    benchmark: str
    language: str
    calibrated_on: list[str] = Field(description="languages the confidence was fitted on")
    entries: list[TermEntry]

    def doubtful(self) -> list[TermEntry]:
        return [e for e in self.entries if e.doubtful]

    def classes(self) -> list[str]:
        return sorted({e.group for e in self.entries})


def reviewable(entry: CanonicalEntry) -> bool:
    """A rendering someone should look at: a translator's, CLDR's, a reviewer's, or a name kept whole for a
    reason other than its class's policy (kept addresses and localized people are the policy's)."""
    if entry.origin in ("translator", "cldr", "reviewer"):
        return True
    return entry.origin == "kept" and entry.origin_detail != "policy keep"


def _approved(entry: CanonicalEntry) -> bool:
    """A reviewer's entry, or one a policy confirmed (CLDR's names; --terms approve-all, said in its detail)."""
    return entry.origin == "reviewer" or entry.review_state == "confirmed"


def _kept_as_name(entry: CanonicalEntry) -> bool:
    return entry.origin == "kept" and entry.origin_detail == PROPER_NAME


def build_term_base(
    ir: IRDocument,
    cmap: CanonicalMap,
    drafts: dict[tuple[str, str], str],
    language: str,
    source_language: str = "en",
    *,
    signals: bool = True,
) -> TermBase:
    """The term base of the map's reviewable entries, signalled on the translator's drafts (`signals`
    False: listed without signals, as pseudo-locales are)."""
    entries = sorted((e for e in cmap.lookup().values() if reviewable(e)), key=lambda e: (e.group, e.source))
    # a name kept by its class's rule (a brand among common nouns) is not a translation to doubt
    proposed = [e for e in entries if not _approved(e) and not _kept_as_name(e)] if signals else []
    to_check = [
        TermDraft(group=e.group, source=e.source, rendering=drafts.get((e.group, e.source), e.target)) for e in proposed
    ]
    fired_by_term = dict(
        zip(((d.group, d.source) for d in to_check), term_signals(to_check, language, source_language), strict=True)
    )
    contexts = term_contexts(ir, [(e.group, e.source) for e in entries])
    out = []
    for entry in entries:
        where = (entry.group, entry.source)
        fired = fired_by_term.get(where, [])
        approved = _approved(entry)
        out.append(
            TermEntry(
                group=entry.group,
                source=entry.source,
                rendering=entry.target,
                draft=drafts.get(where, entry.target),
                origin=entry.origin,
                origin_detail=entry.origin_detail,
                state="approved" if approved else "proposed",
                signals=fired,
                chance_wrong=0.0 if approved else round(chance_wrong(fired), 6),
                context=contexts.get(where, TermContext()),
            )
        )
    return TermBase(
        benchmark=cmap.benchmark, language=language, calibrated_on=shipped_weights().calibrated_on, entries=out
    )


def term_contexts(ir: IRDocument, terms: list[tuple[str, str]]) -> dict[tuple[str, str], TermContext]:
    """Each term's records (its field, the record's name and other values) and two prose examples."""
    wanted = set(terms)
    by_parent: dict[tuple[str, tuple], list[tuple[str, str]]] = defaultdict(list)
    canonical = [
        e
        for e in ir.elements
        if e.translation_type is TranslationType.TRANSLATE_CANONICAL and isinstance(e.locator, DataValueLocator)
    ]
    for element in canonical:
        path = element.locator.path  # type: ignore[union-attr]
        by_parent[(element.artifact, tuple(path[:-1]))].append((str(path[-1]), element.source_text))
    names: dict[tuple[str, tuple], str] = {}
    for element in ir.elements:
        if isinstance(element.locator, DataValueLocator) and element.locator.path[-1:] == ("name",):
            names[(element.artifact, tuple(element.locator.path[:-1]))] = element.source_text
    records: dict[tuple[str, str], list[str]] = defaultdict(list)
    for element in canonical:
        where = (element.canonical_group or "default", element.source_text)
        if where not in wanted or len(records[where]) >= _RECORDS:
            continue
        path = tuple(element.locator.path)  # type: ignore[union-attr]
        siblings = [f"{k}: {v}" for k, v in by_parent[(element.artifact, path[:-1])] if v != element.source_text]
        owner = next(
            (
                names[(element.artifact, path[:cut])]
                for cut in range(len(path) - 1, 0, -1)
                if (element.artifact, path[:cut]) in names
            ),
            "",
        )
        field = str(path[-1]) if not str(path[-1]).isdigit() else str(path[-2])
        shown = f"{field} of {owner!r}" if owner and owner != element.source_text else field
        if siblings:
            shown += " (with " + ", ".join(siblings[:3]) + ")"
        if shown not in records[where]:
            records[where].append(shown)
    examples = _examples(ir, sorted({source for _, source in wanted}))
    return {where: TermContext(records=records.get(where, []), examples=examples.get(where[1], [])) for where in terms}


def _examples(ir: IRDocument, sources: list[str]) -> dict[str, list[str]]:
    """source -> the shortest prose sentences that mention it (as a whole word, any case)."""
    matcher = term_matcher(tuple(sources))
    found: dict[str, set[str]] = defaultdict(set)
    for element in ir.elements:
        if element.translation_type is not TranslationType.TRANSLATE_FREE or element.locator.kind == "python_literal":
            continue  # prose a model or a user reads (tasks, policy), not code strings
        present = matcher.present(element.source_text)
        if not present:
            continue
        sentences = [s.strip() for s in _SENTENCE_END.split(element.source_text) if s.strip()]
        for index in present:
            term = sources[index].casefold()
            for sentence in sentences:
                if term in sentence.casefold() and len(sentence) <= 240:
                    found[sources[index]].add(sentence)
    return {source: sorted(sentences, key=lambda s: (len(s), s))[:_EXAMPLES] for source, sentences in found.items()}


def save_term_base(base: TermBase, path: Path) -> None:
    write_bytes_atomic(path, orjson.dumps(base.model_dump(mode="json"), option=orjson.OPT_INDENT_2) + b"\n")


def load_term_base(path: Path) -> TermBase:
    return load_saved_record(
        path, TermBase, what="Term base", fix="run the flow again (`babelflow flow BENCHMARK --lang TAG`) to rebuild it"
    )


def as_decided(base: TermBase, cmap: CanonicalMap) -> TermBase:
    """The term base with the map's current reviewer entries over it: a decision taken since the base was
    built shows as approved, with its rendering, before the next run rebuilds the base."""
    current = cmap.lookup()
    entries = []
    for entry in base.entries:
        now = current.get((entry.group, entry.source))
        if now is not None and _approved(now):
            entry = entry.model_copy(
                update={
                    "rendering": now.target,
                    "origin": now.origin,
                    "origin_detail": now.origin_detail,
                    "state": "approved",
                    "chance_wrong": 0.0,
                }
            )
        entries.append(entry)
    return base.model_copy(update={"entries": entries})
