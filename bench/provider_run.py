"""Keyed runs against a loopback provider that behaves like a real one (issue 42: translation, validators).

The provider is the strict three-protocol fake of the provider tests (tests/translators/providers/fakes.py)
with a `Pace`: latency drawn from a log-normal (median 1.5 s, p95 6 s for a 400-token reply, proportional
to a reply's tokens), a requests- and tokens-per-minute limit answered with 429 and Retry-After (DashScope's
without), and server errors and timeouts at given rates. Everything stays on 127.0.0.1, through the
official SDKs, as a user's run goes.

For each configuration it runs the user's command in a fresh project whose IR is analysed beforehand:

    babelflow adapt tau2-DOMAIN --lang zh-Hans --translator dashscope:qwen3-32b?… [--validators SPEC,SPEC,SPEC]

and prints, per stage (translation, validators, back-translation) and for the run: the span of its model calls, calls
(answered, 429, server errors, timeouts), tokens, and the lower bound of that span. A stage's calls are
independent: its bound is the larger of their summed latency over the allowed concurrency (at least the
longest) and what the limits allow (`lower_bound`); the run's adds the translation's to that of the
validation phase (the validators and the back-translation read at once, after it), or takes the limits
over every call, whichever is larger. The ratio span / bound is the
measure; the rest of the wall time is babelflow's own work (rebuild, probes). Then: the variant's digest
and the segments translated twice (faults must change neither), the tokens against the naive single pass
(the ablation's independent arm, every field on its own, through the same provider and prompt), and with
`--rounds N` what each of N-1 review rounds (one `babelflow correct` each) re-sends to the translator and to each
validator;
with `--estimate`, `adapt … --estimate` before each run (it must send nothing) and its error per stage and agent.
With `--langs zh-Hans,ko,th,…`: `babelflow flow` on them at once, one provider limit for all, and when each
language's last call was answered (no language may starve).

    python -m bench.provider_run [--domain retail] [--validators 3] [--rounds 2] [--rpm 0] [--tpm 0]
                                 [--errors 0] [--timeouts 0] [--concurrency 4] [--median 1.5] [--p95 6]
                                 [--client-timeout 20] [--seed 0] [--estimate] [--timeline]
                                 [--langs zh-Hans,ja,ko,th,ru]
"""

from __future__ import annotations

import argparse
import hashlib
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

from rich.console import Console
from rich.table import Table

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "translators" / "providers"))  # the strict fakes and their wire rules

from fakes import KEYS, MODELS, FakeLLMServer, Pace  # noqa: E402

LANGUAGE = "zh-Hans"


def _env(project: Path, server: FakeLLMServer | None) -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.endswith(("_API_KEY", "_BASE_URL")) and "PROXY" not in key.upper()
    }
    env |= {"BABELFLOW_PROJECT_ROOT": str(project), "PYTHONPATH": str(ROOT), "DO_NOT_TRACK": "1"}
    env |= {"PREFECT_SERVER_ANALYTICS_ENABLED": "false", "NO_PROXY": "127.0.0.1,localhost", "COLUMNS": "250"}
    if server is not None:
        env |= {"DASHSCOPE_API_KEY": KEYS["dashscope"], "DASHSCOPE_HTTP_BASE_URL": server.base_urls()["dashscope"]}
    return env


def _cli(project: Path, server: FakeLLMServer | None, *args: str) -> tuple[subprocess.CompletedProcess, float]:
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "flows.cli.app", *args],
        cwd=project,
        env=_env(project, server),
        capture_output=True,
        text=True,
        check=False,
    )
    return done, time.perf_counter() - started


