"""Which translator a language gets when the user names none (`--translator auto`, the default).

pseudo-locales → the pseudo-localizer; a real language with an installed Apertium pair →
Apertium; anything else → a clear error naming the three ways forward (install a pair, a model
provider, or `babelflow export` / `babelflow import` with a human or another tool). Nothing is
chosen silently: the chosen translator's id is in the manifest, the stats and the report.
"""

from __future__ import annotations

import langcodes

from babelflow.errors import BabelflowError
from babelflow.language_pack import LanguagePack
from translators.apertium import apertium_binary, installed_modes, mode_for
from translators.interface import TranslationResponse, TranslationUsage
from translators.pseudo_locale import SUPPORTED_PSEUDO_LOCALES

AUTO = "auto"
NONE = "none"  # no translator: export writes empty targets (for human translators)


def _iso3(tag: str) -> str:
    try:
        return langcodes.Language.get(tag).to_alpha3()
    except LookupError:
        return tag


def default_spec(language: str, pack: LanguagePack, source_language: str = "en") -> str | None:
    """`pseudo`, `apertium` or None (no offline translator for this language on this machine)."""
    if pack.is_pseudo or language in SUPPORTED_PSEUDO_LOCALES:
        return "pseudo"
    binary = apertium_binary()
    if binary is not None and mode_for(source_language, language, installed_modes(binary)):
        return "apertium"
    return None


def no_translator_error(language: str, source_language: str = "en") -> BabelflowError:
    pair = f"apertium-{_iso3(source_language)}-{_iso3(language)}"
    missing = (
        "Apertium is not installed"
        if apertium_binary() is None
        else f"no Apertium pair for {source_language}→{language} is installed"
    )
    hint = " (did you mean the pseudo-locale en-XA?)" if language.split("-")[0] == source_language else ""
    return BabelflowError(
        f"No offline translator for {language!r}{hint}: {missing}",
        field="--translator",
        fix=(
            f"`apt-get install -y {pair}` if Debian packages that pair "
            "(scripts/install.sh installs apertium-eng-spa as root), "
            "or pass --translator PROVIDER:MODEL (openai, anthropic, dashscope, openai-compatible:MODEL@URL), "
            f"or `babelflow export --lang {language}` for human translators "
            "and bring their file back with `babelflow import`"
        ),
    )


def resolve_spec(spec: str, language: str, pack: LanguagePack) -> str:
    """The concrete translator spec for `language`: `auto` becomes pseudo/apertium or an error."""
    if spec != AUTO:
        return spec
    chosen = default_spec(language, pack)
    if chosen is None:
        raise no_translator_error(language)
    return chosen


class NoTranslator:
    """`--translator none`: nothing is machine-translated. Export writes empty targets; units a
    human translation file does not cover are recorded as failures (source text kept)."""

    translator_id = "none/v1"

    def translate(self, request):
        problem = ["no translator configured: translate this unit in the exchange file (babelflow export / import)"]
        return TranslationResponse(
            translator_id=self.translator_id,
            segments=[],
            usage=TranslationUsage(input_characters=0, output_characters=0, requests=0),
            failed={segment.segment_id: problem for segment in request.segments},
        )
