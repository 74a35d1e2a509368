"""Issue 29's acceptance on this machine, loopback only: PostgreSQL, a Prefect server on it, moto's S3
server, two process workers each in its own empty folder with its own `git clone` of this repository.

    python -m bench.pools_acceptance [--baseline DIR] [--keep DIR]

1. `babelflow flow tau2-mock --lang en-XA --lang ar-XB --lang es --pool …` from a third clone;
   runs landed on both workers (their logs name the flow runs they submitted);
2. every variant file and report in object storage is byte-identical to a local run's (a plain
   `babelflow flow` in a fourth clone with no shared state, or --baseline DIR from an earlier one);
3. a decision given through Prefect's API reaches the other worker: the sign-off answered on a run
   paused on worker X is in force on worker Y, where the next run lands once X is stopped;
4. one worker killed by PID (and its flow run's process) mid-run, a third started: the submitter
   resubmits the run whose lock died with it, and the run ends with everything the first finished kept;
5. an unchanged rerun executes no stage (every stage of every language Cached).
Prints one JSON line per check and a summary; exits 1 if a check fails. Commit first: clones see
only committed work."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
BENCHMARK = "tau2-mock"
LANGS = ["en-XA", "ar-XB", "es"]
POOL = "babelflow-acceptance"
QUIET = {"DO_NOT_TRACK": "1", "PREFECT_SERVER_ANALYTICS_ENABLED": "false", "LITELLM_LOCAL_MODEL_COST_MAP": "True"}


def _clean_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith(("PREFECT_", "BABELFLOW_", "AWS_"))} | QUIET


def clone(folder: Path) -> Path:
    folder.mkdir(parents=True)
    subprocess.run(["git", "clone", "-q", str(ROOT), str(folder / "babelflow")], check=True)
    return folder / "babelflow"


def checkout_env(checkout: Path, shared: dict[str, str]) -> dict[str, str]:
    return (
        _clean_env()
        | shared
        | {
            "PYTHONPATH": str(checkout),  # this clone's code, not the checkout the venv was installed from
            "BABELFLOW_ROOT": str(checkout),
            "BABELFLOW_PROJECT_ROOT": str(checkout),
            "PREFECT_HOME": str(checkout.parent / "prefect-home"),
            "COLUMNS": "200",
        }
    )


class Worker:
    def __init__(self, name: str, folder: Path, shared: dict[str, str], pool: str = POOL, prepare=None):
        self.name, self.checkout = name, clone(folder)
        if prepare is not None:  # e.g. language packs written into the clone before the worker starts
            prepare(self.checkout)
        self.log = folder / "worker.log"
        self.process = subprocess.Popen(
            [
                PY,
                "-m",
                "prefect",
                "worker",
                "start",
                "--pool",
                pool,
                "--type",
                "process",
                "--name",
                name,
                "--limit",
                "1",
            ],
            cwd=self.checkout,
            env=checkout_env(self.checkout, shared),
            stdout=open(self.log, "ab"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def submitted(self) -> set[str]:
        text = self.log.read_text(errors="replace") if self.log.exists() else ""
        return {
            line.split("submitting flow run '")[1][:36] for line in text.splitlines() if "submitting flow run '" in line
        }

    def kill(self) -> list[int]:
        """SIGKILL the worker and every process it started (its flow runs), by PID."""
        pids = [self.process.pid, *_descendants(self.process.pid)]
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.process.wait()
        return pids

    def stop(self) -> float:
        """End the worker; returns the CPU seconds (user + system) it and the flow runs it waited for used."""
        if self.process.returncode is not None:
            return 0.0
        try:
            os.killpg(self.process.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        deadline = time.monotonic() + 30
        while True:
            pid, status, usage = os.wait4(self.process.pid, os.WNOHANG)
            if pid:
                self.process.returncode = os.waitstatus_to_exitcode(status)
                return usage.ru_utime + usage.ru_stime
            if time.monotonic() > deadline:
                os.killpg(self.process.pid, signal.SIGKILL)
                deadline = time.monotonic() + 30
            time.sleep(0.2)


def _descendants(pid: int) -> list[int]:
    children: list[int] = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        if ppid == pid:
            children += [int(entry.name), *_descendants(int(entry.name))]
    return children


def flow_command(checkout: Path, env: dict[str, str], *extra: str) -> tuple[subprocess.CompletedProcess, float]:
    args = [PY, "-m", "flows.cli.app", "flow", BENCHMARK, *[a for lang in LANGS for a in ("--lang", lang)], *extra]
    started = time.perf_counter()
    done = subprocess.run(args, cwd=checkout, env=env, capture_output=True, text=True, timeout=1800)
    return done, time.perf_counter() - started


def local_baseline(folder: Path) -> tuple[Path, float]:
    checkout = clone(folder)
    env = checkout_env(checkout, {})
    done, wall = flow_command(checkout, env)
    subprocess.run([PY, "-m", "flows.cli.app", "server", "--stop"], cwd=checkout, env=env, capture_output=True)
    if done.returncode not in (0, 1):
        raise SystemExit(f"local baseline failed:\n{done.stdout}\n{done.stderr}")
    return checkout, wall


def variant_files(checkout: Path, language: str) -> dict[str, bytes]:
    adapted = checkout / "adapted" / BENCHMARK
    files = {p: p for p in (adapted / language).rglob("*") if p.is_file()}
    files.update({p: p for p in adapted.glob(f"{language}.*") if p.is_file()})
    return {f"adapted/{p.relative_to(checkout / 'adapted').as_posix()}": p.read_bytes() for p in files}


def report(name: str, ok: bool, **details) -> bool:
    print(json.dumps({"check": name, "ok": ok, **details}, ensure_ascii=False), flush=True)
    return ok


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--baseline", type=Path, help="a clone where the local run was already made")
    parser.add_argument("--keep", type=Path, help="work folder kept afterwards (default: a temp dir, removed)")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from scripts.shared_services import Services  # noqa: PLC0415

    work = args.keep or Path(tempfile.mkdtemp(prefix="babelflow-pools-"))
    work.mkdir(parents=True, exist_ok=True)
    os.chmod(work, 0o755)
    services = Services(work / "services")
    workers: list[Worker] = []
    results: list[bool] = []
    stores = None
    try:
        (work / "services").mkdir(exist_ok=True)
        services.start()
        shared = services.environment()
        report("services", True, boot_seconds={k: round(v, 1) for k, v in services.boot_seconds.items()})
        if args.baseline:
            baseline, local_wall = args.baseline, None
        else:
            baseline, local_wall = local_baseline(work / "local")
        report("local run", True, wall_s=local_wall and round(local_wall, 1))
        workers = [Worker(f"worker-{i}", work / f"worker-{i}", shared) for i in (1, 2)]
        submitter = clone(work / "submitter")
        sub_env = checkout_env(submitter, shared)
        os.environ.update(shared)
        from babelflow.shared_state.config import shared_config  # noqa: PLC0415
        from babelflow.shared_state.stores import open_stores  # noqa: PLC0415

        stores = open_stores(shared_config())  # type: ignore[arg-type]

        # 1. fan-out on the pool
        done, wall = flow_command(submitter, sub_env, "--pool", POOL)
        ran = {w.name: sorted(w.submitted()) for w in workers}
        results.append(
            report(
                "runs on both workers",
                done.returncode in (0, 1) and all(ran.values()) and sum(len(r) for r in ran.values()) == len(LANGS),
                wall_s=round(wall, 1),
                exit=done.returncode,
                runs_per_worker={k: len(v) for k, v in ran.items()},
                tail=done.stdout.splitlines()[-4:] if done.returncode not in (0, 1) else None,
                stderr=done.stderr[-2000:] if done.returncode not in (0, 1) else None,
            )
        )
        # 2. byte-identical to the local run
        differ: list[str] = []
        compared = 0
        for language in LANGS:
            for key, data in variant_files(baseline, language).items():
                compared += 1
                if stores.objects.get(f"{key}") != data:
                    differ.append(key)
        results.append(
            report("object storage = local run", compared > 0 and not differ, files=compared, differ=differ[:10])
        )
        # 5. unchanged rerun: no stage executes
        done, wall = flow_command(submitter, sub_env, "--pool", POOL)
        executed = _executed_stages(done.stdout + done.stderr)
        results.append(
            report(
                "unchanged rerun executes no stage",
                done.returncode in (0, 1) and executed == 0,
                wall_s=round(wall, 1),
                stages_executed=executed,
            )
        )
        # 3. a decision given through the API on one worker is in force on the other
        results.append(_review_from_anywhere(workers, submitter, sub_env, stores))
        # 4. kill a worker mid-run, start a third
        results.append(_kill_and_recover(workers, work, shared, submitter, sub_env, stores, baseline))
    finally:
        for worker in workers:
            worker.stop()
        if stores is not None:
            stores.documents.close()  # before PostgreSQL stops: no reconnect noise
        services.stop()
    passed = sum(results)
    if args.keep is None:
        shutil.rmtree(work, ignore_errors=True)
    print(json.dumps({"summary": f"{passed} passed, {len(results) - passed} failed", "work": str(work)}))
    raise SystemExit(0 if passed == len(results) else 1)


def _executed_stages(stdout: str) -> int:
    """Stages that ran (not Cached), from the line `flow --pool` prints (flows/pipeline/pools.py)."""
    line = next((ln for ln in stdout.splitlines() if ln.startswith("stages executed:")), None)
    return int(line.split(":")[1].split()[0]) if line else -1


def _review_from_anywhere(workers, submitter, sub_env, stores) -> bool:
    """en-XA with a review timeout: its run pauses at the sign-off form on worker X; the sign-off is given
    through Prefect's API (as the UI does); X is stopped; an unchanged rerun lands on worker Y, which
    pulls the sign-off with the variant and keeps it (valid: nothing rebuilt)."""
    from prefect.client.orchestration import get_client  # noqa: PLC0415
    from prefect.flow_runs import resume_flow_run  # noqa: PLC0415

    from flows.review.signoff import SIGNOFF_NAME, signoff_state  # noqa: PLC0415

    language = "en-XA"
    command = [
        PY,
        "-m",
        "flows.cli.app",
        "flow",
        BENCHMARK,
        "--lang",
        language,
        "--pool",
        POOL,
        "--review-timeout",
        "600",
    ]
    paused = subprocess.Popen(
        command, cwd=submitter, env=sub_env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    run_id, deadline = None, time.perf_counter() + 600
    with get_client(sync_client=True) as client:
        while run_id is None and time.perf_counter() < deadline and paused.poll() is None:
            holder = stores.documents.holder(f"run:{BENCHMARK}:{language}")
            if holder and holder.alive:
                candidate = holder.holder.rsplit(" ", 1)[-1]
                state = client.read_flow_run(candidate).state
                if state is not None and state.is_paused():
                    run_id = candidate
            time.sleep(0.5)
    if run_id is None:
        out = paused.communicate(timeout=60)[0] if paused.poll() is not None else ""
        paused.kill()
        return report("review decision applies on the other worker", False, why="no paused run", tail=out[-1500:])
    signer = next(w for w in workers if run_id in w.submitted())
    resume_flow_run(run_id, run_input={"reviewer": "api-reviewer", "read": True, "note": "given through the API"})
    out = paused.communicate(timeout=600)[0]
    signer.stop()  # the other worker is now the only one: the next run lands there
    other = next(w for w in workers if w is not signer and w.process.poll() is None)
    done = subprocess.run(
        [PY, "-m", "flows.cli.app", "flow", BENCHMARK, "--lang", language, "--pool", POOL],
        cwd=submitter,
        env=sub_env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    variant = other.checkout / "adapted" / BENCHMARK / language
    signed = signoff_state(variant)
    record = json.loads((variant / SIGNOFF_NAME).read_text()) if (variant / SIGNOFF_NAME).exists() else {}
    landed = [r for r in other.submitted() if r in done.stdout + done.stderr]
    ok = "signed" in out and bool(landed) and signed.valid and record.get("reviewer") == "api-reviewer"
    return report(
        "review decision applies on the other worker",
        ok,
        paused_on=signer.name,
        signed_run=run_id,
        rerun_on=other.name if landed else None,
        signoff_on_other_worker={
            "valid": signed.valid,
            "reviewer": record.get("reviewer"),
            "flow_run": record.get("flow_run_id"),
        },
        rerun_stages_executed=_executed_stages(done.stdout + done.stderr),
    )


def _kill_and_recover(workers, work, shared, submitter, sub_env, stores, baseline) -> bool:
    language = "es"
    # es's shared state is dropped (its memory, run folder, variant): its next run translates, rebuilds
    # and validates again, long enough to be killed in the middle
    for doc in stores.documents.read_prefix(f"state/tm/{BENCHMARK}/{language}/"):
        stores.documents.delete(doc.key, doc.version)
    stores.objects.delete(f"_index/{BENCHMARK}/{language}.json")
    command = [PY, "-m", "flows.cli.app", "flow", BENCHMARK, "--lang", language, "--pool", POOL]
    started = time.perf_counter()
    submitter_run = subprocess.Popen(
        command, cwd=submitter, env=sub_env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    victim, killed = None, []
    deadline = time.perf_counter() + 600
    while time.perf_counter() < deadline and victim is None:
        index = stores.objects.get(f"_index/{BENCHMARK}/{language}.json")
        pushed = json.loads(index) if index else {}
        if any(k.endswith("targets.json") for k in pushed):  # translated and shared: now kill its worker
            holder = stores.documents.holder(f"run:{BENCHMARK}:{language}")
            for worker in workers:
                if holder and holder.alive and any(holder.holder.endswith(r) for r in worker.submitted()):
                    victim = worker
            if victim is None:
                time.sleep(0.2)
                continue
            killed = victim.kill()
        time.sleep(0.2)
    third = Worker("worker-3", work / "worker-3", shared)
    workers.append(third)
    out, _ = submitter_run.communicate(timeout=900)
    wall = time.perf_counter() - started
    differ = [k for k, data in variant_files(baseline, language).items() if stores.objects.get(k) != data]
    resubmitted = "lost its worker" in out
    ok = victim is not None and submitter_run.returncode in (0, 1) and resubmitted and not differ
    return report(
        "worker killed mid-run, third recovers",
        ok,
        killed_worker=victim.name if victim else None,
        killed_pids=killed,
        resubmitted=resubmitted,
        resubmission=next((line for line in out.splitlines() if "lost its worker" in line), None),
        recovered_run_stages_executed=_executed_stages(out),
        runs_per_worker={w.name: len(w.submitted()) for w in workers},
        differ=differ[:10],
        wall_s=round(wall, 1),
        tail=out.splitlines()[-6:],
    )


if __name__ == "__main__":
    main()
