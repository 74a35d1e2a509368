"""A starter profile for a benchmark that has none, written from the evidence (for review).

One rule per data field path whose elements the evidence types alike, with the observation that
typed it as the note; field paths whose elements differ are left to evidence and shape. The
reviewer edits this file instead of writing one from scratch.
"""

from __future__ import annotations

from collections import Counter, defaultdict

import tomlkit

from analyzers.inventory import facts_for
from analyzers.located_evidence import generalize
from analyzers.model_schema import LIST_ITEM, MAP_KEY
from babelflow.ir import DataValueLocator, IRDocument, TranslationType


def _selector(general: tuple) -> str:
    out = "$"
    for segment in general:
        if segment == LIST_ITEM:
            out += "[*]"
        elif segment == MAP_KEY:
            out += ".*"
        else:
            out += f".{segment}" if str(segment).isidentifier() else f"['{segment}']"
    return out


def starter_profile(document: IRDocument, bench) -> str:
    """TOML text for `document` (an analysis of `bench`, best without a profile)."""
    facts = {spec.path: facts_for(spec) for spec in bench.artifacts()}
    by_path: dict[tuple, list] = defaultdict(list)
    for element in document.elements:
        if isinstance(element.locator, DataValueLocator) and element.artifact in facts:
            fact = facts[element.artifact]
            by_path[
                (element.artifact, generalize(element.locator.path, fact.map_paths, False, fact.open_map_paths))
            ].append(element)
    table = {entry.id: entry for entry in document.evidence}
    profile = tomlkit.document()
    profile.add(
        tomlkit.comment(
            f"Starter profile for {document.benchmark}, written from the evidence of one analysis: review every rule."
        )
    )
    profile["benchmark"] = document.benchmark
    profile["version"] = 1
    profile["description"] = "starter profile from evidence"
    rules = tomlkit.aot()
    for (artifact, general), elements in sorted(by_path.items(), key=lambda item: (item[0][0], repr(item[0][1]))):
        types = Counter(e.translation_type for e in elements)
        if len(types) != 1:
            continue
        kind = next(iter(types))
        rule = tomlkit.table()
        rule["artifact"] = artifact
        rule["select"] = _selector(general)
        rule["type"] = kind.value
        if kind is TranslationType.PRESERVE:
            rule["reason"] = Counter(e.preserve_reason.value for e in elements if e.preserve_reason).most_common(1)[0][
                0
            ]
            rule["refine"] = True
        evidence = next((table[e.evidence] for e in elements if e.evidence in table), None)
        rule["note"] = f"{len(elements)} fields; " + (
            f"{evidence.scope.value}: {evidence.detail}" if evidence else elements[0].typing_rule
        )
        rules.append(rule)
    profile["rules"] = rules
    return tomlkit.dumps(profile)
