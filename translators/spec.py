"""Which translator a parsed spec (babelflow/adapt_request.py) means, and the translator itself.

`pseudo` (pseudo-locales), `apertium[:MODE]` (offline, any installed Apertium pair;
translators/apertium.py), a model provider (`openai:MODEL`, `anthropic:MODEL`, `dashscope:MODEL`,
`openai-compatible:MODEL@URL`; options and environment: translators/providers/config.py), `none`, or
`auto`: pseudo-locales → the pseudo-localizer; a real language with an installed Apertium pair →
Apertium; anything else → a clear error naming the three ways forward (install a pair, a model
provider, or `babelflow export` / `babelflow import` with a human or another tool). Nothing is chosen
silently: the chosen translator's id is in the manifest, the stats and the report. A provider's key
is checked when its translator is made, before any work.
"""

from __future__ import annotations

import langcodes

from babelflow.adapt_request import (
    NO_TRANSLATOR_PROBLEM,
    ApertiumSpec,
    AutoSpec,
    NoSpec,
    ProviderSpec,
    PseudoSpec,
    TranslatorSpec,
)
from babelflow.errors import BabelflowError
from babelflow.language_pack import LanguagePack
from babelflow.language_tag import check_language_tag
from translators.apertium import ApertiumTranslator, apertium_binary, installed_modes, mode_for
from translators.interface import TranslationResponse, TranslationUsage, Translator
from translators.providers import make_model_translator, model_translator_id_of
from translators.pseudo_locale import SUPPORTED_PSEUDO_LOCALES, PseudoLocaleTranslator


def validate_language_tag(tag: str) -> str:
    """A well-formed BCP 47 tag (pseudo-locales en-XA/ar-XB included), else a clear error."""
    return check_language_tag(tag)  # one rule with the CLI's --lang check (length bounded first)


def _iso3(tag: str) -> str:
    try:
        return langcodes.Language.get(tag).to_alpha3()
    except LookupError:
        return tag


def default_spec(language: str, pack: LanguagePack, source_language: str = "en") -> TranslatorSpec | None:
    """pseudo, Apertium or None (no offline translator for this language on this machine)."""
    if pack.is_pseudo or language in SUPPORTED_PSEUDO_LOCALES:
        return PseudoSpec()
    binary = apertium_binary()
    if binary is not None and mode_for(source_language, language, installed_modes(binary)):
        return ApertiumSpec()
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


def resolve_spec(spec: TranslatorSpec, language: str, pack: LanguagePack) -> TranslatorSpec:
    """The concrete spec for `language`: `auto` becomes pseudo/Apertium, else what it says otherwise
    (an error, or no translator)."""
    if not isinstance(spec, AutoSpec):
        return spec
    chosen = default_spec(language, pack)
    if chosen is not None:
        return chosen
    if spec.otherwise == "none":
        return NoSpec()
    raise no_translator_error(language)


class NoTranslator:
    """`--translator none`: nothing is machine-translated. Export writes empty targets; units a
    human translation file does not cover are recorded as failures (source text kept)."""

    translator_id = "none/v1"

    def translate(self, request):
        problem = [NO_TRANSLATOR_PROBLEM]
        return TranslationResponse(
            translator_id=self.translator_id,
            segments=[],
            usage=TranslationUsage(input_characters=0, output_characters=0, requests=0),
            failed={segment.segment_id: problem for segment in request.segments},
        )


def translator_id_of(spec: TranslatorSpec, language: str, pack: LanguagePack | None = None) -> str:
    """The id ``make_translator`` would give, without what running a model needs (its key): a reviewer
    listing or correcting the units of a keyed run needs none."""
    validate_language_tag(language)
    resolved = resolve_spec(spec, language, pack) if pack is not None else spec
    if isinstance(resolved, ProviderSpec):
        return model_translator_id_of(resolved.text)
    return make_translator(spec, language, pack).translator_id


def make_translator(spec: TranslatorSpec, language: str, pack: LanguagePack | None = None, *, costs=None) -> Translator:
    """The translator `spec` means for `language`. The pack may declare a pseudo style, so a new
    pseudo-locale is data, not code; without a pack, `auto` cannot be resolved.
    `costs`: a babelflow.llm.costs.CostLedger collecting model usage (providers only)."""
    validate_language_tag(language)
    if pack is not None:
        spec = resolve_spec(spec, language, pack)
    if isinstance(spec, PseudoSpec):
        if pack is not None and pack.offline_rendering and language not in SUPPORTED_PSEUDO_LOCALES:
            return PseudoLocaleTranslator(language, style=pack.offline_rendering)
        if language not in SUPPORTED_PSEUDO_LOCALES:
            raise BabelflowError(
                f"The offline pseudo translator only produces {', '.join(SUPPORTED_PSEUDO_LOCALES)}, not {language!r}",
                field="--lang",
                fix="use --lang en-XA or ar-XB offline, or pass --translator provider:model for a real language",
            )
        return PseudoLocaleTranslator(language)
    if isinstance(spec, NoSpec):
        return NoTranslator()
    if isinstance(spec, ApertiumSpec):
        return ApertiumTranslator(language, mode=spec.mode)
    if isinstance(spec, ProviderSpec):
        return make_model_translator(spec.text, language, costs=costs)
    raise BabelflowError(
        "`auto` names no translator without the language's pack",
        field="--translator",
        fix="pass the language pack (flows/run_setup.py resolves the run with it)",
    )
