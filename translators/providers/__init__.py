"""Model providers behind the `Translator` protocol (and the validators' `ReviewModel`):
OpenAI, Anthropic and DashScope through their official SDKs, plus any OpenAI-compatible endpoint.

Configuration (spec grammar, options, environment, keys): ``translators.providers.config``.
Retries, backoff and the shared per-provider limit: ``resilience``. Token accounting: ``costs``.
"""

from __future__ import annotations

from translators.providers.config import PROVIDERS, ProviderConfig, Secret, is_provider_spec, parse_spec
from translators.providers.costs import CostLedger, CostReport, publish_costs


def make_model_translator(spec: str, language: str, *, costs: CostLedger | None = None):
    """A ModelTranslator for ``spec``; raises BabelflowError (exit 2) when its key is missing."""
    from translators.providers.translator import ModelTranslator

    return ModelTranslator(parse_spec(spec, field="--translator"), language, costs=costs)


__all__ = ["PROVIDERS", "CostLedger", "CostReport", "ProviderConfig", "Secret", "is_provider_spec", "make_model_translator", "parse_spec", "publish_costs"]
