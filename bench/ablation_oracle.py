"""The ablation's oracle side: constants, per-arm results, source/target replays and the
per-domain state every arm shares (see bench/ablation.py)."""

from __future__ import annotations

import itertools
import re
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console

ARMS = ("independent", "canonical", "full")
DOMAINS = ("tau2-mock", "tau2-airline", "tau2-retail", "tau2-telecom")
BATCH = 40  # segments per request for the naive arms (the engine batches the same way)
MAX_ROUNDS = 8
MAX_RETRANSLATIONS = 2  # a field confirmed defective more often than this gets the reviewer's own text
PAPER = {"independent": (20.0, None, 1.0), "canonical": (7.5, 2.5, None), "full": (2.5, 0.0, 3.35)}

_SLOT = re.compile(r"⟦([0-9]+)⟧")
# an inline token is an id if the IR preserves that value as one; a value the IR does not hold
# as a field counts as an id if it has a digit, '#', '_' or '@'. Names, addresses and products
# (linked_entity / evaluator_token) are references too, but they are judged through the gold
# arguments and the tool errors they cause, not by their spelling in the instructions.
ID_REASONS = {"identifier", "email_url", "number", "date_time"}
_ID_SHAPE = re.compile(r"[0-9#_@]")


# ---- results ---------------------------------------------------------------------------------


@dataclass
class ArmResult:
    benchmark: str
    arm: str
    tasks: int
    broken: list[str] = field(default_factory=list)
    mismatch: list[str] = field(default_factory=list)
    reasons: dict[str, list[str]] = field(default_factory=dict)
    characters_sent: int = 0
    characters_received: int = 0
    tokens: int = 0
    requests: int = 0
    segments: int = 0
    fields_translated: int = 0
    defective_fields: int = 0  # fields whose final text differs from the error-free rendering
    review_rounds: int | None = None
    validation_passes: int | None = None
    confirmed: int = 0
    dismissed: int = 0
    hand_fixed: int = 0
    converged: bool = True
    model_events: dict[str, int] = field(default_factory=dict)
    validator_tokens: int = 0  # the full arm's model validator agents (simulated reviewers), all passes
    validator_costs: list[dict[str, str]] = field(default_factory=list)  # their ledger rows (one per agent)
    seconds: float = 0.0

    @property
    def workflow_tokens(self) -> int:
        """Translation plus model validation: what the whole workflow spends."""
        return self.tokens + self.validator_tokens

    @property
    def broken_pct(self) -> float:
        return 100.0 * len(self.broken) / self.tasks if self.tasks else 0.0

    @property
    def mismatch_pct(self) -> float:
        return 100.0 * len(self.mismatch) / self.tasks if self.tasks else 0.0

    def as_dict(self) -> dict[str, Any]:
        data = dict(self.__dict__)
        data["broken_pct"], data["mismatch_pct"] = self.broken_pct, self.mismatch_pct
        data["reasons"] = {k: [reason[:300] for reason in v[:5]] for k, v in self.reasons.items()}
        return data


# ---- shared per-domain state -----------------------------------------------------------------


@dataclass
class TaskReplay:
    golden: Any = None
    nothing: Any = None
    db: tuple[str | None, str | None] = (None, None)
    crash: str | None = None


def _walk(node: Any, path: tuple, visit: Callable[[str, tuple], None]) -> None:
    """visit(string, position) for every string value and mapping key; positions use indices so
    they survive renamed keys: (index, ..., index, 'k' for a key / 'v' for a value)."""
    if isinstance(node, dict):
        for index, (key, value) in enumerate(node.items()):
            if isinstance(key, str):
                visit(key, path + (index, "k"))
            _walk(value, path + (index,), visit)
    elif isinstance(node, list):
        for index, value in enumerate(node):
            _walk(value, path + (index,), visit)
    elif isinstance(node, str):
        visit(node, path + ("v",))


def _at(node: Any, position: tuple) -> Any:
    *steps, what = position
    last = len(steps) - 1
    for depth, index in enumerate(steps):
        if isinstance(node, dict):
            if index >= len(node):
                return None
            if what == "k" and depth == last:
                return next(itertools.islice(node.keys(), index, None))
            node = next(itertools.islice(node.values(), index, None))
        elif isinstance(node, list):
            if index >= len(node):
                return None
            node = node[index]
        else:
            return None
    return node if what == "v" else None


def _arg_pairs(source: Any, target: Any, path: tuple = ()):
    """(argument path, source string, target string or None) for every string in gold arguments."""
    if isinstance(source, str):
        yield path, source, target if isinstance(target, str) else None
    elif isinstance(source, dict):
        for key, value in source.items():
            yield from _arg_pairs(value, target.get(key) if isinstance(target, dict) else None, path + (key,))
    elif isinstance(source, list):
        for index, value in enumerate(source):
            yield from _arg_pairs(
                value, target[index] if isinstance(target, list) and index < len(target) else None, path + (index,)
            )


def _map_back(value: Any, back: dict[str, str]) -> Any:
    if isinstance(value, str):
        return back.get(value, value)
    if isinstance(value, dict):
        return {(back.get(k, k) if isinstance(k, str) else k): _map_back(v, back) for k, v in value.items()}
    if isinstance(value, list):
        return [_map_back(v, back) for v in value]
    return value