def lower_bound(latencies: list[float], tokens: list[int], concurrency: int, rpm: int, tpm: int) -> float:
    """The least span in which these independent calls could be answered: their summed latency over the
    allowed concurrency (at least the longest); with a requests-per-minute limit, the calls past the last
    full minute start no earlier than its end (a fixed-window relaxation of the provider's sliding one) and
    take at least the quickest of them need; with a tokens-per-minute limit, the tokens past the first
    minute's allowance at the limit's rate."""
    if not latencies:
        return 0.0
    work = max(sum(latencies) / concurrency, max(latencies))
    by_requests = 0.0
    if rpm and len(latencies) > rpm:
        full = (len(latencies) - 1) // rpm  # minutes every call before the last ones fills
        quickest = sorted(latencies)[: len(latencies) - full * rpm]
        by_requests = full * 60.0 + max(sum(quickest) / concurrency, quickest[-1])
    by_tokens = (sum(tokens) - tpm) / tpm * 60.0 if tpm and sum(tokens) > tpm else 0.0
    return max(work, by_requests, by_tokens)


# the fake's request kind -> the stage it serves
STAGES = {"translate": "translation", "review": "validators", "backtranslate": "back-translation"}


def sent_to_validators(seen: list) -> dict[str, tuple[int, int]]:
    """validator id -> (task fields, other units) its requests carried."""
    sent: dict[str, tuple[int, int]] = {}
    for s in seen:
        if s.task == "review" and _answered(s):
            body = s.payload
            fields, units = sent.get(body["validator_id"], (0, 0))
            sent[body["validator_id"]] = (
                fields + sum(len(t["fields"]) for t in body.get("tasks", [])),
                units + len(body.get("units", [])),
            )
    return sent


def review_round(
    project: Path,
    server: FakeLLMServer,
    benchmark: str,
    keyed: list[str],
    first: list,
    number: int,
    estimate: bool = False,
) -> None:
    """Round `number`: a reviewer corrects another field of task 0 that round 1's validators read (`babelflow
    correct`: one defect each round), then the same keyed adapt runs again: what it sends to the translator and
    to each validator is counted."""
    listed, _ = _cli(project, server, "units", benchmark, "--lang", LANGUAGE, "--task", "0", "--kind", "free")
    text = f"请一次处理好所有事情（第{number}轮）。"
    done = None
    # another unit each round (one new defect a round): the first, after those corrected, that the pack's release
    # checks take with this text (a unit holding an order id or a glossary term needs them, and is skipped)
    for unit in list(dict.fromkeys(re.findall(r"│ ([0-9a-f]{12}) ", listed.stdout)))[number - 2 :]:
        corrected = [*("correct", benchmark, "--lang", LANGUAGE, "--id", unit), "--text", text]
        done, _ = _cli(project, server, *corrected, "--force")  # forced: whatever the unit's tokens, a correction
        if done.returncode == 0:
            break
    if done is None or done.returncode != 0:
        tail = f"{done.stdout[-2000:]}{done.stderr[-2000:]}" if done else listed.stdout[-2000:]
        raise SystemExit(f"no unit of task 0 took a correction in round {number}:\n{tail}")

    def keyed_run():
        return len(server.state.seen), *_cli(project, server, "adapt", benchmark, "--lang", LANGUAGE, *keyed)

    if estimate:
        before, done, wall = estimate_against_actual(project, server, benchmark, keyed, keyed_run)
    else:
        before, done, wall = keyed_run()
    again = server.state.seen[before:]
    if done.returncode not in (0, 1):
        raise SystemExit(f"round {number} adapt exited {done.returncode}:\n{done.stdout[-3000:]}{done.stderr[-3000:]}")
    print(f"round {number}, after correcting unit {unit} of task 0 (wall {wall:.1f} s):")
    print(f"  translator: {sum(len(s.segment_ids) for s in again if s.task == 'translate')} units sent")
    earlier = sent_to_validators(first)
    for agent, (fields, units) in sorted(sent_to_validators(again).items()):
        print(f"  {agent}: {fields} task fields, {units} other units sent (round 1: {earlier[agent]})")


