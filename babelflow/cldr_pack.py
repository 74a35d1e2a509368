"""A language pack derived from CLDR alone, for a language nobody has written a pack for yet.

A hand-written `language_packs/<tag>.toml` refines a language (glossary, forbidden renderings, a
persona written in the language); it is not a precondition. Without one, the tag's script,
direction and name come from CLDR (babel, langcodes) and the agent clause and persona are English
sentences naming the language, which any model agent understands. The pack says where it came
from (`derived_from_cldr`), so the release checks skip "is this text written in the language"
for texts that are English on purpose, and reviewers see that the pack is a default.
"""

from __future__ import annotations

import langcodes
from babel import Locale, UnknownLocaleError

from babelflow.language_pack_model import LanguagePack, UserSimulator

# CLDR's person-name data (surname-first order) is not exposed by babel; these languages write
# the family name first in everyday use.
_FAMILY_FIRST = {"zh", "ja", "ko", "hu", "vi", "mn"}


def cldr_default_pack(tag: str) -> LanguagePack | None:
    """The default pack for `tag`, or None when CLDR does not know the locale (e.g. a typo)."""
    if not langcodes.tag_is_valid(tag):
        return None
    try:
        locale = Locale.parse(tag, sep="-")
    except (UnknownLocaleError, ValueError):
        return None
    language = langcodes.Language.get(tag)
    english, autonym = locale.get_display_name("en"), locale.get_display_name()
    return LanguagePack(
        tag=tag,
        version="0.0.0",
        name=english or tag,
        script=language.maximize().script or "Latn",
        direction="rtl" if locale.text_direction == "rtl" else "ltr",
        name_order="family_given" if language.language in _FAMILY_FIRST else "given_family",
        cldr_locale=str(locale),
        agent_language_clause=f"Always reply to the user in {english} ({autonym}).",
        user_simulator=UserSimulator(
            persona=f"You are a customer who writes in {english} ({autonym}), briefly and clearly."
        ),
        reviewer_notes=(
            f"Default pack derived from CLDR for {tag}: add language_packs/{tag}.toml to add a glossary, "
            f"forbidden renderings and a persona written in {english}."
        ),
        derived_from_cldr=True,
    )
