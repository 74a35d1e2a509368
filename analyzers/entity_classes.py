"""Entity classes as the evidence decided them: per class of the profile, which values are renamed
consistently everywhere (Translate-Canonical) and which stay, with the runtime flows that decided it.

A class the profile forces to `translate` while code compares some of its values with literals
(statuses, cabin classes) is refused before anything is written: renaming those values would leave the
code unable to recognise them, and the error names the values and where the code compares them.
"""

from __future__ import annotations

from analyzers.profile import LoadedProfile
from analyzers.typing_rules import EntityTally
from babelflow.errors import BabelflowError
from babelflow.ir import EntityClassDecision, IRElement, TranslationType

_SHOWN = 3  # values named in a refusal


def entity_class_decisions(
    profile: LoadedProfile, elements: list[IRElement], tallies: dict[str, EntityTally]
) -> list[EntityClassDecision]:
    """One decision per entity class, counted on the final elements (a later stage may retype one)."""
    decisions = []
    for compiled in profile.entities:
        name, entity = compiled.name, compiled.entity
        prefix = f"entity {name}:"
        canonical = {
            e.source_text
            for e in elements
            if e.typing_rule.startswith(prefix) and e.translation_type is TranslationType.TRANSLATE_CANONICAL
        }
        tally = tallies.get(name, EntityTally())
        kept = {why: len(values - canonical) for why, values in sorted(tally.kept.items()) if values - canonical}
        evidence = [f"{value!r} kept: {why}" for value, why in sorted(tally.literal_evidence.items())[:_SHOWN]]
        decisions.append(
            EntityClassDecision(
                name=name,
                kind=entity.kind,
                profile_policy=entity.policy,
                selectors=list(entity.selectors),
                decision="canonical" if canonical else "preserve",
                canonical_values=len(canonical),
                kept_values=kept,
                flows={kind: len(values) for kind, values in sorted(tally.flows.items())},
                evidence=evidence + tally.samples,
            )
        )
    return decisions


def refuse_unsafe_translate(profile: LoadedProfile, tallies: dict[str, EntityTally]) -> None:
    """Exit 2 when `policy = "translate"` meets values the evidence shows fixed by the code: compared with
    a literal, or a literal of the field's model type."""
    for compiled in profile.entities:
        tally = tallies.get(compiled.name)
        if compiled.entity.policy != "translate" or tally is None or not tally.literal_evidence:
            continue
        shown = "; ".join(f"{v!r} {why}" for v, why in sorted(tally.literal_evidence.items())[:_SHOWN])
        more = len(tally.literal_evidence) - _SHOWN
        raise BabelflowError(
            f"entity class {compiled.name!r} is set to translate, but the evidence shows "
            f"{len(tally.literal_evidence)} of its values fixed by the code as literals: {shown}"
            + (f" (and {more} more)" if more > 0 else "")
            + ". Renamed, the code would no longer recognise them.",
            file=profile.sources[0],
            field=f"entities.{compiled.name}.policy",
            fix='set policy = "auto" (the evidence keeps those values and renames the rest consistently), '
            "or narrow the class's selectors to fields the code does not compare",
        )