def estimate_against_actual(project: Path, server: FakeLLMServer, benchmark: str, keyed: list[str], run_again):
    """`adapt … --estimate` first (it must send nothing), then the run; each stage's and agent's estimated
    calls and tokens beside what the provider billed, and the error."""
    from babelflow.llm.costs import CostReport, against_estimate, rows_table

    before = len(server.state.seen)
    done, wall = _cli(project, server, "adapt", benchmark, "--lang", LANGUAGE, *keyed, "--estimate")
    if done.returncode != 0 or len(server.state.seen) != before:
        raise SystemExit(f"--estimate exited {done.returncode}, {len(server.state.seen) - before} requests sent")
    costs = project / ".babelflow" / "costs" / benchmark / LANGUAGE
    estimate = CostReport.model_validate_json((costs / "estimate.json").read_bytes())
    result = run_again()
    actual = CostReport.model_validate_json((costs / "adapt.json").read_bytes())
    title = f"estimate ({wall:.1f} s, 0 requests sent) against the run"
    table = rows_table(against_estimate(estimate, actual), title)
    Console(width=200).print(table)
    return result


def _answered(seen, timeout: float = math.inf) -> bool:
    """Answered, and the client read the answer: a timed-out request's late 200 reached nobody, nor did a
    reply slower than the client's own timeout."""
    return seen.status == 200 and bool(seen.usage) and seen.fault is None and seen.answered - seen.at < timeout


