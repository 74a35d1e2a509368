"""The `localize` entity policy: people's names and places replaced by ones that fit the target
language, as LanguageFactory seeds identities per language. Faker's locale providers supply them (a
maintained source, not a hand-made list); the seed is the language, class and field, so a rerun gives
the same identity, and every source value gets its own (two customers never merge into one).

Which generator a value gets follows the DB field that holds it (first_name, last_name, city, ...);
a value in a field with no generator is kept, and the caller reports it.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict

import langcodes
from faker import Faker
from faker.config import AVAILABLE_LOCALES

from babelflow.canonical_map import as_read
from babelflow.ir import DataValueLocator, IRDocument
from translators.units import TranslationUnit

_TRIES = 200  # draws per value before a locale counts as out of distinct identities

# DB field name -> Faker provider method
_GENERATORS = {
    "first_name": "first_name",
    "last_name": "last_name",
    "full_name": "name",
    "name": "name",
    "city": "city",
    "address1": "street_address",
    "street": "street_address",
    "address2": "secondary_address",
}


def faker_locale(language: str) -> str | None:
    """Faker's locale for a BCP 47 tag: the likely region of the language (zh-Hans -> zh_CN), else any
    locale of the language; None when Faker has none."""
    tag = langcodes.Language.get(language)
    likely = tag.maximize()
    wanted = f"{likely.language}_{likely.territory}" if likely.territory else likely.language
    if wanted in AVAILABLE_LOCALES:
        return wanted
    same = sorted(locale for locale in AVAILABLE_LOCALES if locale.split("_")[0] == tag.language)
    return same[0] if same else None


def _field_of(unit: TranslationUnit, elements: dict) -> str | None:
    for element_id in unit.element_ids:
        element = elements.get(element_id)
        if element is not None and isinstance(element.locator, DataValueLocator):
            names = [part for part in element.locator.path if isinstance(part, str)]
            if names:
                return names[-1]
    return None


def localized_renderings(units: list[TranslationUnit], ir: IRDocument, language: str) -> tuple[dict[str, str], str]:
    """(unit key -> a localized value, the Faker locale used); units without a generator are left out."""
    locale = faker_locale(language)
    if locale is None:
        return {}, ""
    elements = ir.by_id()
    by_generator: dict[tuple[str, str], list[TranslationUnit]] = defaultdict(list)
    for unit in units:
        method = _GENERATORS.get(_field_of(unit, elements) or "")
        if method is not None:
            by_generator[(unit.canonical_group or "default", method)].append(unit)
    out: dict[str, str] = {}
    used: dict[str, set[str]] = defaultdict(set)  # per group, as read: no two values share an identity
    for (group, method), members in sorted(by_generator.items()):
        fake = Faker(locale)
        if not hasattr(fake, method):
            continue
        seed = hashlib.blake2b(f"{language}\0{group}\0{method}".encode(), digest_size=8).digest()
        fake.seed_instance(int.from_bytes(seed, "big"))
        for unit in sorted(members, key=lambda u: u.text):  # the same values get the same identities
            for _ in range(_TRIES):
                candidate = str(getattr(fake, method)())
                if as_read(candidate) not in used[group]:
                    used[group].add(as_read(candidate))
                    out[unit.key] = candidate
                    break  # else: the locale ran out of distinct ones; kept, and the caller reports it
    return out, locale
