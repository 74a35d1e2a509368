"""How `babelflow flow` runs a request: checked before any work, then one language in this process, several
as subflows (a concurrency limit), or one flow run per language on a work pool's workers."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from babelflow.adapt_request import AdaptRequest
from babelflow.adaptation_run import AdaptationRun
from babelflow.ir import Record
from babelflow.settings import BabelflowSettings
from flows.pipeline.evaluation_stage import evaluation_config
from flows.run_setup import resolve_run

if TYPE_CHECKING:  # Prefect is imported once the server's URL is set
    from flows.pipeline.flow_results import AdaptFlowResult


class PoolOptions(Record):
    """`--pool NAME`, `--provider-limit PROVIDER=N`, `--max-concurrency N` (runs of the pool's deployment at once)."""

    name: str
    provider_limits: dict[str, int] = {}
    max_concurrency: int | None = None


def pool_options(pool: str | None, provider_limit: list[str], max_concurrency: int | None) -> PoolOptions | None:
    """A pool without shared state, or a bad limit, is refused before any work or server start."""
    if not pool:
        return None
    from babelflow.shared_state.config import require_shared_config  # noqa: PLC0415
    from flows.pipeline.shared_run import parse_provider_limits  # noqa: PLC0415

    require_shared_config()
    return PoolOptions(
        name=pool, provider_limits=parse_provider_limits(provider_limit), max_concurrency=max_concurrency
    )


def preflight(settings: BabelflowSettings, request: AdaptRequest, languages: list[str]) -> list[AdaptationRun]:
    """What a run would refuse, refused before any work or server start: the validators' keys, the
    evaluation's specs, keys and the family's runner, and each language's run (tag, pack, Apertium pair
    or provider key). The runs are the flow's own when it runs in this process (`resolved_once`)."""
    if request.validators:
        from validators.model_backends import make_validator_agents  # noqa: PLC0415 - +0.7 s on --help

        make_validator_agents(request.validators)  # a missing key is an error before any work starts
    evaluation = evaluation_config(request.evaluation)
    if evaluation is not None:  # specs, keys and the family's runner checked before any work
        from flows.evaluation.evaluate import check_models  # noqa: PLC0415

        for tag in languages:
            check_models(request.evaluation, request.benchmark, tag)
    return [resolve_run(settings, request.for_language(tag)) for tag in languages]


def run_languages(
    request: AdaptRequest,
    languages: list[str],
    pool: PoolOptions | None,
    max_concurrency: int | None,
    say: Callable[[str], None],
) -> list[AdaptFlowResult]:
    """Each language's AdaptFlowResult, whatever named state its run ended in."""
    if pool is not None:  # one flow run per language on the pool's workers (flows/pipeline/pools.py)
        from flows.pipeline.pools import run_on_pool  # noqa: PLC0415 - Prefect, after the URL

        return run_on_pool(request, languages, pool, say)[0]
    from flows.pipeline.flow_results import outcome, outcomes  # noqa: PLC0415
    from flows.pipeline.prefect_flows import adapt_language, adapt_languages  # noqa: PLC0415

    if len(languages) == 1:  # the run ends in a named state (AwaitingReview, ...) carrying its result
        return [outcome(adapt_language(request.for_language(languages[0]), return_state=True))]
    at_once = max_concurrency or 2
    return outcomes(adapt_languages(request, languages, max_concurrency=at_once, return_state=True))
