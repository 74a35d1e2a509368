"""Performance of every stage on all four τ² domains, one run: wall time, CPU time, peak RSS.

For each domain (and telecom's 114-task base split next to its full 2,285-task file, to show how
costs grow) a fresh subprocess runs, in order: parse the inputs (physical floor), τ²-bench's own
golden replay + evaluate_simulation (reference point), analysis, translation (offline
pseudo-locale), rebuild, each validation layer, then a rerun after one confirmed finding (one
unit retranslated, affected tasks revalidated). Peak RSS is the process high-water mark after each
stage (bench/stage_worker.py). Then, for retail and telecom, bench/flow_rerun_worker.py runs the
Prefect flow in a fresh process: cold first run, a planted finding, the reviewer's confirmation, and the rerun; their
ratio and the flow's peak RSS are printed side by side.

Usage: python -m bench.performance [--domains tau2-mock,tau2-retail,...] [--flow-domains tau2-retail,tau2-telecom]
       (from the repo root; an empty list skips that part, e.g. --domains "" for the flow comparison alone)
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _telecom_base(folder: Path) -> Path:
    """A source dir whose tasks.json holds only telecom's 114-task base split."""
    import orjson
    import tau2

    data = Path(tau2.__file__).parent / "data" / "tau2" / "domains" / "telecom"
    split = orjson.loads((data / "split_tasks.json").read_bytes())
    base = set(split["base"])
    dest = folder / "tau2" / "domains" / "telecom"
    dest.mkdir(parents=True)
    tasks = [t for t in orjson.loads((data / "tasks.json").read_bytes()) if t["id"] in base]
    (dest / "tasks.json").write_bytes(orjson.dumps(tasks))
    (dest / "split_tasks.json").write_bytes(orjson.dumps({"base": sorted(base)}))
    return folder


def main() -> None:
    # an empty list skips that part: `--domains ""` runs only the flow comparison
    wanted = (
        [d for d in sys.argv[sys.argv.index("--domains") + 1].split(",") if d]
        if "--domains" in sys.argv
        else ["tau2-mock", "tau2-airline", "tau2-retail", "telecom-base", "tau2-telecom"]
    )
    flow_domains = (
        [d for d in sys.argv[sys.argv.index("--flow-domains") + 1].split(",") if d]
        if "--flow-domains" in sys.argv
        else ["tau2-retail", "tau2-telecom"]
    )
    results, flows = [], []
    with tempfile.TemporaryDirectory() as tmp:
        from bench.local_prefect import start_server

        server, api, _ = start_server(Path(tmp) / "prefect-home")
        try:
            _run_all(wanted, Path(tmp), api, results)
            flows = [_flow_rerun(name, Path(tmp), api) for name in flow_domains]
        finally:
            server.terminate()
            server.wait(30)
    _print(results)
    _print_flows(flows)


def _flow_rerun(benchmark: str, tmp: Path, api: str) -> dict:
    """The Prefect flow cold, then the rerun after one confirmed finding (python -m bench.flow_rerun_worker)."""
    env = {
        **os.environ,
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "DO_NOT_TRACK": "1",
        "PREFECT_API_URL": api,
        "PREFECT_LOGGING_LEVEL": "WARNING",
        "PREFECT_HOME": str(tmp / "prefect-home"),
        "PREFECT_LOCAL_STORAGE_PATH": str(tmp / f"flow-{benchmark}" / "prefect-storage"),
    }
    out = subprocess.run(
        [sys.executable, "-m", "bench.flow_rerun_worker", benchmark, str(tmp / f"flow-{benchmark}")],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    if out.returncode != 0:
        raise SystemExit(out.stderr[-3000:])
    return json.loads(out.stdout.strip().splitlines()[-1])


def _print_flows(flows: list[dict]) -> None:
    from rich.console import Console
    from rich.table import Table

    if not flows:
        return
    table = Table(title="through the Prefect flow: first run (cold) vs rerun after one confirmed finding")
    for column in (
        "benchmark",
        "first run s",
        "peak RSS MB",
        "finding (occurrences)",
        "rerun s",
        "rerun / first",
        "stages rerun",
        "units",
        "tasks replayed",
    ):
        table.add_column(column)
    for f in flows:
        table.add_row(
            f["benchmark"],
            f"{f['first_wall']:.1f}",
            f"{f['peak_rss_mb']:.0f}",
            f"{f['defect_findings']} ({f['planted_occurrences']})",
            f"{f['rerun_wall']:.1f}",
            f"{f['rerun_wall'] / f['first_wall']:.1%}",
            ", ".join(f["rerun_stages_run"]),
            str(f["rerun_units"]),
            str(f["rerun_tasks_replayed"]),
        )
    Console(width=200).print(table)


def _run_all(wanted: list[str], tmp: Path, api: str, results: list) -> None:
    for name in wanted:
        benchmark, source = (
            ("tau2-telecom", str(_telecom_base(Path(tmp) / "telecom-base-src")))
            if name == "telecom-base"
            else (name, "-")
        )
        env = {
            **os.environ,
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
            "DO_NOT_TRACK": "1",
            "PREFECT_API_URL": api,
            "PREFECT_LOGGING_LEVEL": "WARNING",
            "PREFECT_HOME": str(Path(tmp) / "prefect-home"),
            "PREFECT_LOCAL_STORAGE_PATH": str(Path(tmp) / name / "prefect-storage"),
        }
        out = subprocess.run(
            [sys.executable, "-m", "bench.stage_worker", benchmark, str(Path(tmp) / name), source],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
        )
        if out.returncode != 0:
            raise SystemExit(out.stderr[-3000:])
        result = json.loads(out.stdout.strip().splitlines()[-1])
        result["label"] = name
        results.append(result)


def _print(results: list) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console(width=180)
    for result in results:
        table = Table(
            title=(
                f"{result['label']}: {result['tasks']} tasks, {result['findings']} findings; rerun retranslated "
                f"{result['rerun_units']} unit(s), replayed {result['rerun_tasks']} task(s)"
            )
        )
        for column in ("stage", "wall s", "cpu s", "peak RSS MB"):
            table.add_column(column, justify="right" if column != "stage" else "left")
        for row in result["rows"]:
            table.add_row(row["stage"], f"{row['wall']:.2f}", f"{row['cpu']:.2f}", f"{row['rss_mb']:.0f}")
        console.print(table)
    by = {r["label"]: {row["stage"]: row["wall"] for row in r["rows"]} for r in results}
    if "telecom-base" in by and "tau2-telecom" in by:
        growth = Table(title="telecom: base split (114 tasks) → full task file (2,285 tasks), wall-time ratio")
        growth.add_column("stage")
        growth.add_column("base s", justify="right")
        growth.add_column("full s", justify="right")
        growth.add_column("× growth", justify="right")
        for stage, base in by["telecom-base"].items():
            full = by["tau2-telecom"][stage]
            growth.add_row(stage, f"{base:.2f}", f"{full:.2f}", f"{full / base:.1f}" if base > 0.005 else "-")
        console.print(growth)


if __name__ == "__main__":
    main()
