"""Scale: all four τ² domains × 12 language tags through the Prefect flow, each validated clean.

Languages: the pseudo-locales en-XA and ar-XB plus data-only language packs for real BCP 47 tags
(ga, cy, mt, ms, fil, sw, zu: accented like en-XA; he, fa, ur: mirrored right-to-left like ar-XB).
The packs are written into a temporary project's language_packs/ (no code change: adding a
language is adding a file); `--translator auto` gives each the offline deterministic
pseudo-localizer in its pack's `offline_rendering` style (translators/pseudo_locale.py).

Per domain, in one fresh project with its own background Prefect server (`babelflow flow`
starts it; booted here first and timed apart; `babelflow server --stop` at the end):
  1. `babelflow flow DOMAIN --lang en-XA`                 (the first language: analysis, source replays, ...)
  2. `babelflow flow DOMAIN --lang L2 ... --lang LN`      (languages 2..N, --max-concurrency 2)
Every language must end `awaiting_signoff` with an empty failure set (the review queue is read
back and any finding printed). Marginal cost of one more language = (wall of step 2) / (N-1),
compared with the wall of step 1. Wall, CPU (user+sys of the flow process) and peak RSS of each
flow command come from os.wait4.

Then, unless --no-profile, one more language per domain runs through the stage functions
directly, one stage after another in a fresh process, in the same warm project (IR, source
replays on disk; bench/scale_workers.py): wall and CPU of translate, rebuild and each validation
layer, i.e. where the per-language time goes.

Usage: python -m bench.scale [--domains tau2-mock,tau2-airline,tau2-retail,tau2-telecom] [--tags 12] [--no-profile]
       python -m bench.scale --pool NAME [--domains tau2-mock] [--tags 6]   (bench/scale_pool.py: 1 and 2 workers)
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BABELFLOW = [sys.executable, "-m", "flows.cli.app"]
DOMAINS = ["tau2-mock", "tau2-airline", "tau2-retail", "tau2-telecom"]
# (tag, English name, style); the first two are the shipped pseudo-locales (packs in language_packs/)
LANGUAGES = [
    ("en-XA", None, None),
    ("ar-XB", None, None),
    ("ga", "Irish", "accented"),
    ("cy", "Welsh", "accented"),
    ("mt", "Maltese", "accented"),
    ("he", "Hebrew", "mirrored"),
    ("ms", "Malay", "accented"),
    ("fil", "Filipino", "accented"),
    ("fa", "Persian", "mirrored"),
    ("sw", "Swahili", "accented"),
    ("zu", "Zulu", "accented"),
    ("ur", "Urdu", "mirrored"),
    ("ha", "Hausa", "accented"),  # the 13th: the per-stage profile's extra language
]
# Only tags whose CLDR decimal separator is "." : the pseudo styles keep the source's English
# number forms ("$1,628"), which the fidelity probe rightly reads as 1.628 in a comma-decimal
# locale (fr, de, pt-BR, it, nl, pl, sv, tr ...): a real translation there must localise numbers.


def write_pack(folder: Path, tag: str, name: str, style: str) -> None:
    """A data-only pack whose offline rendering is a pseudo style; every text is in that style."""
    from translators.pseudo_locale import pseudo_translate_text

    def render(text: str) -> str:
        return pseudo_translate_text(text, tag, style)

    clause = render(f"Always reply to the user in {name}.")
    persona = render("You speak politely and briefly.")
    direction = "rtl" if style == "mirrored" else "ltr"
    script = {"he": "Hebr", "fa": "Arab", "ur": "Arab"}.get(tag, "Latn")
    text = (
        f'tag = "{tag}"\nversion = "1.0.0"\nname = "{name} (pseudo rendering for scale tests)"\nscript = "{script}"\n'
        f'direction = "{direction}"\nname_order = "given_family"\ncldr_locale = "{tag}"\noffline_rendering = '
        f'"{style}"\n'
        f"agent_language_clause = {json.dumps(clause, ensure_ascii=False)}\n"
        f'reviewer_notes = "Data-only pack for bench/scale.py: {name} tag rendered offline in the {style} pseudo '
        'style."\n\n'
        f"[user_simulator]\npersona = {json.dumps(persona, ensure_ascii=False)}\n"
    )
    (folder / f"{tag}.toml").write_text(text, encoding="utf-8")


def env_for(project: Path) -> dict[str, str]:
    env = {
        **os.environ,
        "BABELFLOW_PROJECT_ROOT": str(project),
        "DO_NOT_TRACK": "1",
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
        "COLUMNS": "200",
    }
    for key in ("PREFECT_API_URL", "PREFECT_HOME", "PREFECT_LOCAL_STORAGE_PATH"):
        env.pop(key, None)  # the temp project's own background server and state
    return env


def run(cmd: list[str], project: Path, log: Path) -> dict:
    """Run one command to its end: exit code, wall, CPU (user+sys) and peak RSS of that process tree's waited part."""
    started = time.perf_counter()
    with open(log, "ab") as out:
        out.write(f"\n$ {' '.join(cmd)}\n".encode())
        out.flush()
        process = subprocess.Popen(cmd, cwd=ROOT, env=env_for(project), stdout=out, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    return {
        "code": process.returncode,
        "wall": time.perf_counter() - started,
        "cpu": usage.ru_utime + usage.ru_stime,
        "rss_mb": usage.ru_maxrss / 1024,
    }


def findings_of(project: Path, benchmark: str, language: str) -> list[str] | None:
    queue = project / ".babelflow" / "review" / benchmark / language / "queue.json"
    if not queue.exists():
        return None
    data = json.loads(queue.read_text(encoding="utf-8"))
    return [
        f"{f['id']} {f['layer']}/{f['kind']} {f['artifact']} {f.get('location', '')}: {f['message'][:160]}"
        for f in data.get("findings", [])
    ]


def server_rss_mb(project: Path) -> float:
    """Peak RSS (VmHWM) summed over the background server's process group."""
    record = project / ".babelflow" / "prefect" / "server.json"
    if not record.exists():
        return 0.0
    pgid = json.loads(record.read_text())["pid"]
    total = 0
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            if os.getpgid(int(proc.name)) != pgid:
                continue
            for line in (proc / "status").read_text().splitlines():
                if line.startswith("VmHWM:"):
                    total += int(line.split()[1])
        except (OSError, ValueError):
            continue
    return total / 1024


def one_domain(benchmark: str, tags: list[str], tmp: Path, profile: bool, extra: str) -> dict:
    project = tmp / benchmark
    (project / "language_packs").mkdir(parents=True)
    for tag, name, style in LANGUAGES:
        if style:
            write_pack(project / "language_packs", tag, name, style)
    log = tmp / f"{benchmark}.log"
    result: dict = {"benchmark": benchmark, "tags": tags}
    boot = run([sys.executable, "-m", "bench.scale_workers", "boot"], project, log)
    result["server_boot"] = boot["wall"]
    try:
        first = run([*BABELFLOW, "flow", benchmark, "--lang", tags[0]], project, log)
        print(
            f"  {benchmark} {tags[0]}: exit {first['code']}, {first['wall']:.1f} s wall, {first['cpu']:.1f} s CPU, "
            f"{first['rss_mb']:.0f} MB",
            flush=True,
        )
        rest_cmd = [*BABELFLOW, "flow", benchmark, "--max-concurrency", "2"] + [
            a for tag in tags[1:] for a in ("--lang", tag)
        ]
        rest = run(rest_cmd, project, log) if len(tags) > 1 else {"code": 0, "wall": 0.0, "cpu": 0.0, "rss_mb": 0.0}
        print(
            f"  {benchmark} {', '.join(tags[1:])}: exit {rest['code']}, {rest['wall']:.1f} s wall, {rest['cpu']:.1f} "
            f"s CPU, {rest['rss_mb']:.0f} MB",
            flush=True,
        )
        result.update(first=first, rest=rest)
        result["findings"] = {tag: findings_of(project, benchmark, tag) for tag in tags}
        if profile:
            out = subprocess.run(
                [sys.executable, "-m", "bench.scale_workers", "profile", benchmark, extra],
                cwd=ROOT,
                env=env_for(project),
                capture_output=True,
                text=True,
            )
            line = next((row for row in out.stdout.splitlines() if row.startswith("PROFILE ")), None)
            result["profile"] = json.loads(line[8:]) if line else {"error": (out.stderr or out.stdout)[-1500:]}
        result["server_rss_mb"] = server_rss_mb(project)
    finally:
        run([*BABELFLOW, "server", "--stop"], project, log)
    if first["code"] != 0 or rest["code"] != 0:
        print(log.read_text(errors="replace")[-3000:])
    return result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--domains", default=",".join(DOMAINS))
    parser.add_argument("--tags", type=int, default=12, help="how many language tags (2..12; en-XA is the first)")
    parser.add_argument("--no-profile", action="store_true", help="skip the per-stage profile of one more language")
    parser.add_argument("--keep", action="store_true", help="keep the temporary projects (path printed)")
    parser.add_argument(
        "--pool",
        help="on a Prefect work pool with shared state, with 1 then 2 workers (bench/scale_pool.py; the first "
        "domain of --domains, --tags languages)",
    )
    args = parser.parse_args()
    if args.pool:
        from bench.scale_pool import run as run_on_pool  # noqa: PLC0415 - the pool's services only when asked

        run_on_pool(args.pool, args.domains.split(",")[0].strip(), max(2, min(args.tags, len(LANGUAGES) - 1)), None)
        return
    domains = [d.strip() for d in args.domains.split(",") if d.strip()]
    tags = [tag for tag, _, _ in LANGUAGES[: max(1, min(args.tags, len(LANGUAGES) - 1))]]
    extra = LANGUAGES[-1][0]
    print(
        f"{len(domains)} domains × {len(tags)} tags: {', '.join(tags)} (profile language: {extra}); {os.cpu_count()} "
        "CPUs",
        flush=True,
    )
    tmp = Path(tempfile.mkdtemp(prefix="babelflow-scale-"))
    started_wall, started_cpu = time.perf_counter(), os.times()
    results = []
    try:
        for benchmark in domains:
            results.append(one_domain(benchmark, tags, tmp, not args.no_profile, extra))
    finally:
        total_wall = time.perf_counter() - started_wall
        ended_cpu = os.times()
        total_cpu = (ended_cpu.children_user - started_cpu.children_user) + (
            ended_cpu.children_system - started_cpu.children_system
        )
        report(results, tags, total_wall, total_cpu)
        if args.keep:
            print(f"projects kept in {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)


def report(results: list[dict], tags: list[str], total_wall: float, total_cpu: float) -> None:
    n = len(tags)
    print()
    print(
        f"{'domain':<14}{'server boot s':>14}{'1st lang wall/cpu s':>22}{f'langs 2..{n} wall/cpu s':>26}"
        f"{'marginal s':>12}{'marginal/1st':>14}{'peak RSS MB':>13}{'server MB':>11}"
    )
    failed = []
    sum_first = sum_rest = 0.0
    for r in results:
        if "first" not in r:
            continue
        first, rest = r["first"], r["rest"]
        marginal = rest["wall"] / (n - 1) if n > 1 else 0.0
        sum_first += first["wall"]
        sum_rest += rest["wall"]
        print(
            f"{r['benchmark']:<14}{r['server_boot']:>14.1f}{first['wall']:>13.1f} / "
            f"{first['cpu']:<6.1f}{rest['wall']:>17.1f} / {rest['cpu']:<6.1f}"
            f"{marginal:>12.1f}{marginal / first['wall']:>13.0%} "
            f"{max(first['rss_mb'], rest['rss_mb']):>12.0f}{r.get('server_rss_mb', 0):>11.0f}"
        )
        for tag, found in r["findings"].items():
            if found is None or found:
                failed.append((r["benchmark"], tag, found))
    if n > 1 and sum_first:
        overall = sum_rest / (n - 1)
        print(
            f"{'all domains':<14}{'':>14}{sum_first:>13.1f}{'':>9}{sum_rest:>17.1f}{'':>9}{overall:>12.1f}"
            f"{overall / sum_first:>13.0%}"
        )
    peak = max((max(r["first"]["rss_mb"], r["rest"]["rss_mb"]) for r in results if "first" in r), default=0)
    print(
        f"\ntotal wall {total_wall:.1f} s ({total_wall / 60:.1f} min), CPU of the waited child processes (flows, "
        f"profile; not the background servers) {total_cpu:.1f} s; peak RSS of a flow process {peak:.0f} MB"
    )
    print("target: ≤ 30 min for 4 domains × 12 tags; marginal cost of one more language ≤ 15% of the first")
    for r in results:
        prof = r.get("profile")
        if not prof:
            continue
        if "error" in prof:
            print(f"\nprofile {r['benchmark']}: failed\n{prof['error']}")
            continue
        print(
            f"\none more language ({LANGUAGES[-1][0]}) on {r['benchmark']}, stages called directly one after another "
            f"(warm project): {prof['findings']} findings, {prof['replayed']} tasks compared, "
            f"{prof.get('replays_run', '?')} variant replays run (the rest reused)"
        )
        total = sum(row["wall"] for row in prof["rows"])
        for row in prof["rows"]:
            print(f"  {row['stage']:<34}{row['wall']:>8.2f} s wall{row['cpu']:>8.2f} s CPU{row['wall'] / total:>7.0%}")
        print(f"  {'total':<34}{total:>8.2f} s wall")
    for r in results:
        for tag in tags:
            found = r.get("findings", {}).get(tag)
            state = "no review queue (flow did not finish)" if found is None else f"{len(found)} findings"
            if found is None or found:
                print(f"FINDINGS {r['benchmark']} {tag}: {state}")
                for line in (found or [])[:20]:
                    print(f"    {line}")
    clean = sum(1 for r in results for tag in tags if r.get("findings", {}).get(tag) == [])
    print(f"\n{clean} of {len(results) * n} variants validated to an empty failure set")
    assert not failed and len(results) * n == clean, f"{len(failed)} variants with findings or unfinished"


if __name__ == "__main__":
    main()
