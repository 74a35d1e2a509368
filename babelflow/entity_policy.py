"""How a language renders each entity class the analysis made canonical (README: entity policies).

- keep: the value stays as it is (the canonical map maps it to itself);
- translate: one rendering per value, made by the translator and stored in the canonical map;
- localize: a culturally fitting identity in the target language (people's names, cities), seeded per
  language so a rerun gives the same one (translators/localize.py, with Faker's locales).

Defaults, by the class's kind: catalogue values (product names, options, plans) are translated, since
a shop in the target language sells "botella de agua", not "water bottle". People and places are kept
for a Latin-script target (a Spanish user may well be called Yusuf Rossi and live in Philadelphia), and
localized for another script, where a Latin name inside Chinese or Arabic text reads as untranslated;
pseudo-locales run their own transform on them instead (it is their transliteration). A language pack's
`[entities]` table, then the command line's `--entity`, override by class name or by kind.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from enum import Enum

from babelflow.errors import BabelflowError
from babelflow.ir import EntityClassDecision, EntityKind


class EntityRendering(str, Enum):
    KEEP = "keep"
    TRANSLATE = "translate"
    LOCALIZE = "localize"


_NAMES = {kind.value for kind in EntityKind}


def default_rendering(kind: EntityKind, script: str, pseudo: bool) -> EntityRendering:
    if kind in (EntityKind.PERSON, EntityKind.PLACE):
        if script == "Latn":
            return EntityRendering.KEEP
        return EntityRendering.TRANSLATE if pseudo else EntityRendering.LOCALIZE
    return EntityRendering.TRANSLATE


def entity_renderings(
    classes: Iterable[EntityClassDecision],
    *,
    script: str,
    pseudo: bool,
    pack: Mapping[str, EntityRendering],
    overrides: Mapping[str, EntityRendering],
) -> dict[str, EntityRendering]:
    """class name -> rendering: the command line's override (by name, then kind), then the pack's,
    then the default for the class's kind in this script."""
    out = {}
    for entity in classes:
        chosen = default_rendering(entity.kind, script, pseudo)
        for table in (pack, overrides):
            chosen = table.get(entity.kind.value, chosen)
            chosen = table.get(entity.name, chosen)
        out[entity.name] = chosen
    return out


def parse_entity_options(options: Iterable[str], *, field: str = "--entity") -> dict[str, EntityRendering]:
    """`CLASS_OR_KIND=POLICY` options (e.g. person=localize, product_name=keep) into a table."""
    table: dict[str, EntityRendering] = {}
    allowed = ", ".join(r.value for r in EntityRendering)
    for option in options:
        name, sep, value = option.partition("=")
        try:
            table[name.strip()] = EntityRendering(value.strip())
        except ValueError:
            raise BabelflowError(
                f"{field} {option!r}: expected CLASS_OR_KIND=POLICY with POLICY one of {allowed}",
                field=field,
                fix=f"e.g. {field} person=localize or {field} product_name=keep (kinds: {', '.join(sorted(_NAMES))})",
            ) from None
        if not sep or not name.strip():
            raise BabelflowError(f"{field} {option!r} names no class", field=field, fix="write CLASS_OR_KIND=POLICY")
    return table