def variant_digest(project: Path, benchmark: str) -> str:
    """The variant's data files (not its manifest, which records the run): equal digests, equal variants."""
    folder = project / "adapted" / benchmark / LANGUAGE
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and p.name != "babelflow_manifest.json"):
        digest.update(str(path.relative_to(folder)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def translated_twice(seen: list, timeout: float) -> int:
    """Segments answered (200) more than once: a retry must never pay again for what had succeeded."""
    answered = Counter(i for s in seen if s.task == "translate" and _answered(s, timeout) for i in s.segment_ids)
    return sum(n - 1 for n in answered.values() if n > 1)


def naive_tokens(project: Path, server: FakeLLMServer, benchmark: str) -> int:
    """Tokens of the naive single pass the ablation's `independent` arm makes (every translatable field once,
    on its own, 40 to a request: bench/ablation_arms.py), through the same provider and model, unpaced."""
    from babelflow.ir import IRDocument
    from babelflow.llm.config import parse_spec
    from bench.ablation_arms import naive_jobs, run_jobs
    from translators.providers.translator import ModelTranslator

    ir = IRDocument.model_validate_json((project / ".babelflow" / "ir" / f"{benchmark}.json").read_bytes())
    domain = SimpleNamespace(ir=ir, roles={a.path: a.role for a in ir.artifacts}, id=benchmark)
    pace, server.state.pace = server.state.pace, None
    before = server.state.usage(task="translate")
    saved = {k: os.environ.get(k) for k in ("DASHSCOPE_API_KEY", "DASHSCOPE_HTTP_BASE_URL")}
    os.environ |= {k: v for k, v in _env(project, server).items() if k in saved}
    try:
        run_jobs(
            naive_jobs(domain, "independent"),
            ModelTranslator(parse_spec(f"dashscope:{MODELS['dashscope']}"), LANGUAGE),
            LANGUAGE,
        )
    finally:
        server.state.pace = pace
        for key, value in saved.items():
            os.environ.pop(key, None) if value is None else os.environ.__setitem__(key, value)
    after = server.state.usage(task="translate")
    return sum(after) - sum(before)


def stage_row(seen: list, args: argparse.Namespace) -> dict[str, float | int | str]:
    """One stage's calls: span from its first call to its last answer, and its lower bound."""
    answered = [s for s in seen if _answered(s, args.client_timeout)]
    latencies = [s.answered - s.at for s in answered]
    tokens = [sum(s.usage or (0, 0)) for s in answered]
    span = max((s.answered for s in answered), default=0.0) - min((s.at for s in seen), default=0.0)
    bound = lower_bound(latencies, tokens, args.concurrency, args.rpm, args.tpm)
    return {
        "span_s": round(span, 1),
        "bound_s": round(bound, 1),
        "ratio": round(span / bound, 2) if bound else math.nan,
        "answered": len(answered),
        "limited": sum(s.fault == "429" for s in seen),
        "errors": sum(s.fault in ("500", "overloaded") for s in seen),
        "timeouts": sum(s.fault == "timeout" for s in seen),
        "tokens": sum(tokens),
        "median_latency_s": round(statistics.median(latencies), 2) if latencies else 0.0,
    }


def analysed_project(benchmark: str, prefix: str) -> Path:
    """A fresh project whose IR is analysed beforehand (one unkeyed adapt): the runs measure model calls."""
    project = Path(tempfile.mkdtemp(prefix=prefix))
    done, _ = _cli(project, None, "adapt", benchmark, "--lang", "en-XA")
    if done.returncode not in (0, 1):
        raise SystemExit(f"warm-up adapt exited {done.returncode}:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return project


def paced(args: argparse.Namespace) -> Pace:
    return Pace(
        median_s=args.median,
        p95_s=args.p95,
        rpm=args.rpm,
        tpm=args.tpm,
        error_rate=args.errors,
        timeout_rate=args.timeouts,
        timeout_s=args.client_timeout + 5,
        seed=args.seed,
    )


def run(args: argparse.Namespace) -> list[dict[str, float | int | str]]:
    """One keyed adapt (translation, and with --validators the model validators on its variant): a row per
    stage and one for the run. The run's bound adds the translation's to the validation phase's (validation
    needs the translation), or is that of every call at once, whichever is larger."""
    benchmark = f"tau2-{args.domain}"
    project = analysed_project(benchmark, "babelflow-provider-run-")
    pace = paced(args)
    options = f"timeout={args.client_timeout}&concurrency={args.concurrency}"
    with FakeLLMServer(KEYS) as server:
        server.state.pace = pace
        spec = f"dashscope:{MODELS['dashscope']}?{options}"
        keyed = ["--translator", spec]
        checkers = [spec] * args.validators + ([f"backtranslation:{spec}"] if args.backtranslation else [])
        if checkers:
            keyed += ["--validators", ",".join(checkers)]

        def keyed_run():
            return _cli(project, server, "adapt", benchmark, "--lang", LANGUAGE, *keyed)

        if args.estimate:
            done, wall = estimate_against_actual(project, server, benchmark, keyed, keyed_run)
        else:
            done, wall = keyed_run()
        every = list(server.state.seen)
        if done.returncode not in (0, 1):
            raise SystemExit(f"keyed adapt exited {done.returncode}:\n{done.stdout[-3000:]}{done.stderr[-3000:]}")
        if args.rounds > 1:
            for number in range(2, args.rounds + 1):
                review_round(project, server, benchmark, keyed, every, number, args.estimate)
        naive = naive_tokens(project, server, benchmark)
    if args.timeline:  # when each call started and how long it took: where the span goes
        first = min(s.at for s in every)
        for s in sorted(every, key=lambda s: s.at):
            took = (s.answered - s.at) if s.answered else 0.0
            size = f"{len(s.segment_ids):3d} segments" if s.segment_ids else s.task
            print(f"{s.at - first:7.2f} s  +{took:5.2f} s  {size}  {s.fault or s.status}")
    rows: list[dict[str, float | int | str]] = []
    for task, stage in STAGES.items():
        seen = [s for s in every if s.task == task]
        if seen:
            rows.append({"stage": stage, **stage_row(seen, args)})
    whole = stage_row(every, args)  # its own bound: the limits and the slots over every call at once
    # the validators and the back-translation read at once, after the translation: one phase, one bound
    phases = [[s for s in every if s.task in kinds] for kinds in (("translate",), ("review", "backtranslate"))]
    chained = sum(float(stage_row(phase, args)["bound_s"]) for phase in phases if phase)
    bound = max(chained, float(whole["bound_s"]))
    whole |= {"bound_s": round(bound, 1), "ratio": round(float(whole["span_s"]) / bound, 2) if bound else math.nan}
    rows.append({"stage": f"run (wall {wall:.1f} s)", **whole})
    twice = translated_twice(every, args.client_timeout)
    print(f"variant {variant_digest(project, benchmark)}; segments translated twice: {twice}")
    shares = ", ".join(f"{r['stage']} {int(r['tokens']) / naive:.2f}×" for r in rows[:-1])
    print(f"tokens against the naive single pass ({naive:,}): {int(whole['tokens']) / naive:.2f}× ({shares})")
    return rows


def language_of(seen) -> str:
    payload = seen.payload or {}
    return str(payload.get("target_language") or payload.get("language") or "?")


def run_languages(args: argparse.Namespace, languages: list[str]) -> list[dict[str, float | int | str]]:
    """`babelflow flow` on several languages at once, every stage keyed on one provider and one limit: a row
    per language (its calls, tokens, and when its last call was answered) and one for the batch, whose bound
    is that of every call at once (the slots and the limits), or the slowest language's own chain
    (translation, then validation), whichever is larger."""
    benchmark = f"tau2-{args.domain}"
    project = analysed_project(benchmark, "babelflow-provider-langs-")
    pace = paced(args)
    spec = f"dashscope:{MODELS['dashscope']}?timeout={args.client_timeout}&concurrency={args.concurrency}"
    asked = [arg for language in languages for arg in ("--lang", language)]
    keyed = ["--translator", spec, "--validators", ",".join([spec] * args.validators)] if args.validators else []
    keyed = keyed or ["--translator", spec]
    try:
        with FakeLLMServer(KEYS) as server:
            server.state.pace = pace
            flow = [*asked, "--max-concurrency", str(len(languages)), *keyed]
            done, wall = _cli(project, server, "flow", benchmark, *flow)
            every = list(server.state.seen)
    finally:
        _cli(project, None, "server", "--stop")
    if done.returncode not in (0, 1):
        raise SystemExit(f"flow exited {done.returncode}:\n{done.stdout[-3000:]}{done.stderr[-3000:]}")
    first = min(s.at for s in every)
    rows: list[dict[str, float | int | str]] = []
    chains = []
    for language in languages:
        mine = [s for s in every if language_of(s) == language]
        phases = [[s for s in mine if s.task in kinds] for kinds in (("translate",), ("review", "backtranslate"))]
        chains.append(sum(float(stage_row(phase, args)["bound_s"]) for phase in phases if phase))
        row = stage_row(mine, args)
        finished = max((s.answered for s in mine if _answered(s, args.client_timeout)), default=first) - first
        rows.append({"stage": language, **row, "finished_at_s": round(finished, 1)})
    whole = stage_row(every, args)
    bound = max(float(whole["bound_s"]), max(chains, default=0.0))
    whole |= {"bound_s": round(bound, 1), "ratio": round(float(whole["span_s"]) / bound, 2) if bound else math.nan}
    rows.append({"stage": f"batch (wall {wall:.1f} s, {wall / bound:.2f}× bound)", **whole, "finished_at_s": ""})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--domain", default="retail")
    parser.add_argument("--langs", default="", help="several languages at once through `babelflow flow`: zh-Hans,ko,…")
    parser.add_argument("--rpm", type=int, default=0)
    parser.add_argument("--tpm", type=int, default=0)
    parser.add_argument("--errors", type=float, default=0.0)
    parser.add_argument("--timeouts", type=float, default=0.0)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--median", type=float, default=1.5)
    parser.add_argument("--p95", type=float, default=6.0)
    parser.add_argument("--client-timeout", type=float, default=20.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--validators", type=int, default=0, help="keyed validator agents (on the same provider)")
    parser.add_argument("--backtranslation", action="store_true", help="and a model back-translation agent")
    parser.add_argument(
        "--rounds",
        type=int,
        default=1,
        help="N: N-1 review rounds, each correcting one unit, then running again (what is re-sent)",
    )
    parser.add_argument("--estimate", action="store_true", help="`adapt --estimate` before each run, then the error")
    parser.add_argument("--timeline", action="store_true", help="print each call's start, duration and size")
    args = parser.parse_args()
    languages = [language for language in args.langs.split(",") if language]
    rows = run_languages(args, languages) if languages else run(args)
    limits = f"rpm {args.rpm or '∞'}, tpm {args.tpm or '∞'}; {args.errors:.0%} 5xx, {args.timeouts:.0%} timeouts"
    title = ", ".join(languages) if languages else LANGUAGE
    table = Table(title=f"tau2-{args.domain} → {title}, keyed, against a paced loopback provider ({limits})")
    for key in rows[0]:
        table.add_column(key)
    for row in rows:
        table.add_row(*(str(v) for v in row.values()))
    Console(width=200).print(table)


if __name__ == "__main__":
    main()
