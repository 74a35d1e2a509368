"""What a run of a served or declared deployment may ask for.

A deployment run's parameters come from whoever can reach the API. Those that name endpoints,
keys, paths or code are deploy-time settings: a run may not change the value its deployment holds
(`python -m flows.pipeline.deployment --translator ...`, prefect.yaml's `parameters`), and the deployment's
value itself must stay inside the project the worker serves: paths under its root, a domain
package found under it, provider endpoints only the ones configured in the worker's environment.
A `babelflow flow` run (typed by the user at their own terminal) is not checked here.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from uuid import UUID

from babelflow.adapt_request import AdaptRequest
from babelflow.errors import BabelflowError
from babelflow.llm.config import BASE_URL_ENV, PROVIDERS
from babelflow.settings import BabelflowSettings
from source_benchmarks.registry import family_of

DEPLOY_TIME = (
    "translator",
    "validators",
    "profile",
    "source_dir",
    "out",
    "project_root",
    "evaluate_agent",  # model specs name endpoints and spend keys, like the validators
    "evaluate_user",
)
PATHS = ("profile", "source_dir", "out")
REFUSED_FIX = (
    "set it when serving (`python -m flows.pipeline.deployment --help`) or in prefect.yaml; "
    "a run may change only benchmark, language(s) and review settings"
)


def check_deployment_run(
    parameters: Mapping[str, Any], deployment_parameters: Mapping[str, Any], settings: BabelflowSettings
) -> None:
    """Refuse (BabelflowError) a deployment run that overrides a deploy-time setting or names
    something outside the project."""
    for name in DEPLOY_TIME:
        if name in parameters and _plain(parameters[name]) != _plain(deployment_parameters.get(name)):
            raise BabelflowError(
                f"A run of this deployment may not set {name!r} (deploy-time setting)", field=name, fix=REFUSED_FIX
            )
    check_inside_project(parameters, settings)


def _plain(value: Any) -> Any:
    return str(value) if isinstance(value, Path) else value


def check_inside_project(parameters: Mapping[str, Any], settings: BabelflowSettings) -> None:
    root = settings.project_root.resolve()
    named_root = parameters.get("project_root")
    if named_root is not None and Path(named_root).resolve() != root:
        raise BabelflowError(
            f"project_root {named_root} is not the project this worker serves ({root})",
            field="project_root",
            fix=REFUSED_FIX,
        )
    for name in PATHS:
        value = parameters.get(name)
        if value is None:
            continue
        path = Path(value) if Path(value).is_absolute() else root / value
        if not path.resolve().is_relative_to(root):  # resolve(): a symlink inside pointing out counts as out
            raise BabelflowError(
                f"{name} {value} is outside the project {root}",
                field=name,
                fix=f"name a path under {root}, at deploy time",
            )
    benchmark = str(parameters.get("benchmark") or "")
    module = family_of(benchmark).imported_code(benchmark) if benchmark else None
    if module is not None:
        _check_package(module, root)
    for name in ("translator", "validators"):
        for spec in str(parameters.get(name) or "").split(","):
            _check_endpoint(spec.strip(), name)


def _check_package(module: str, root: Path) -> None:
    """Code a benchmark id imports (a domain package): only code found under the project root may be imported."""
    top = module.split(".")[0]
    found = importlib.util.find_spec(top) if top.isidentifier() else None
    places = [Path(p) for p in (found.submodule_search_locations or [])] if found else []
    if found and found.origin and found.origin not in ("built-in", "frozen"):
        places.append(Path(found.origin))
    if not places or not all(p.resolve().is_relative_to(root) for p in places):
        raise BabelflowError(
            f"Domain package {module!r} is not a package under the project {root}",
            field="benchmark",
            fix="put the package inside the project and name it at deploy time",
        )


def _check_endpoint(spec: str, field: str) -> None:
    """A provider spec may name no endpoint but the one configured for its provider here."""
    provider, _, rest = spec.partition(":")
    if provider not in PROVIDERS:
        return
    endpoint = rest.partition("?")[0].partition("@")[2]
    if endpoint and endpoint.rstrip("/") != os.environ.get(BASE_URL_ENV[provider], "").rstrip("/"):
        raise BabelflowError(
            f"{field} names the endpoint {endpoint!r}, which is not configured for {provider} on this worker",
            field=field,
            fix=f"set {BASE_URL_ENV[provider]} in the worker's environment, or give the spec no @URL",
        )


def deploy_time_values(request: AdaptRequest) -> dict[str, Any]:
    """The request's deploy-time settings (and its benchmark, whose code must lie in the project), by the
    names a deployment's check and its error messages use."""
    return {
        "benchmark": request.benchmark,
        "translator": request.translator.text,
        "validators": request.validators,
        "profile": request.profile,
        "source_dir": request.source_dir,
        "out": request.out,
        "project_root": request.project_root,
        "evaluate_agent": request.evaluation.agent,
        "evaluate_user": request.evaluation.user,
    }


def deployed_parameters(request: AdaptRequest) -> dict[str, Any]:
    """What the pool's deployment fixes: the request's deploy-time settings (translator, validators, paths,
    entity overrides, evaluation) that differ from the defaults; a run may not ask for others (`admitted_request`)."""
    asked = request.model_dump(mode="json", exclude={"benchmark", "language", "review"})
    default = AdaptRequest(benchmark=request.benchmark, language=request.language).model_dump(mode="json")
    # whole fields that differ from the defaults (a translator keeps its `kind`: the union needs it)
    return {"request": {name: value for name, value in asked.items() if value != default[name]}}


def admitted_request(request: AdaptRequest, settings: BabelflowSettings) -> AdaptRequest:
    """Inside a flow run: if it belongs to a deployment, the run's request with the deployment's fixed
    settings (its `request` parameter) where the run left the default, as a flat parameter would have
    it; refused (BabelflowError) when it asks for other deploy-time settings or for code, paths or
    endpoints outside the project."""
    # Prefect reads its settings from the environment when imported (prefect.context), and flows/pipeline/deployment.py
    # imports this module before it sets the project's PREFECT_HOME: only inside a run, where it is loaded already
    from prefect.client.orchestration import get_client  # noqa: PLC0415
    from prefect.context import FlowRunContext  # noqa: PLC0415

    context = FlowRunContext.get()
    # a subflow carries no deployment id: its request comes from a parent run checked here first
    deployment_id = context.flow_run.deployment_id if context and context.flow_run else None
    if deployment_id is None:
        return request
    with get_client(sync_client=True) as client:
        declared = (client.read_deployment(UUID(str(deployment_id))).parameters or {}).get("request") or {}
    return check_against_deployment(request, declared, settings)


def check_against_deployment(
    request: AdaptRequest, declared: Mapping[str, Any], settings: BabelflowSettings
) -> AdaptRequest:
    """`request` with the deployment's `declared` settings where it left the default; refused when it asks
    for other deploy-time settings, or for code, paths or endpoints outside the project."""
    default = AdaptRequest(benchmark=request.benchmark, language=request.language)
    fixed = {name: value for name, value in declared.items() if name not in ("benchmark", "language")}
    deployed = AdaptRequest.model_validate({**default.model_dump(mode="json"), **fixed})
    left = {name: getattr(deployed, name) for name in fixed if getattr(request, name) == getattr(default, name)}
    settled = request.model_copy(update=left)
    check_deployment_run(deploy_time_values(settled), deploy_time_values(deployed), settings)
    return settled
