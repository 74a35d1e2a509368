"""BabelArena's Table 3 reproduced offline: independent per-field translation vs canonical
translation vs the full babelflow workflow, judged by a behavioural-equivalence oracle.

Every arm uses the same translator, `translators.simulated_model.SimulatedModelTranslator`
(en-XA rendering with a model's errors at stated rates, seeded), so the arms differ only in what
they send and how they check it:

- independent: every field a naive pipeline would translate (all Translate-Free fields of the IR
  and the entity-like fields: Preserve fields with reason linked_entity / evaluator_token in the
  DB and the tasks, i.e. names, product names, option keys and values, addresses, gold arguments,
  communicate_info), each sent on its own with its own context; only template slots ({x}, %s)
  are protected; no dedupe, no canonical map, no checks; written into a copy of the source.
- canonical: the same fields, but every distinct entity value is translated once and reused
  everywhere (a canonical map); prose is still sent per field and unprotected.
- full: babelflow: TranslationEngine (dedupe, placeholders, preserved entities) with the
  simulated model, the language pack's release checks, rebuild_variant, validate_variant (four
  probe layers and three model validator agents that read every task and unit, answered by a
  simulated client on the model layer: babelflow/llm/simulated.py), and a scripted reviewer that confirms
  exactly the findings whose field differs from the simulated model's error-free rendering, purges those
  units from the translation memory (engine.memory_keys + forget) so they are translated again, and loops
  until nothing is open.

The oracle (not babelflow's validators) compares every task of the source and the variant with
the same fixed actions (tau2's golden actions and a do-nothing agent, one execution per task):

- broken reference: the golden replay's tool-call/error sequence changed (a new or vanished tool
  error: the operational signal), or a gold argument that names a DB value no longer equals the
  DB value at any position where the source DB held it, or an id mentioned in the task's
  user-facing text (user_scenario.*, ticket) is no longer there verbatim nor as the arm's DB rendering of
  it (an option value such as '8 hours' is a renamed entity now; an inline token the IR
  preserves as identifier / email / number / date; a token the IR holds nowhere counts if it has
  a digit, '#', '_' or '@'), or the variant crashes the harness;
- behaviour mismatch: golden reward, do-nothing reward (or whether its evaluator crashes) or the
  final DB / user DB after the golden actions differ; for arms that translate DB entities the
  final DB is first mapped back through the arm's own renderings (every target string the arm
  wrote into the DB or the tasks -> its source string), then hashed like tau2 does.

Characters are what the arm sent to the translator (translation memory hits are free); tokens
are estimated as (characters sent + characters received) / 4. The full arm's *workflow* tokens
add what its validator agents sent and received on every validation pass (same estimate), the
quantity behind the paper's 3.35× (BabelArena §3.2: the full workflow costs 3.35× the tokens of
independent translation, largely because of its heterogeneous validators).

Usage: python -m bench.ablation [--domains tau2-mock,tau2-airline,tau2-retail,tau2-telecom]
       [--arms independent,canonical,full] [--lang en-XA] [--seed 0] [--max-rounds 8]
       [--keep DIR] [--json FILE] [--error-free]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from bench.ablation_arms import VALIDATOR_AGENTS, run_full, run_naive
from bench.ablation_oracle import ARMS, DOMAINS, MAX_ROUNDS, PAPER, ArmResult, Domain

# ---- driver ----------------------------------------------------------------------------------


def run_ablation(
    domains: list[str],
    language: str = "en-XA",
    seed: int = 0,
    work: Path | None = None,
    arms: tuple[str, ...] = ARMS,
    max_rounds: int = MAX_ROUNDS,
    console: Console | None = None,
    rates: Any = None,
    remember: bool = True,
) -> list[ArmResult]:
    """Every arm on every domain; `rates` (translators.simulated_model.ErrorRates) defaults to the declared ones."""
    from babelflow.settings import apply_offline_environment

    apply_offline_environment()
    console = console or Console(stderr=True)
    results: list[ArmResult] = []
    with tempfile.TemporaryDirectory(prefix="babelflow-ablation-") as tmp:
        root = Path(work) if work else Path(tmp)
        for benchmark_id in domains:
            domain = Domain(benchmark_id, language, root, console)
            for arm in arms:
                results.append(
                    run_full(domain, seed, max_rounds, rates, remember)
                    if arm == "full"
                    else run_naive(domain, arm, seed, rates)
                )
                last = results[-1]
                console.log(
                    f"{benchmark_id}/{arm}: broken {len(last.broken)}/{last.tasks}, mismatch "
                    f"{len(last.mismatch)}/{last.tasks}, {last.characters_sent:,} chars sent, {last.seconds:.0f} s"
                )
    return results


# what the oracle said, by the start of its reason (bench/ablation_oracle.py Domain.judge)
REASONS = {
    "entity/value unresolved": "gold argument",
    "tool errors changed": "tool errors",
    "ids lost from prose": "ids lost",
    "harness crash": "harness crash",
    "golden reward": "golden reward",
    "do-nothing reward": "do-nothing reward",
    "final DB": "final DB differs",
}


def reason_counts(result: ArmResult) -> dict[str, int]:
    """Tasks per kind of reason (a task can have several): which references broke, not only how many."""
    return {
        label: sum(1 for reasons in result.reasons.values() if any(r.startswith(prefix) for r in reasons))
        for label, prefix in REASONS.items()
    }


def reason_table(results: list[ArmResult]) -> Table:
    table = Table(title="why: tasks per reason (broken: the first four; behaviour mismatch: the last three)")
    for column in ("domain", "arm", "tasks", *REASONS):
        table.add_column(column, justify="left" if column in ("domain", "arm") else "right")
    for r in results:
        counts = reason_counts(r)
        table.add_row(r.benchmark, r.arm, f"{r.tasks:,}", *(f"{counts[label]:,}" for label in REASONS))
    return table


def _pct(part: int, whole: int) -> str:
    return f"{100.0 * part / whole:.1f}%" if whole else "-"


def render(results: list[ArmResult], console: Console, *, seed: int, language: str, rates_tag: str = "") -> str:
    table = Table(
        title=(
            f"Ablation (BabelArena Table 3, offline): simulated model {rates_tag} → {language}, seed {seed}; tokens ≈ "
            "(chars sent + received) / 4"
        )
    )
    for column in (
        "domain",
        "arm",
        "tasks",
        "broken refs",
        "behaviour mismatch",
        "chars sent",
        "tokens≈",
        "× indep. tokens",
        "+ validators≈",
        "workflow × indep.",
        "review rounds",
        "defective fields left",
    ):
        table.add_column(column, justify="left" if column in ("domain", "arm") else "right")
    baseline = {r.benchmark: r.tokens for r in results if r.arm == "independent"}
    domains = list(dict.fromkeys(r.benchmark for r in results))
    arms = list(dict.fromkeys(r.arm for r in results))

    def row(
        label: str,
        arm: str,
        tasks: int,
        broken: int,
        mismatch: int,
        sent: int,
        tokens: int,
        base: int | None,
        rounds: str,
        defective: int,
        validators: int = 0,
    ) -> None:
        table.add_row(
            label,
            arm,
            f"{tasks:,}",
            f"{_pct(broken, tasks)} ({broken})",
            f"{_pct(mismatch, tasks)} ({mismatch})",
            f"{sent:,}",
            f"{tokens:,}",
            f"{tokens / base:.3f}×" if base else "-",
            f"{validators:,}" if validators else "-",
            f"{(tokens + validators) / base:.3f}×" if base else "-",
            rounds,
            f"{defective:,}",
        )

    for benchmark in domains:
        for r in (r for r in results if r.benchmark == benchmark):
            rounds = (
                "-" if r.review_rounds is None else f"{r.review_rounds}" + ("" if r.converged else " (not converged)")
            )
            row(
                benchmark,
                r.arm,
                r.tasks,
                len(r.broken),
                len(r.mismatch),
                r.characters_sent,
                r.tokens,
                baseline.get(benchmark),
                rounds,
                r.defective_fields,
                r.validator_tokens,
            )
        table.add_section()
    totals: dict[str, tuple] = {}
    if len(domains) > 1:
        base_total = sum(baseline.values()) or None
        for arm in arms:
            rs = [r for r in results if r.arm == arm]
            tasks, broken, mismatch = (
                sum(r.tasks for r in rs),
                sum(len(r.broken) for r in rs),
                sum(len(r.mismatch) for r in rs),
            )
            tokens = sum(r.tokens for r in rs)
            rounds = "-" if rs[0].review_rounds is None else "max " + str(max(r.review_rounds or 0 for r in rs))
            row(
                "all (pooled)",
                arm,
                tasks,
                broken,
                mismatch,
                sum(r.characters_sent for r in rs),
                tokens,
                base_total,
                rounds,
                sum(r.defective_fields for r in rs),
                sum(r.validator_tokens for r in rs),
            )
            totals[arm] = (tasks, broken, mismatch, tokens)
        table.add_section()
        for arm in arms:
            rs = [r for r in results if r.arm == arm]
            mean_b = sum(r.broken_pct for r in rs) / len(rs)
            mean_m = sum(r.mismatch_pct for r in rs) / len(rs)
            ratios = [r.tokens / baseline[r.benchmark] for r in rs if baseline.get(r.benchmark)]
            workflow = [r.workflow_tokens / baseline[r.benchmark] for r in rs if baseline.get(r.benchmark)]
            table.add_row(
                "mean of domains",
                arm,
                "",
                f"{mean_b:.1f}%",
                f"{mean_m:.1f}%",
                "",
                "",
                f"{sum(ratios) / len(ratios):.3f}×" if ratios else "-",
                "",
                f"{sum(workflow) / len(workflow):.3f}×" if workflow else "-",
                "",
                "",
            )
    console.print(table)

    console.print(reason_table(results))

    events = Table(title="errors the simulated model made (per arm; rates in translators/simulated_model.py)")
    for column in (
        "domain",
        "arm",
        "segments",
        "entity variants (a)",
        "ids translated (b)",
        "placeholders dropped (c)",
        "numbers reformatted (d)",
    ):
        events.add_column(column, justify="left" if column in ("domain", "arm") else "right")
    for r in results:
        e = r.model_events
        events.add_row(
            r.benchmark,
            r.arm,
            f"{r.segments:,}",
            f"{e.get('entity_variant', 0):,}",
            f"{e.get('identifier_translated', 0):,}",
            f"{e.get('placeholder_dropped', 0):,}",
            f"{e.get('number_reformatted', 0):,}",
        )
    console.print(events)

    if "full" in arms:
        full = [r for r in results if r.arm == "full"]
        tasks, broken, mismatch = (
            sum(r.tasks for r in full),
            sum(len(r.broken) for r in full),
            sum(len(r.mismatch) for r in full),
        )
        base = sum(r.tokens for r in results if r.arm == "independent")
        ratio = f"{sum(r.tokens for r in full) / base:.3f}×" if base else "n/a"
        goal = (
            ""
            if not base
            else (
                "; goal (0% / 0%, translation tokens below the independent arm's) met"
                if broken == mismatch == 0 and sum(r.tokens for r in full) < base
                else "; goal NOT met"
            )
        )
        workflow = f"{sum(r.workflow_tokens for r in full) / base:.3f}×" if base else "n/a"
        line = (
            f"full babelflow: {_pct(broken, tasks)} broken references, {_pct(mismatch, tasks)} behaviour mismatch "
            f"over {tasks:,} tasks "
            f"({len(full)} domain(s)) at {ratio} the independent arm's tokens for translation, {workflow} for the "
            "full workflow with "
            f"{VALIDATOR_AGENTS} model validator agents (simulated reviewers, "
            f"{sum(r.validator_tokens for r in full):,} tokens); "
            f"review rounds {', '.join(str(r.review_rounds) for r in full)} (paper: 2.5% / 0% at {PAPER['full'][2]}× "
            f"for the full workflow){goal}"
        )
        validators = Table(
            title="the full arm's model validator agents (token ledger, all validation passes; tokens = chars / 4)"
        )
        columns = ("domain", "agent", "requests", "input tokens", "output tokens")
        for column in columns:
            validators.add_column(column, justify="left" if column in ("domain", "agent") else "right")
        for r in full:
            for cost in r.validator_costs:
                if cost["stage"] != "total":
                    validators.add_row(
                        r.benchmark, cost["agent"], cost["requests"], cost["input tokens"], cost["output tokens"]
                    )
        console.print(validators)
    else:
        line = "no full arm run"
    console.print(line)
    return line


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--domains", default=",".join(DOMAINS))
    parser.add_argument("--arms", default=",".join(ARMS))
    parser.add_argument("--lang", default="en-XA")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-rounds", type=int, default=MAX_ROUNDS)
    parser.add_argument(
        "--keep", type=Path, default=None, help="build the variants in DIR and keep them (default: a temporary folder)"
    )
    parser.add_argument(
        "--json", type=Path, default=None, help="also write every result (with per-task reasons) as JSON"
    )
    parser.add_argument(
        "--error-free",
        action="store_true",
        help="control run: the simulated model makes no errors (what breaks is the arm's choice of fields)",
    )
    parser.add_argument(
        "--fresh-validators",
        action="store_true",
        help=(
            "validator agents re-read the whole variant on every validation pass (default: they remember what they "
            "read unchanged)"
        ),
    )
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    arms = tuple(a for a in args.arms.split(",") if a)
    unknown = set(arms) - set(ARMS)
    if unknown:
        parser.error(f"unknown arm(s) {sorted(unknown)}; use {', '.join(ARMS)}")
    started = time.perf_counter()
    from translators.simulated_model import ERROR_FREE, ErrorRates

    rates = ERROR_FREE if args.error_free else ErrorRates()
    results = run_ablation(
        [d for d in args.domains.split(",") if d],
        args.lang,
        args.seed,
        args.keep,
        arms,
        args.max_rounds,
        rates=rates,
        remember=not args.fresh_validators,
    )
    console = Console(width=200)
    render(results, console, seed=args.seed, language=args.lang, rates_tag=rates.tag())
    console.print(f"wall time {time.perf_counter() - started:.0f} s")
    if args.json:
        import orjson

        args.json.write_bytes(orjson.dumps([r.as_dict() for r in results], option=orjson.OPT_INDENT_2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
