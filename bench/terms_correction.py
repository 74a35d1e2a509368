"""A corrected term, on τ² retail in Spanish (Apertium), in one rerun (issue 41): it reaches the DB, the golden
arguments and the prose; τ²'s own evaluator still gives every golden replay the same reward and tool errors as
the source; and only units that mention a corrected term are translated again (counted).

A scratch project without the committed reviewed map adapts retail, `babelflow terms --correct` fixes three
doubtful renderings, and `babelflow adapt` runs again. Then the behaviour layer replays all 114 tasks through
τ²'s evaluator on source and variant.

    python -m bench.terms_correction [--keep DIR]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

import orjson
from rich.console import Console

from babelflow.adapt_request import AdaptRequest
from babelflow.glossary import term_matcher
from babelflow.ir import save_ir
from babelflow.settings import BabelflowSettings
from flows.cli.app import app
from flows.pipeline.adapt import adapt
from translators.units import extract_units

ROOT = Path(__file__).resolve().parent.parent
BENCH, LANG = "tau2-retail", "es"
CORRECTIONS = {"Tablet": "Tableta", "glass": "vidrio", "Smart Watch": "Reloj inteligente"}
console = Console()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--keep", type=Path, help="run in this folder and keep it")
    args = parser.parse_args(argv)
    root = args.keep or Path(tempfile.mkdtemp(prefix="babelflow-terms-"))
    root.mkdir(parents=True, exist_ok=True)
    (root / "language_packs").mkdir(exist_ok=True)
    os.environ["BABELFLOW_PROJECT_ROOT"] = str(root)
    os.chdir(root)
    settings = BabelflowSettings(project_root=root)
    saved_ir = BabelflowSettings(project_root=ROOT).layout.ir(BENCH)
    if saved_ir.exists():
        settings.layout.ir(BENCH).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(saved_ir, settings.layout.ir(BENCH))
    started = time.perf_counter()
    first = adapt(AdaptRequest.of_options(BENCH, LANG), settings=settings)
    save_ir(first.ir, settings.layout.ir(BENCH))
    console.log(f"first adapt: {time.perf_counter() - started:.1f} s")
    from typer.testing import CliRunner  # noqa: PLC0415

    corrections = [arg for source, target in CORRECTIONS.items() for arg in ("--correct", f"{source}={target}")]
    done = CliRunner().invoke(app, ["terms", BENCH, "--lang", LANG, *corrections, "--author", "bench"])
    if done.exit_code != 0:
        console.print(done.output)
        return 1
    started = time.perf_counter()
    second = adapt(AdaptRequest.of_options(BENCH, LANG), settings=settings)
    console.log(f"rerun: {time.perf_counter() - started:.1f} s")

    _, free = extract_units(second.ir)
    matcher = term_matcher(tuple(CORRECTIONS))
    mentioning = {u.key for u in free if matcher.present(u.text)}
    stats = second.outcome.stats
    sent = stats.units_by_origin.get(stats.translator_id, 0)
    variant = second.paths.variant / "data" / "tau2" / "domains" / "retail"
    db = (variant / "db.json").read_text(encoding="utf-8")
    tasks = (variant / "tasks.json").read_text(encoding="utf-8")
    for source, target in CORRECTIONS.items():
        in_db = len(re.findall(re.escape(f'"{target}"'), db))
        in_tasks = len(re.findall(re.escape(target), tasks, flags=re.IGNORECASE))
        console.print(f"{source!r} -> {target!r}: {in_db} DB values, {in_tasks} mentions in tasks (gold args, prose)")
    console.print(
        f"units sent to the translator again: {sent}; free units that mention a corrected term: {len(mentioning)};"
        f" from memory: {stats.units_by_origin.get(f'{stats.translator_id} (memory)', 0)} of {len(free)}"
    )
    report = root / "validate.json"
    CliRunner().invoke(app, ["validate", BENCH, "--lang", LANG, "--json", str(report)])
    failures = orjson.loads(report.read_bytes())
    layers: dict[str, int] = {}
    for finding in failures["findings"]:
        layers[f"{finding['layer']}/{finding['kind']}"] = layers.get(f"{finding['layer']}/{finding['kind']}", 0) + 1
    behaviour = {k: n for k, n in layers.items() if k.startswith("behavior")}
    console.print(
        f"validate: {len(failures['findings'])} findings; behaviour layer (τ²'s evaluator, 114 tasks):"
        f" {behaviour or 'none'}"
    )
    console.print(f"findings by kind: {layers}")
    return 0 if sent <= len(mentioning) else 1


if __name__ == "__main__":
    sys.exit(main())
