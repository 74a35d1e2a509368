"""The one model layer, used by translators, validator agents and ``babelflow evaluate`` alike
(after inspect_ai's ``model/``): what a provider spec says and where its key comes from
(``config``), which parameters each model family takes (``families``), one JSON exchange per SDK
(``clients``) and one tool-calling turn (``tools``), retries with the shared per-provider limit
(``resilience``), what a provider's error reply means (``failures``), token accounting
(``costs``), versioned prompts (``prompts``) and structured replies (``replies``).

Nothing here knows about translation units or findings: stage-specific schemas, prompts and
checks stay in their stage (``translators/providers``, ``validators/model_backends``).
"""
