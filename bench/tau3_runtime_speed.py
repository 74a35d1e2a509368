"""τ³ worker speed: start, golden/do-nothing replays in the worker, and the same replays done natively.

    .venv/bin/python -m bench.tau3_runtime_speed [tau3-banking_knowledge ...]

Prints per benchmark: worker start (spawn + importing τ³, one hello round trip), replay_pairs of every
task (golden + do-nothing, one batch), replay_golden scored, and "native": τ³'s own code alone in its
own interpreter (`--native DOMAIN`, no babelflow module): set_state, the gold calls, and τ³'s
evaluate_simulation(ALL) of the golden and the empty trajectory, as its runner's env kwargs give
(banking_knowledge: retrieval no_knowledge, read_log_allowlist; documents read once per process).
The native run imports only τ³ and the standard library, so this file keeps its babelflow imports
in the function that runs in the project's interpreter.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time


def native(domain: str) -> dict:
    import functools

    from loguru import logger

    logger.disable("tau2")
    from tau2.data_model.message import AssistantMessage, ToolCall, UserMessage
    from tau2.data_model.simulation import SimulationRun, TerminationReason
    from tau2.data_model.tasks import RewardType
    from tau2.evaluator.evaluator import EvaluationType, evaluate_simulation
    from tau2.registry import registry

    if domain == "banking_knowledge":
        import tau2.domains.banking_knowledge.environment as environment
        from tau2.runner.build import _derive_read_log_allowlist

        environment.get_knowledge_base = functools.cache(environment.get_knowledge_base)
        kwargs_of = lambda task: {
            "retrieval_variant": "no_knowledge",
            "read_log_allowlist": _derive_read_log_allowlist(task),
        }  # noqa: E731
    else:
        kwargs_of = lambda task: {}  # noqa: E731
    tasks = (
        registry.get_tasks_loader(domain)(None)
        if domain != "banking_knowledge"
        else registry.get_tasks_loader(domain)()
    )
    constructor = registry.get_env_constructor(domain)
    started = time.perf_counter()
    golden_ones = nothing_ones = 0
    for task in tasks:
        kwargs = kwargs_of(task)
        env = constructor(**kwargs)
        state = task.initial_state
        history = list(state.message_history or []) if state else []
        env.set_state(
            initialization_data=state.initialization_data if state else None,
            initialization_actions=state.initialization_actions if state else None,
            message_history=history,
        )
        messages = list(history)
        criteria = task.evaluation_criteria
        for index, action in enumerate((criteria.actions or []) if criteria else []):
            call = ToolCall(id=f"g{index}", name=action.name, arguments=action.arguments, requestor=action.requestor)
            messages += [
                (UserMessage if action.requestor == "user" else AssistantMessage)(
                    role=action.requestor, tool_calls=[call]
                ),
                env.get_response(call),
            ]
        if criteria is not None and criteria.communicate_info:
            messages.append(AssistantMessage(role="assistant", content=" ".join(criteria.communicate_info)))
        if criteria is not None and RewardType.NL_ASSERTION in criteria.reward_basis:  # no judge: scored without it
            task = task.model_copy(deep=True)
            task.evaluation_criteria.reward_basis = [b for b in criteria.reward_basis if b != RewardType.NL_ASSERTION]
        for trajectory, golden in ((messages, True), (history, False)):
            run = SimulationRun(
                id="x",
                task_id=task.id,
                start_time="",
                end_time="",
                duration=0.0,
                termination_reason=TerminationReason.AGENT_STOP,
                messages=trajectory,
            )
            try:
                reward = evaluate_simulation(
                    run, task, EvaluationType.ALL, solo_mode=False, domain=domain, env_kwargs=dict(kwargs)
                ).reward
            except Exception:  # mock's assert_task_status raises on a missing task
                reward = None
            if reward == 1.0:
                golden_ones += golden
                nothing_ones += not golden
    return {
        "tasks": len(tasks),
        "golden_1": golden_ones,
        "do_nothing_1": nothing_ones,
        "seconds": round(time.perf_counter() - started, 2),
    }


def main(benchmarks: list[str]) -> None:
    from source_benchmarks.registry import get_benchmark
    from source_benchmarks.tau3.client import worker_for
    from source_benchmarks.tau3.messages import WorkerRequest
    from source_benchmarks.tau3.runtime import PROJECT_ROOT

    for benchmark in benchmarks:
        bench = get_benchmark(benchmark)
        worker = worker_for(bench.runtime)  # type: ignore[attr-defined]
        worker.stop()
        started = time.perf_counter()
        worker.call(WorkerRequest(id=0, op="hello"), "hello")
        start = time.perf_counter() - started
        ids = bench.task_ids()
        started = time.perf_counter()
        pairs = bench.replay_pairs(ids)  # type: ignore[attr-defined]
        pairs_s = time.perf_counter() - started
        started = time.perf_counter()
        golden = bench.replay_golden(ids)
        golden_s = time.perf_counter() - started
        domain = benchmark.removeprefix("tau3-")
        runtime = bench.runtime  # type: ignore[attr-defined]
        command = [str(runtime.python), "-m", "bench.tau3_runtime_speed", "--native", domain]
        env = {
            "PYTHONPATH": str(PROJECT_ROOT),
            "TAU2_DATA_DIR": str(runtime.data_dir),
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
            "PYTHONUTF8": "1",
            "PYTHONDONTWRITEBYTECODE": "1",
            "PATH": "/usr/bin:/bin",
        }
        done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=str(runtime.env_dir), check=True)
        result = json.loads(done.stdout.strip().splitlines()[-1])
        golden_ones, nothing_ones = sum(g.reward == 1.0 for g, _ in pairs), sum(n.reward == 1.0 for _, n in pairs)
        print(
            f"{benchmark}: {len(ids)} tasks; worker start {start:.1f} s; in worker: replay_pairs {pairs_s:.1f} s "
            f"(golden 1.0: {golden_ones}, do-nothing 1.0: {nothing_ones}), "
            f"replay_golden scored {golden_s:.1f} s ({sum(o.reward == 1.0 for o in golden)} at 1.0); "
            f"native τ³ evaluate_simulation {result['seconds']:.1f} s "
            f"(golden 1.0: {result['golden_1']}, do-nothing 1.0: {result['do_nothing_1']})"
        )


if __name__ == "__main__":
    if sys.argv[1:2] == ["--native"]:
        print(json.dumps(native(sys.argv[2])))
    else:
        main(sys.argv[1:] or ["tau3-banking_knowledge"])
