"""The model translator: batches of protected segments to a provider and checked JSON back.

Everything provider-generic (spec grammar, keys, clients per SDK, retries and shared limits,
failure causes, model families, token costs, prompts, structured replies) is the one model layer
``babelflow.llm``, which the validator agents and ``babelflow evaluate`` use too. What is
translation-specific stays here: ``translator`` (batching, smaller retries) and ``checks`` (what a
translation reply must satisfy).
"""

from __future__ import annotations

from babelflow.llm.config import is_provider_spec, parse_spec
from babelflow.llm.costs import CostLedger
from translators.providers.translator import ModelTranslator, model_translator_id


def make_model_translator(spec: str, language: str, *, costs: CostLedger | None = None):
    """A ModelTranslator for ``spec``; raises BabelflowError (exit 2) when its key is missing."""
    return ModelTranslator(parse_spec(spec, field="--translator"), language, costs=costs)


def model_translator_id_of(spec: str) -> str:
    """The id ``make_model_translator(spec, …)`` gives, without its key: reading what a keyed run made needs none."""
    return model_translator_id(parse_spec(spec, field="--translator", require_key=False))


__all__ = ["is_provider_spec", "make_model_translator", "model_translator_id_of"]
