"""`babelflow adapt tau2-mock --lang en-XA` with a glossary of 0, 5,000 and 20,000 terms (issue 28,
item 12: a 5,000-term glossary made mock 7x slower and 600,000 never finished, because each term's
regex was built again for every field).

One seeded project (the IR and analysis cache of a first adapt) is copied per measurement; the
translation memory, canonical map and variant are dropped, so every run translates, checks and
validates everything. Terms: words of mock's own texts (so they match and are checked) plus
synthetic ones; targets are the accented source, as the pseudo-localizer renders it.

Usage: python -m bench.glossary_scale [--terms 0,5000,20000] [--timeout 600]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def pack_with_terms(count: int, words: list[str]) -> str:
    from babelflow.text import ACCENT_TABLE

    base = (ROOT / "language_packs" / "en-XA.toml").read_text(encoding="utf-8").split("[[glossary]]")[0]
    terms = words[:count] + [f"zq{index}word" for index in range(max(0, count - len(words)))]
    entries = "".join(
        f'\n[[glossary]]\nbenchmark = "tau2-mock"\nsource = "{term}"\ntarget = "{term.translate(ACCENT_TABLE)}"\n'
        for term in terms
    )
    return base + entries


def run_adapt(project: Path, timeout: float) -> tuple[float, int]:
    env = {
        **os.environ,
        "BABELFLOW_PROJECT_ROOT": str(project),
        "DO_NOT_TRACK": "1",
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
    }
    started = time.perf_counter()
    try:
        done = subprocess.run(
            [sys.executable, "-m", "flows.cli.app", "adapt", "tau2-mock", "--lang", "en-XA"],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return timeout, -1
    return time.perf_counter() - started, done.returncode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--terms", default="0,5000,20000")
    parser.add_argument("--timeout", type=float, default=600)
    args = parser.parse_args()
    counts = [int(value) for value in args.terms.split(",")]
    with tempfile.TemporaryDirectory(prefix="babelflow-glossary-") as tmp:
        seeded = Path(tmp) / "seeded"
        seeded.mkdir()
        seconds, code = run_adapt(seeded, args.timeout)
        if code != 0:
            raise SystemExit(f"the seeding adapt failed (exit {code})")
        import orjson

        ir = orjson.loads((seeded / ".babelflow" / "ir" / "tau2-mock.json").read_bytes())
        words = sorted(
            {
                w.lower()
                for e in ir["elements"]
                if e["translation_type"] != "preserve"
                for w in re.findall(r"[A-Za-z]{4,}", e["source_text"])
            }
        )
        rows = []
        for count in counts:
            project = Path(tmp) / f"terms-{count}"
            shutil.copytree(seeded, project, symlinks=True)
            for stale in ("adapted", "canonical_maps", ".babelflow/tm"):
                shutil.rmtree(project / stale, ignore_errors=True)
            (project / "language_packs").mkdir()
            (project / "language_packs" / "en-XA.toml").write_text(pack_with_terms(count, words), encoding="utf-8")
            seconds, code = run_adapt(project, args.timeout)
            rows.append((count, seconds, code))
            print(
                f"{count:>7,} terms: {seconds:7.1f} s, exit {code}" + (" (timed out)" if code == -1 else ""), flush=True
            )
    base = rows[0][1] if rows and rows[0][0] == 0 else None
    if base:
        print("ratio to 0 terms: " + ", ".join(f"{count:,}: {seconds / base:.2f}x" for count, seconds, _ in rows))


if __name__ == "__main__":
    main()
