"""Serve babelflow's flows as Prefect deployments.

Locally: `python -m flows.deployment` serves `adapt-language` and `adapt-languages` from this
process (runs execute as subprocesses, at most --limit at a time). On many machines: the same
flows are declared in prefect.yaml for a `process` work pool; `prefect deploy --all` registers
them and `prefect worker start --pool babelflow-process` on each machine picks runs up.
"""

from __future__ import annotations

import argparse
from typing import cast

from babelflow.settings import apply_offline_environment


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--limit", type=int, default=2, help="flow runs executed at once by this server")
    args = parser.parse_args()
    apply_offline_environment()
    from prefect import serve
    from prefect.deployments.runner import RunnerDeployment

    from flows.prefect_flows import adapt_language, adapt_languages

    # to_deployment is sync-compatible: called from sync code it returns the deployment itself
    deployments = [cast(RunnerDeployment, flow.to_deployment(name="babelflow", tags=["babelflow"])) for flow in (adapt_language, adapt_languages)]
    serve(*deployments, limit=args.limit)


if __name__ == "__main__":
    main()
