"""Per τ³ domain: cold and warm analysis, translation + rebuild, validation; evidence share and findings.

    python -m bench.tau3_domains [--lang es] [--domains mock,airline,...] [--state DIR]

Each domain runs as a user would, through the CLI, in one fresh state folder (nothing cached from
earlier runs): `analyze` twice (cold, then warm: the saved IR reused), `adapt` (translation and
rebuild on the warm IR), `validate`. One run each on this machine: read the ratios, not the
seconds, and note the load average printed beside them. Needs τ³'s environment (.venv-tau3).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DOMAINS = ("mock", "airline", "retail", "telecom", "banking_knowledge")
_SHARE = re.compile(r"Preserve fields with runtime evidence \(traced or differential\): ([\d,]+) of ([\d,]+)")


def _run(args: list[str], env: dict[str, str], cwd: Path) -> tuple[float, subprocess.CompletedProcess]:
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "flows.cli.app", *args], env=env, cwd=cwd, capture_output=True, text=True, check=False
    )
    return time.perf_counter() - started, done


def _load() -> str:
    return Path("/proc/loadavg").read_text().split()[0] if Path("/proc/loadavg").exists() else "?"


def measure(domain: str, language: str, state: Path, project: Path) -> dict[str, object]:
    benchmark = f"tau3-{domain}"
    env = {
        **os.environ,
        "BABELFLOW_STATE_DIR": str(state),
        # variants beside the state folder, never inside it (the output guard refuses a variant there)
        "BABELFLOW_ADAPTED_DIR": str(state.with_name(state.name + "-adapted")),
        "COLUMNS": "200",
    }
    row: dict[str, object] = {"domain": domain, "language": language}
    for label in ("cold", "warm"):
        seconds, done = _run(["analyze", benchmark, "--out", str(state / f"{benchmark}.ir.json")], env, project)
        if done.returncode != 0:
            raise SystemExit(f"{benchmark}: analyze failed\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
        row[f"analysis_{label}_s"] = round(seconds, 1)
        row[f"load_{label}"] = _load()
        share = _SHARE.search(" ".join((done.stdout + done.stderr).split()))  # rich prints to stderr
        if share:
            kept, preserve = (int(x.replace(",", "")) for x in share.groups())
            row["evidence_share"] = round(100 * kept / preserve, 1)
    seconds, done = _run(["adapt", benchmark, "--lang", language], env, project)
    if done.returncode != 0:
        raise SystemExit(f"{benchmark}: adapt failed\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    row["translate_rebuild_s"] = round(seconds, 1)
    report = state / f"{benchmark}.{language}.findings.json"
    seconds, done = _run(["validate", benchmark, "--lang", language, "--json", str(report)], env, project)
    if done.returncode not in (0, 1):
        raise SystemExit(f"{benchmark}: validate failed\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    row["validate_s"] = round(seconds, 1)
    row["load_end"] = _load()
    findings = json.loads(report.read_text())["findings"] if report.exists() else []
    row["findings"] = len(findings)
    row["findings_above_note"] = sum(1 for f in findings if f.get("severity") != "note")
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lang", default="es")
    parser.add_argument("--domains", default=",".join(DOMAINS))
    parser.add_argument("--state", type=Path, default=None, help="fresh state folder (default: a temp dir)")
    args = parser.parse_args()
    project = Path(__file__).resolve().parents[1]
    state = args.state or Path(tempfile.mkdtemp(prefix="tau3-domains-"))
    state.mkdir(parents=True, exist_ok=True)
    rows = []
    for domain in args.domains.split(","):
        row = measure(domain.strip(), args.lang, state, project)
        rows.append(row)
        print(json.dumps(row), flush=True)
    print("| τ³ domain | cold analysis | warm | evidence share | translate + rebuild | validate | findings > note |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['domain']} | {r['analysis_cold_s']} s (load {r['load_cold']}) | {r['analysis_warm_s']} s | "
            f"{r.get('evidence_share', '–')}% | {r['translate_rebuild_s']} s | {r['validate_s']} s | "
            f"{r['findings_above_note']} |"
        )


if __name__ == "__main__":
    main()
