"""Adopt forks of AgentDojo's suites, whose task prompts and tool descriptions live in Python, with the commands a
user runs, and report what the adoption read from the forked code:

    babelflow adopt agentdojo-SUITE --lang es --from FORK --origin fork
    babelflow validate agentdojo-SUITE --lang es --json report.json

Each fork is AgentDojo's own files (data and the suite's modules) with literals translated in place by
bench/code_fork.py: `prompts` translates task prompts, goals and docstrings (a careful team), `every` every
string with a word (a naive team, compared values too). Prints per suite and fork: code fields the fork
translated and how many adopt read; the reasons of the rest; kept values put back; groups above note; the time
of `adopt` over `validate`, in this run.

    python -m bench.adopt_fork [--suite travel ...] [--fork prompts|every]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections import Counter
from pathlib import Path

import agentdojo
from rich.console import Console
from rich.table import Table

from babelflow.ir import load_ir
from bench.adopt_corpus import SEVERE, _run
from bench.code_fork import every_word, fork, prompts_and_docs
from translators.adoption import load_adoption
from validators.findings import FailureSet, group_findings

FORKS = {"prompts": prompts_and_docs, "every": every_word}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--suite", action="append", help="default: travel, workspace, banking, slack")
    parser.add_argument("--fork", action="append", choices=sorted(FORKS), help="default: both")
    args = parser.parse_args()
    table = Table(title="adopting forks of AgentDojo (es): what adopt reads from their Python")
    for column in (
        "suite",
        "fork",
        "code fields the fork translated",
        "read from it",
        "code not read (reason)",
        "kept values put back",
        "groups above note",
        "adopt / validate",
    ):
        table.add_column(column)
    package = Path(agentdojo.__file__).parent
    for suite in args.suite or ["travel", "workspace", "banking", "slack"]:
        bench_id = f"agentdojo-{suite}"
        with tempfile.TemporaryDirectory(prefix=f"adopt-fork-{suite}-") as tmp:
            analyzed = Path(tmp, "analysis")
            ir_path = analyzed / f".babelflow/ir/{bench_id}.json"
            _run(["analyze", bench_id, "--out", str(ir_path)], analyzed.parent)
            ir = load_ir(ir_path, benchmark=bench_id)
            code = {
                e.id: e for e in ir.elements if e.artifact.endswith(".py") and e.translation_type.value != "preserve"
            }
            for name in args.fork or sorted(FORKS):
                project = Path(tmp, name)
                (project / ".babelflow/ir").mkdir(parents=True)
                (project / f".babelflow/ir/{bench_id}.json").write_bytes(ir_path.read_bytes())
                their = fork(package, [a.path for a in ir.artifacts], Path(tmp, f"fork-{name}"), FORKS[name])
                adopt_s = _run(["adopt", bench_id, "--lang", "es", "--from", str(their), "--origin", "fork"], project)
                report = project / "report.json"
                started = time.perf_counter()
                _run(["validate", bench_id, "--lang", "es", "--json", str(report)], project)
                validate_s = time.perf_counter() - started
                record = load_adoption(project / f".babelflow/runs/{bench_id}/es/adopted_translations.json")
                assert record is not None, "adopt wrote no adoption record"
                unread = Counter(n.reason for n in record.not_adopted if n.element_id in code)
                left = unread.pop("left_in_source", 0)
                translated = len(code) - left  # the fork kept the rest in English
                read = translated - sum(unread.values())
                findings = FailureSet.model_validate_json(report.read_bytes()).findings
                groups = sum(g.severity.value in SEVERE for g in group_findings(findings))
                table.add_row(
                    suite,
                    name,
                    f"{translated} of {len(code)}",
                    f"{read} ({read / max(translated, 1):.1%})",
                    ", ".join(f"{reason} {n}" for reason, n in unread.most_common()) or "-",
                    str(sum(r.artifact.endswith(".py") for r in record.restored)),
                    str(groups),
                    f"{adopt_s:.1f} s / {validate_s:.1f} s = {adopt_s / validate_s:.2f}x",
                )
    Console(width=220).print(table)


if __name__ == "__main__":
    main()