def replay_tasks(bench: Any, task_ids: list[str], back: dict[str, str] | None = None) -> dict[str, TaskReplay]:
    """Golden + do-nothing outcome of every task (tau2's own code, one execution per task); with
    `back`, the final DBs are mapped back through it before hashing (tau2's get_dict_hash)."""
    from tau2.utils.utils import get_dict_hash

    from source_benchmarks.tau_common.fast_replay import replay_pair

    factory = bench.environment_factory
    made: list[Any] = []

    def capturing(*args: Any, **kwargs: Any) -> Any:
        env = factory(*args, **kwargs)
        made.append(env)
        return env

    out: dict[str, TaskReplay] = {}
    for task_id in task_ids:
        made.clear()
        try:
            golden, nothing = replay_pair(bench.task(task_id), capturing)
            db = (golden.final_db_sha256, golden.final_user_db_sha256)
            if back:
                env = made[-1]
                db = (
                    None if env.get_db_hash() is None else get_dict_hash(_map_back(env.tools.db.model_dump(), back)),
                    None
                    if env.get_user_db_hash() is None
                    else get_dict_hash(_map_back(env.user_tools.db.model_dump(), back)),
                )
        except Exception as exc:  # a variant that crashes the harness is a result, not a bench error
            out[task_id] = TaskReplay(crash=f"{type(exc).__name__}: {str(exc)[:200]}")
            continue
        out[task_id] = TaskReplay(golden=golden, nothing=nothing, db=db)
    return out


