"""Link groups and inline tokens: which equal values tie fields together, and what prose must keep verbatim."""

from __future__ import annotations

import hashlib
from collections import defaultdict

from analyzers.located_evidence import EXECUTED, Observed
from analyzers.mentions import MentionFinder
from analyzers.runtime_evidence import RuntimeEvidenceIndex
from babelflow.ir import IRElement, LinkGroup, LinkKind, RuntimeEvidence, TranslationType


def link_groups(
    elements: list[IRElement], evidence: RuntimeEvidenceIndex, observed: dict[str, Observed]
) -> list[LinkGroup]:
    """Group every value held by several fields (or executed by the run); set each prose field's inline tokens."""
    vocabulary = {e.source_text for e in elements if e.translation_type is not TranslationType.TRANSLATE_FREE}
    vocabulary |= {v for v in evidence.values if evidence.values[v].kinds}
    located_kinds: dict[str, set[LinkKind]] = defaultdict(set)
    by_id = {e.id: e for e in elements} if observed else {}
    for eid, seen in observed.items():
        located_kinds[by_id[eid].source_text] |= seen.kinds
    # a value the run executed (tool argument, DB write, compared) stays verbatim wherever prose
    # mentions it, whatever its length or casing: the user simulator repeats it to the agent
    executed = {value for value, kinds in located_kinds.items() if kinds & EXECUTED}
    finder = MentionFinder(vocabulary, executed=executed)
    mention_cache: dict[str, tuple[list[str], list[str]]] = {}
    members: dict[str, list[IRElement]] = defaultdict(list)
    for element in elements:
        if element.translation_type is TranslationType.TRANSLATE_FREE:
            found = mention_cache.get(element.source_text)
            if found is None:
                found = mention_cache[element.source_text] = finder.find(element.source_text)
            element.inline_tokens = found[0]
            for mention in found[1]:
                members[mention].append(element)
        else:
            members[element.source_text].append(element)
    groups: list[LinkGroup] = []
    for value, holders in members.items():
        trace = evidence.values.get(value)
        kinds = set(trace.kinds) if trace else set()
        kinds |= located_kinds.get(value, set()) - {
            LinkKind.ARGUMENT_NAME,
            LinkKind.READ_BY_HARNESS,
            LinkKind.PERTURBATION_CHANGES_OUTCOME,
        }
        if any(h.translation_type is TranslationType.TRANSLATE_FREE for h in holders):
            kinds.add(LinkKind.MENTIONED_IN_PROSE)
        artifacts = sorted({h.artifact for h in holders})
        if not (trace and trace.kinds) and value not in located_kinds and len(artifacts) < 2:
            continue  # a value seen in one file and never executed links nothing
        group_id = "lg_" + hashlib.blake2b(value.encode(), digest_size=8).hexdigest()
        groups.append(
            LinkGroup(
                id=group_id,
                value=value,
                kinds=sorted(kinds, key=lambda k: k.value),
                member_count=len(holders),
                artifacts=artifacts,
                evidence=list(trace.samples) if trace else [],
            )
        )
        for holder in holders:
            holder.links.append(group_id)
    return groups


def value_link_groups(elements: list[IRElement], evidence: dict[str, list[RuntimeEvidence]]) -> list[LinkGroup]:
    """Link groups of an IR typed by a perturbation trial: every value (not prose) held by fields of two
    or more artifacts, or kept by a replay (`evidence`: element id -> what the replay showed)."""
    members: dict[str, list[IRElement]] = defaultdict(list)
    for element in elements:
        if element.translation_type is not TranslationType.TRANSLATE_FREE:
            members[element.source_text].append(element)
    groups: list[LinkGroup] = []
    for value, holders in members.items():
        artifacts = sorted({h.artifact for h in holders})
        samples = [e for h in holders for e in evidence.get(h.id, ())][:5]
        if len(artifacts) < 2 and not samples:
            continue
        in_code = any(h.locator.kind == "python_literal" for h in holders)
        kinds = [LinkKind.COMPARED_IN_CODE if in_code else LinkKind.DB_LOOKUP]
        group_id = "lg_" + hashlib.blake2b(value.encode(), digest_size=8).hexdigest()
        group = LinkGroup(
            id=group_id, value=value, kinds=kinds, member_count=len(holders), artifacts=artifacts, evidence=samples
        )
        groups.append(group)
        for holder in holders:
            holder.links = [group_id]
    return groups
