"""Serve babelflow's flows as Prefect deployments.

Locally: `python -m flows.pipeline.deployment` serves `adapt-language` and `adapt-languages` from this
process (runs execute as subprocesses, at most --limit at a time) against the project's own
server (started or adopted as `babelflow flow` does, with its auth string) or PREFECT_API_URL. On
many machines: the same flows are declared in prefect.yaml for a `process` work pool; `prefect
deploy --all` registers them and `prefect worker start --pool babelflow-process` on each machine
picks runs up.

What names endpoints, paths or code (translator, validators, profile, source dir, output folder)
is set here, at deploy time, and must lie inside the project: a run may choose only the
benchmark, the language(s) and the review settings (flows/pipeline/run_guard.py refuses the rest).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import cast

from babelflow.adapt_request import AdaptRequest, parse_translator_spec
from babelflow.errors import BabelflowError
from babelflow.settings import BabelflowSettings, apply_offline_environment
from flows.pipeline.run_guard import check_inside_project, deploy_time_values, deployed_parameters
from flows.server.local_server import ensure_server


def deployed_request(args: argparse.Namespace) -> AdaptRequest:
    """The deploy-time settings of every run, as a request template (benchmark and language: the run's)."""
    return AdaptRequest(
        benchmark="",
        language="",
        translator=parse_translator_spec(args.translator),
        validators=args.validators,
        profile=args.profile,
        source_dir=args.source_dir,
        out=args.out,
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--limit", type=int, default=2, help="flow runs executed at once by this server")
    parser.add_argument(
        "--translator", default="auto", help="translator spec of every run (no @URL but the provider's configured one)"
    )
    parser.add_argument("--validators", default="", help="validator specs of every run (comma-separated)")
    parser.add_argument("--profile", type=Path, help="analysis profile of adapt-language runs (inside the project)")
    parser.add_argument(
        "--source-dir", type=Path, help="benchmark source folder of adapt-language runs (inside the project)"
    )
    parser.add_argument("--out", type=Path, help="variant folder of adapt-language runs (inside the project)")
    args = parser.parse_args(argv)
    settings = BabelflowSettings()
    try:
        apply_offline_environment(settings)
        template = deployed_request(args)
        check_inside_project(deploy_time_values(template), settings)  # an error/fix now, not a failed run later
        ensure_server(settings)  # PREFECT_API_URL and the auth string, for this process and the runs it starts
    except BabelflowError as exc:
        sys.stderr.write(f"error: {exc.render()}\n")
        raise SystemExit(exc.exit_code) from None
    # Prefect reads its settings from the environment when imported (prefect.context): only after
    # apply_offline_environment has set the project's PREFECT_HOME and the offline variables
    from prefect import serve  # noqa: PLC0415
    from prefect.deployments.runner import RunnerDeployment  # noqa: PLC0415

    from flows.pipeline.prefect_flows import adapt_language, adapt_languages  # noqa: PLC0415 - imports Prefect

    # to_deployment is sync-compatible: called from sync code it returns the deployment itself
    fixed = deployed_parameters(template)
    one = cast(RunnerDeployment, adapt_language.to_deployment(name="babelflow", tags=["babelflow"], parameters=fixed))
    several = cast(
        RunnerDeployment, adapt_languages.to_deployment(name="babelflow", tags=["babelflow"], parameters=fixed)
    )
    serve(one, several, limit=args.limit)


if __name__ == "__main__":
    main()
