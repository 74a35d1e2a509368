"""Choose a translator from a CLI spec: `pseudo` (pseudo-locales), `apertium[:MODE]` (offline, any
installed Apertium pair; translators/apertium.py) or a model provider,
`openai:MODEL`, `anthropic:MODEL`, `dashscope:MODEL`, `openai-compatible:MODEL@URL` (options and
environment: translators/providers/config.py). A provider's key is checked here, before any work."""

from __future__ import annotations

from babelflow.errors import BabelflowError
from babelflow.language_tag import check_language_tag
from translators.apertium import ApertiumTranslator
from translators.choice import NoTranslator
from translators.interface import Translator
from translators.providers import is_provider_spec, make_model_translator
from translators.pseudo_locale import SUPPORTED_PSEUDO_LOCALES, PseudoLocaleTranslator


def validate_language_tag(tag: str) -> str:
    """A well-formed BCP 47 tag (pseudo-locales en-XA/ar-XB included), else a clear error."""
    return check_language_tag(tag)  # one rule with the CLI's --lang check (length bounded first)


def make_translator(spec: str, language: str, *, costs=None) -> Translator:
    """`costs`: a babelflow.llm.costs.CostLedger collecting model usage (providers only)."""
    validate_language_tag(language)
    if spec == "pseudo":
        if language not in SUPPORTED_PSEUDO_LOCALES:
            raise BabelflowError(
                f"The offline pseudo translator only produces {', '.join(SUPPORTED_PSEUDO_LOCALES)}, not {language!r}",
                field="--lang",
                fix="use --lang en-XA or ar-XB offline, or pass --translator provider:model for a real language",
            )
        return PseudoLocaleTranslator(language)
    if spec == "none":
        return NoTranslator()
    if spec == "apertium" or spec.startswith("apertium:"):
        return ApertiumTranslator(language, mode=spec.partition(":")[2] or None)
    if is_provider_spec(spec):
        return make_model_translator(spec, language, costs=costs)
    raise BabelflowError(
        f"Unknown translator {spec!r}",
        field="--translator",
        fix=(
            "use `auto` (default), `pseudo`, `apertium[:MODE]` (offline) "
            "or openai:MODEL, anthropic:MODEL, dashscope:MODEL, openai-compatible:MODEL@URL"
        ),
    )