class Domain:
    """One benchmark: source, IR, source replays, DB positions of gold-argument values."""

    def __init__(self, benchmark_id: str, language: str, work: Path, console: Console, ir: Any = None):
        """`ir`: the IR to judge by (a built variant's own); None analyses the benchmark afresh."""
        from analyzers.analyze import analyze_benchmark
        from babelflow.ir import ArtifactRole
        from source_benchmarks import benchmarks_of, get_benchmark

        TAU2_BENCHMARKS = benchmarks_of("tau2")

        if benchmark_id not in TAU2_BENCHMARKS:
            raise SystemExit(
                f"the ablation runs on tau2 domains only ({', '.join(TAU2_BENCHMARKS)}), not {benchmark_id!r}"
            )
        self.id, self.language, self.work, self.console = benchmark_id, language, work, console
        started = time.perf_counter()
        self.bench = get_benchmark(benchmark_id)
        if ir is None:
            console.log(f"{benchmark_id}: analyzing")
        self.ir = ir if ir is not None else analyze_benchmark(self.bench)
        self.task_ids = self.bench.task_ids(None)
        console.log(f"{benchmark_id}: replaying the source ({len(self.task_ids)} tasks)")
        self.source = replay_tasks(self.bench, self.task_ids)
        crashed = [t for t, r in self.source.items() if r.crash]
        if crashed:
            raise SystemExit(f"{benchmark_id}: the SOURCE crashes on {crashed[:3]}: {self.source[crashed[0]].crash}")
        self.source_pairs = {t: (r.golden, r.nothing) for t, r in self.source.items()}
        self.roles = {a.path: a.role for a in self.ir.artifacts}
        self.db_specs = [s for s in self.bench.artifacts() if s.role is ArtifactRole.DATABASE]
        self.tasks_artifact = next(s.path for s in self.bench.artifacts() if s.role is ArtifactRole.TASKS)
        # which inline tokens are ids: the reasons the IR preserves that value for, else its shape
        reasons: dict[str, set[str]] = defaultdict(set)
        for element in self.ir.elements:
            if element.preserve_reason is not None and element.locator.kind != "python_literal":
                reasons[element.source_text].add(element.preserve_reason.value)
        self.id_tokens = {
            value
            for value in {t for e in self.ir.elements for t in e.inline_tokens}
            if (bool(reasons[value] & ID_REASONS) if reasons.get(value) else _ID_SHAPE.search(value) is not None)
        }
        # elements per task (for behaviour findings) and the user-facing ones (for mentioned ids)
        self.task_elements: dict[str, set[str]] = defaultdict(set)
        self.user_facing: dict[str, list[Any]] = defaultdict(list)
        for element in self.ir.elements:
            if element.artifact != self.tasks_artifact or element.locator.kind not in ("data_value", "data_key"):
                continue
            index = next((p for p in element.locator.path if isinstance(p, int)), None)
            if index is None or index >= len(self.task_ids):
                continue
            task_id = self.task_ids[index]
            self.task_elements[task_id].add(element.id)
            if (".user_scenario" in element.role or element.role.endswith(".ticket")) and any(
                t in self.id_tokens for t in element.inline_tokens
            ):
                self.user_facing[task_id].append(element)
        # where in the source DB each gold-argument string lives
        self.gold_values = {
            value for task_id in self.task_ids for _, value, _ in self._gold_pairs(self.bench, self.bench, task_id)
        }
        self.positions: dict[str, list[tuple[str, tuple]]] = defaultdict(list)
        for spec in self.db_specs:
            document = self.bench.load_artifact(spec)
            _walk(
                document,
                (),
                lambda value, position, path=spec.path: (
                    self.positions[value].append((path, position)) if value in self.gold_values else None
                ),
            )
        self.seconds = time.perf_counter() - started

    @staticmethod
    def _gold_pairs(source_bench: Any, target_bench: Any, task_id: str):
        source_task, target_task = source_bench.task(task_id), target_bench.task(task_id)
        source_actions = (source_task.evaluation_criteria.actions or []) if source_task.evaluation_criteria else []
        target_actions = (target_task.evaluation_criteria.actions or []) if target_task.evaluation_criteria else []
        for index, action in enumerate(source_actions):
            other = target_actions[index].arguments if index < len(target_actions) else None
            yield from _arg_pairs(action.arguments, other, (index, action.name))

    # ---- the oracle ------------------------------------------------------------------------------

    def judge(self, result: ArmResult, variant_dir: Path, targets: dict[str, str], db_translated: bool) -> None:
        """Fill result.broken / result.mismatch / result.reasons for one variant."""
        from source_benchmarks import open_variant

        variant = open_variant(self.id, variant_dir)
        back: dict[str, str] | None = None
        if db_translated:
            back = {}
            for element in self.ir.elements:
                target = targets.get(element.id)
                if (
                    target is not None
                    and target != element.source_text
                    and self.roles.get(element.artifact).value in ("database", "tasks")
                ):
                    back.setdefault(target, element.source_text)
        # a DB value the arm renamed (an option value such as '8 hours' is an entity now) is kept in the
        # prose when the prose holds the arm's DB rendering of it: the user names what the DB holds
        rendered: dict[str, set[str]] = defaultdict(set)
        for element in self.ir.elements:
            target = targets.get(element.id)
            if target is not None and target != element.source_text and self.roles.get(element.artifact) is not None:
                if self.roles[element.artifact].value == "database":
                    rendered[element.source_text].add(target)
        self.console.log(f"{self.id}/{result.arm}: replaying the variant")
        observed = replay_tasks(variant, self.task_ids, back)
        try:
            target_docs = {spec.path: variant.load_artifact(spec) for spec in self.db_specs}
        except Exception as exc:  # unreadable DB: every gold reference is gone
            target_docs = None
            self.console.log(f"{self.id}/{result.arm}: variant DB unreadable: {exc}")
        for task_id in self.task_ids:
            broken: list[str] = []
            mismatch: list[str] = []
            source, target = self.source[task_id], observed[task_id]
            if target.crash:
                broken.append(f"harness crash: {target.crash}")
                mismatch.append("harness crash")
            else:
                sg, sn, tg, tn = source.golden, source.nothing, target.golden, target.nothing
                calls_s = [(c.name, c.error) for c in sg.tool_calls]
                calls_t = [(c.name, c.error) for c in tg.tool_calls]
                if calls_s != calls_t:
                    broken.append(
                        "tool errors "
                        + " ".join(f"{n}{'!' if e else ''}" for n, e in calls_s)
                        + " -> "
                        + " ".join(f"{n}{'!' if e else ''}" for n, e in calls_t)
                    )
                if sg.reward != tg.reward or (sg.evaluator_error is None) != (tg.evaluator_error is None):
                    mismatch.append(f"golden reward {sg.reward} -> {tg.reward}")
                if sn.reward != tn.reward or (sn.evaluator_error is None) != (tn.evaluator_error is None):
                    mismatch.append(f"do-nothing reward {sn.reward} -> {tn.reward}")
                if source.db != target.db:
                    mismatch.append("final DB differs" + (" after mapping back" if back else ""))
                try:
                    broken += self._unresolved_gold(variant, task_id, target_docs)
                except Exception as exc:
                    broken.append(f"gold arguments unreadable: {type(exc).__name__}")
            for element in self.user_facing.get(task_id, []):
                text = targets.get(element.id, element.source_text)
                lost = [
                    t
                    for t in element.inline_tokens
                    if t in self.id_tokens
                    and text.count(t) + sum(text.count(r) for r in rendered.get(t, ())) < element.source_text.count(t)
                ]
                if lost:
                    broken.append(f"ids lost from {element.role.rsplit('.', 1)[-1]}: {lost[:3]}")
            if broken:
                result.broken.append(task_id)
            if mismatch:
                result.mismatch.append(task_id)
            if broken or mismatch:
                result.reasons[task_id] = broken + mismatch

    def _unresolved_gold(self, variant: Any, task_id: str, target_docs: dict[str, Any] | None) -> list[str]:
        problems = []
        for path, value, target in self._gold_pairs(self.bench, variant, task_id):
            positions = self.positions.get(value)
            if not positions:
                continue  # the argument does not name a DB value (a new address, a summary, ...)
            if (
                target is None
                or target_docs is None
                or not any(_at(target_docs[artifact], position) == target for artifact, position in positions)
            ):
                problems.append(
                    f"gold argument {path[1]}.{'.'.join(map(str, path[2:]))}={target!r} resolves nowhere (source "
                    f"{value!r})"
                )
        return problems
