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
  layers), and a scripted reviewer that confirms exactly the findings whose field differs from
  the simulated model's error-free rendering, purges those units from the translation memory
  (engine.memory_keys + forget) so they are translated again, and loops until nothing is open.

The oracle (not babelflow's validators) compares every task of the source and the variant with
the same fixed actions (tau2's golden actions and a do-nothing agent, one execution per task):

- broken reference: the golden replay's tool-call/error sequence changed (a new or vanished tool
  error: the operational signal), or a gold argument that names a DB value no longer equals the
  DB value at any position where the source DB held it, or an id mentioned in the task's
  user-facing text (user_scenario.*, ticket) is no longer there verbatim (an inline token the IR
  preserves as identifier / email / number / date; a token the IR holds nowhere counts if it has
  a digit, '#', '_' or '@'), or the variant crashes the harness;
- behaviour mismatch: golden reward, do-nothing reward (or whether its evaluator crashes) or the
  final DB / user DB after the golden actions differ; for arms that translate DB entities the
  final DB is first mapped back through the arm's own renderings (every target string the arm
  wrote into the DB or the tasks -> its source string), then hashed like tau2 does.

Characters are what the arm sent to the translator (translation memory hits are free); tokens
are estimated as (characters sent + characters received) / 4.

Usage: python bench/ablation.py [--domains tau2-mock,tau2-airline,tau2-retail,tau2-telecom]
       [--arms independent,canonical,full] [--lang en-XA] [--seed 0] [--max-rounds 8]
       [--keep DIR] [--json FILE] [--error-free]
"""

from __future__ import annotations

import argparse
import itertools
import re
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

if __package__ in (None, ""):  # `python bench/ablation.py` from the repository root
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rich.console import Console
from rich.table import Table

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
    seconds: float = 0.0

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
            yield from _arg_pairs(value, target[index] if isinstance(target, list) and index < len(target) else None, path + (index,))


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
    from source_benchmarks.tau2.fast_replay import replay_pair
    from tau2.utils.utils import get_dict_hash

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
                    None if env.get_user_db_hash() is None else get_dict_hash(_map_back(env.user_tools.db.model_dump(), back)),
                )
        except Exception as exc:  # a variant that crashes the harness is a result, not a bench error
            out[task_id] = TaskReplay(crash=f"{type(exc).__name__}: {str(exc)[:200]}")
            continue
        out[task_id] = TaskReplay(golden=golden, nothing=nothing, db=db)
    return out


class Domain:
    """One benchmark: source, IR, source replays, DB positions of gold-argument values."""

    def __init__(self, benchmark_id: str, language: str, work: Path, console: Console):
        from analyzers.analyze import analyze_benchmark
        from babelflow.ir import ArtifactRole
        from source_benchmarks import TAU2_BENCHMARKS, get_benchmark

        if benchmark_id not in TAU2_BENCHMARKS:
            raise SystemExit(f"the ablation runs on tau2 domains only ({', '.join(TAU2_BENCHMARKS)}), not {benchmark_id!r}")
        self.id, self.language, self.work, self.console = benchmark_id, language, work, console
        started = time.perf_counter()
        self.bench = get_benchmark(benchmark_id)
        console.log(f"{benchmark_id}: analyzing")
        self.ir = analyze_benchmark(self.bench)
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
            value for value in {t for e in self.ir.elements for t in e.inline_tokens}
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
            if (".user_scenario" in element.role or element.role.endswith(".ticket")) and any(t in self.id_tokens for t in element.inline_tokens):
                self.user_facing[task_id].append(element)
        # where in the source DB each gold-argument string lives
        self.gold_values = {value for task_id in self.task_ids for _, value, _ in self._gold_pairs(self.bench, self.bench, task_id)}
        self.positions: dict[str, list[tuple[str, tuple]]] = defaultdict(list)
        for spec in self.db_specs:
            document = self.bench.load_artifact(spec)
            _walk(document, (), lambda value, position, path=spec.path: self.positions[value].append((path, position)) if value in self.gold_values else None)
        self.seconds = time.perf_counter() - started

    @staticmethod
    def _gold_pairs(source_bench: Any, target_bench: Any, task_id: str):
        source_task, target_task = source_bench.task(task_id), target_bench.task(task_id)
        source_actions = (source_task.evaluation_criteria.actions or []) if source_task.evaluation_criteria else []
        target_actions = (target_task.evaluation_criteria.actions or []) if target_task.evaluation_criteria else []
        for index, action in enumerate(source_actions):
            other = target_actions[index].arguments if index < len(target_actions) else None
            for path, value, target in _arg_pairs(action.arguments, other, (index, action.name)):
                yield path, value, target

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
                if target is not None and target != element.source_text and self.roles.get(element.artifact).value in ("database", "tasks"):
                    back.setdefault(target, element.source_text)
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
                    broken.append("tool errors " + " ".join(f"{n}{'!' if e else ''}" for n, e in calls_s) + " -> " + " ".join(f"{n}{'!' if e else ''}" for n, e in calls_t))
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
                lost = [t for t in element.inline_tokens if t in self.id_tokens and text.count(t) < element.source_text.count(t)]
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
            if target is None or target_docs is None or not any(_at(target_docs[artifact], position) == target for artifact, position in positions):
                problems.append(f"gold argument {path[1]}.{'.'.join(map(str, path[2:]))}={target!r} resolves nowhere (source {value!r})")
        return problems


# ---- naive arms ------------------------------------------------------------------------------


@dataclass
class Job:
    element_ids: list[str]
    text: str
    originals: list[str]
    context: str
    kind: str


def _slot_patterns() -> list[re.Pattern[str]]:
    from translators.placeholders import _GENERIC  # the engine's own template-slot patterns

    return [pattern for kind, pattern in _GENERIC if kind in ("template", "printf")]


def protect_slots(text: str) -> tuple[str, list[str]]:
    """Only template slots ({name}, %s) become ⟦N⟧ placeholders: what a naive pipeline protects."""
    spans = sorted({(m.start(), m.end()) for pattern in _slot_patterns() for m in pattern.finditer(text) if m.end() > m.start()})
    pieces, originals, cursor = [], [], 0
    for start, end in spans:
        if start < cursor:
            continue
        pieces += [text[cursor:start], f"⟦{len(originals)}⟧"]
        originals.append(text[start:end])
        cursor = end
    pieces.append(text[cursor:])
    return "".join(pieces), originals


def restore_lenient(text: str, originals: list[str]) -> str:
    """Put slots back; a dropped slot stays dropped (no check, as in a naive pipeline)."""
    return _SLOT.sub(lambda m: originals[int(m.group(1))] if int(m.group(1)) < len(originals) else m.group(), text)


def naive_fields(domain: Domain) -> tuple[list[Any], list[Any]]:
    """(prose fields, entity-like fields) a naive pipeline translates."""
    from babelflow.ir import ArtifactRole, PreserveReason, TranslationType

    entity_reasons = (PreserveReason.LINKED_ENTITY, PreserveReason.EVALUATOR_TOKEN)
    prose, entities = [], []
    for element in domain.ir.elements:
        if element.translation_type is TranslationType.TRANSLATE_FREE:
            prose.append(element)
        elif element.translation_type is TranslationType.TRANSLATE_CANONICAL:
            entities.append(element)
        elif element.preserve_reason in entity_reasons and domain.roles.get(element.artifact) in (ArtifactRole.DATABASE, ArtifactRole.TASKS):
            entities.append(element)
    return prose, entities


def naive_jobs(domain: Domain, arm: str) -> list[Job]:
    prose, entities = naive_fields(domain)
    jobs = []
    for element in prose:
        text, originals = protect_slots(element.source_text)
        jobs.append(Job([element.id], text, originals, f"{domain.id} {element.role} @ {element.id}", "free"))
    if arm == "independent":
        for element in entities:
            text, originals = protect_slots(element.source_text)
            jobs.append(Job([element.id], text, originals, f"{domain.id} {element.role} @ {element.id}", "canonical"))
    else:  # canonical: one rendering per distinct entity value, reused in every field that holds it
        by_value: dict[str, list[str]] = defaultdict(list)
        for element in entities:
            by_value[element.source_text].append(element.id)
        for value, ids in by_value.items():
            text, originals = protect_slots(value)
            jobs.append(Job(ids, text, originals, "canonical term (entity)", "canonical"))
    return jobs


def run_jobs(jobs: list[Job], model: Any, language: str) -> dict[str, str]:
    from translators.interface import ProtectedSegment, TranslationRequest

    targets: dict[str, str] = {}
    for start in range(0, len(jobs), BATCH):
        batch = jobs[start : start + BATCH]
        request = TranslationRequest(
            source_language="en",
            target_language=language,
            segments=[ProtectedSegment(segment_id=str(start + i), text=job.text, context=job.context, kind=job.kind) for i, job in enumerate(batch)],
        )
        by_id = {s.segment_id: s.text for s in model.translate(request).segments}
        for i, job in enumerate(batch):
            targets.update(dict.fromkeys(job.element_ids, restore_lenient(by_id[str(start + i)], job.originals)))
    return targets


def run_naive(domain: Domain, arm: str, seed: int, rates: Any = None) -> ArmResult:
    from flows.adapt import domain_name_for
    from translators.rebuild import rebuild_variant
    from translators.simulated_model import ERROR_FREE, SimulatedModelTranslator

    started = time.perf_counter()
    result = ArmResult(benchmark=domain.id, arm=arm, tasks=len(domain.task_ids))
    jobs = naive_jobs(domain, arm)
    model = SimulatedModelTranslator(domain.language, seed=seed, rates=rates)
    domain.console.log(f"{domain.id}/{arm}: translating {len(jobs)} segments")
    targets = run_jobs(jobs, model, domain.language)
    clean = run_jobs(jobs, SimulatedModelTranslator(domain.language, seed=seed, rates=ERROR_FREE), domain.language)
    variant_dir = domain.work / domain.id / arm
    rebuild_variant(
        domain.bench, domain.ir, targets, variant_dir, language=domain.language, domain_name=domain_name_for(domain.id, domain.language),
        canonical_map_version="none", translator_id=model.translator_id, failed_units=0,
    )
    by_id = domain.ir.by_id()
    db_translated = any(domain.roles.get(by_id[e].artifact).value == "database" and targets[e] != by_id[e].source_text for e in targets)
    domain.judge(result, variant_dir, targets, db_translated)
    result.characters_sent, result.characters_received = model.characters_in, model.characters_out
    result.tokens, result.requests, result.segments = model.estimated_tokens, model.requests, model.segments
    result.fields_translated = len(targets)
    result.defective_fields = sum(1 for e, text in targets.items() if text != clean[e])
    result.model_events = dict(model.events)
    result.seconds = time.perf_counter() - started
    return result


# ---- the full babelflow arm ------------------------------------------------------------------


def run_full(domain: Domain, seed: int, max_rounds: int = MAX_ROUNDS, rates: Any = None) -> ArmResult:
    """engine → release checks → rebuild → validate → scripted review, until nothing is open."""
    from babelflow.settings import BabelflowSettings
    from flows.adapt import domain_name_for
    from translators.canonical_map import CanonicalMap
    from translators.engine import TranslationEngine
    from translators.language_pack import load_pack
    from translators.memory import TranslationMemory
    from translators.pack_checks import check_pack, check_translations
    from translators.rebuild import rebuild_variant
    from translators.simulated_model import ERROR_FREE, SimulatedModelTranslator
    from validators.run import validate_variant

    started = time.perf_counter()
    console, ir, language = domain.console, domain.ir, domain.language
    result = ArmResult(benchmark=domain.id, arm="full", tasks=len(domain.task_ids), review_rounds=0, validation_passes=0)
    pack = load_pack(language, BabelflowSettings().project_root)
    model = SimulatedModelTranslator(language, seed=seed, rates=rates)
    engine = TranslationEngine(model, language, TranslationMemory(None))
    cmap = CanonicalMap(benchmark=domain.id, language=language)
    clean = TranslationEngine(SimulatedModelTranslator(language, seed=seed, rates=ERROR_FREE), language, TranslationMemory(None)).translate(ir, CanonicalMap(benchmark=domain.id, language=language)).targets
    by_id = ir.by_id()
    by_where: dict[str, set[str]] = defaultdict(set)
    by_qualname: dict[tuple[str, str], set[str]] = defaultdict(set)
    for element_id in clean:
        element = by_id[element_id]
        by_where[f"{element.artifact} {element.role}"].add(element_id)
        if element.locator.kind == "python_literal":
            by_qualname[(element.artifact, element.locator.qualname)].add(element_id)
    variant_dir = domain.work / domain.id / "full"
    reviewed: dict[str, str] = {}
    confirmations: Counter[str] = Counter()
    dismissed: dict[str, tuple] = {}

    def candidates(finding: Any) -> set[str]:
        if finding.element_id:
            return {finding.element_id} & clean.keys()
        if finding.task_id is not None:
            return domain.task_elements.get(finding.task_id, set()) & clean.keys()
        match = re.match(r"(.+) \((\w+)\)$", finding.location)
        if match and (finding.artifact, match.group(1)) in by_qualname:
            return by_qualname[(finding.artifact, match.group(1))]
        return {e for e in clean if by_id[e].artifact == finding.artifact}

    outcome = None
    for round_no in range(1, max_rounds + 1):
        outcome = engine.translate(ir, cmap, reviewed=reviewed)
        items: list[tuple[str, str, set[str]]] = [(f"unit:{f.unit_key}", "unit failure: " + "; ".join(f.problems)[:120], set(f.element_ids)) for f in outcome.failures]
        problems = check_pack(pack) + check_translations(pack, ir, outcome.targets)  # babelflow's enforce(): nothing is written on failure
        if problems:
            items += [(f"release:{p}", f"release check: {p[:120]}", by_where.get(p.split(": ", 1)[0], set())) for p in problems]
        if not problems or round_no == max_rounds:
            rebuild_variant(
                domain.bench, ir, outcome.targets, variant_dir, language=language, domain_name=domain_name_for(domain.id, language),
                canonical_map_version=cmap.version(), translator_id=model.translator_id, failed_units=len(outcome.failures), language_pack_version=f"{pack.tag}@{pack.version}",
            )
        if not problems:
            result.validation_passes += 1
            failures = validate_variant(domain.bench, variant_dir, ir, language, canonical_map=cmap, source_pairs=domain.source_pairs)
            items += [(f.id, f"[{f.layer.value}/{f.kind}] {f.artifact} {f.location}", candidates(f)) for f in failures.findings]
        # the scripted reviewer: confirm iff a named field really differs from the error-free rendering
        retranslate: set[str] = set()
        open_items = 0
        for key, description, fields in items:
            state = tuple(sorted((e, outcome.targets.get(e)) for e in fields))
            if dismissed.get(key) == state:
                continue  # dismissed earlier and its fields have not changed since
            open_items += 1
            defective = {e for e in fields if outcome.targets.get(e) != clean.get(e)}
            if not defective:
                dismissed[key] = state
                result.dismissed += 1
                console.log(f"{domain.id}/full round {round_no}: dismissed {description}")
                continue
            result.confirmed += 1
            retranslate |= defective
        console.log(f"{domain.id}/full round {round_no}: {open_items} open item(s), {len(retranslate)} field(s) to retranslate")
        if not retranslate:
            result.converged = not any(dismissed.get(key) != tuple(sorted((e, outcome.targets.get(e)) for e in fields)) for key, _, fields in items)
            break
        result.review_rounds += 1
        forget: set[str] = set()
        for element_id in retranslate:
            confirmations[element_id] += 1
            if confirmations[element_id] > MAX_RETRANSLATIONS and element_id in outcome.targets:
                reviewed[element_id] = clean[element_id]  # the reviewer writes the fix by hand
                result.hand_fixed += 1
            else:
                forget.add(element_id)
        if forget:
            engine.memory.forget(engine.memory_keys(ir, cmap, forget))
    else:
        result.converged = False
    assert outcome is not None
    domain.judge(result, variant_dir, outcome.targets, db_translated=False)
    result.characters_sent, result.characters_received = model.characters_in, model.characters_out
    result.tokens, result.requests, result.segments = model.estimated_tokens, model.requests, model.segments
    result.fields_translated = len(outcome.targets)
    result.defective_fields = sum(1 for e, text in clean.items() if outcome.targets.get(e) != text)
    result.model_events = dict(model.events)
    result.seconds = time.perf_counter() - started
    return result


# ---- driver ----------------------------------------------------------------------------------


def run_ablation(
    domains: list[str], language: str = "en-XA", seed: int = 0, work: Path | None = None, arms: tuple[str, ...] = ARMS,
    max_rounds: int = MAX_ROUNDS, console: Console | None = None, rates: Any = None,
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
                results.append(run_full(domain, seed, max_rounds, rates) if arm == "full" else run_naive(domain, arm, seed, rates))
                last = results[-1]
                console.log(f"{benchmark_id}/{arm}: broken {len(last.broken)}/{last.tasks}, mismatch {len(last.mismatch)}/{last.tasks}, {last.characters_sent:,} chars sent, {last.seconds:.0f} s")
    return results


def _pct(part: int, whole: int) -> str:
    return f"{100.0 * part / whole:.1f}%" if whole else "-"


def render(results: list[ArmResult], console: Console, *, seed: int, language: str, rates_tag: str = "") -> str:
    table = Table(title=f"Ablation (BabelArena Table 3, offline): simulated model {rates_tag} → {language}, seed {seed}; tokens ≈ (chars sent + received) / 4")
    for column in ("domain", "arm", "tasks", "broken refs", "behaviour mismatch", "chars sent", "tokens≈", "× indep. tokens", "review rounds", "defective fields left"):
        table.add_column(column, justify="left" if column in ("domain", "arm") else "right")
    baseline = {r.benchmark: r.tokens for r in results if r.arm == "independent"}
    domains = list(dict.fromkeys(r.benchmark for r in results))
    arms = list(dict.fromkeys(r.arm for r in results))

    def row(label: str, arm: str, tasks: int, broken: int, mismatch: int, sent: int, tokens: int, base: int | None, rounds: str, defective: int) -> None:
        table.add_row(label, arm, f"{tasks:,}", f"{_pct(broken, tasks)} ({broken})", f"{_pct(mismatch, tasks)} ({mismatch})", f"{sent:,}", f"{tokens:,}",
                      f"{tokens / base:.3f}×" if base else "-", rounds, f"{defective:,}")

    for benchmark in domains:
        for r in (r for r in results if r.benchmark == benchmark):
            rounds = "-" if r.review_rounds is None else f"{r.review_rounds}" + ("" if r.converged else " (not converged)")
            row(benchmark, r.arm, r.tasks, len(r.broken), len(r.mismatch), r.characters_sent, r.tokens, baseline.get(benchmark), rounds, r.defective_fields)
        table.add_section()
    totals: dict[str, tuple] = {}
    if len(domains) > 1:
        base_total = sum(baseline.values()) or None
        for arm in arms:
            rs = [r for r in results if r.arm == arm]
            tasks, broken, mismatch = sum(r.tasks for r in rs), sum(len(r.broken) for r in rs), sum(len(r.mismatch) for r in rs)
            tokens = sum(r.tokens for r in rs)
            rounds = "-" if rs[0].review_rounds is None else "max " + str(max(r.review_rounds or 0 for r in rs))
            row("all (pooled)", arm, tasks, broken, mismatch, sum(r.characters_sent for r in rs), tokens, base_total, rounds, sum(r.defective_fields for r in rs))
            totals[arm] = (tasks, broken, mismatch, tokens)
        table.add_section()
        for arm in arms:
            rs = [r for r in results if r.arm == arm]
            mean_b = sum(r.broken_pct for r in rs) / len(rs)
            mean_m = sum(r.mismatch_pct for r in rs) / len(rs)
            ratios = [r.tokens / baseline[r.benchmark] for r in rs if baseline.get(r.benchmark)]
            table.add_row("mean of domains", arm, "", f"{mean_b:.1f}%", f"{mean_m:.1f}%", "", "", f"{sum(ratios) / len(ratios):.3f}×" if ratios else "-", "", "")
    console.print(table)

    events = Table(title="errors the simulated model made (per arm; rates in translators/simulated_model.py)")
    for column in ("domain", "arm", "segments", "entity variants (a)", "ids translated (b)", "placeholders dropped (c)", "numbers reformatted (d)"):
        events.add_column(column, justify="left" if column in ("domain", "arm") else "right")
    for r in results:
        e = r.model_events
        events.add_row(r.benchmark, r.arm, f"{r.segments:,}", f"{e.get('entity_variant', 0):,}", f"{e.get('identifier_translated', 0):,}", f"{e.get('placeholder_dropped', 0):,}", f"{e.get('number_reformatted', 0):,}")
    console.print(events)

    if "full" in arms:
        full = [r for r in results if r.arm == "full"]
        tasks, broken, mismatch = sum(r.tasks for r in full), sum(len(r.broken) for r in full), sum(len(r.mismatch) for r in full)
        base = sum(r.tokens for r in results if r.arm == "independent")
        ratio = f"{sum(r.tokens for r in full) / base:.3f}×" if base else "n/a"
        goal = "" if not base else ("; goal (0% / 0% below the independent arm's tokens) met" if broken == mismatch == 0 and sum(r.tokens for r in full) < base else "; goal NOT met")
        line = (f"full babelflow: {_pct(broken, tasks)} broken references, {_pct(mismatch, tasks)} behaviour mismatch over {tasks:,} tasks "
                f"({len(full)} domain(s)) at {ratio} the independent arm's tokens; review rounds {', '.join(str(r.review_rounds) for r in full)} "
                f"(paper: 2.5% / 0% at 3.35×){goal}")
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
    parser.add_argument("--keep", type=Path, default=None, help="build the variants in DIR and keep them (default: a temporary folder)")
    parser.add_argument("--json", type=Path, default=None, help="also write every result (with per-task reasons) as JSON")
    parser.add_argument("--error-free", action="store_true", help="control run: the simulated model makes no errors (what breaks is the arm's choice of fields)")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    arms = tuple(a for a in args.arms.split(",") if a)
    unknown = set(arms) - set(ARMS)
    if unknown:
        parser.error(f"unknown arm(s) {sorted(unknown)}; use {', '.join(ARMS)}")
    started = time.perf_counter()
    from translators.simulated_model import ERROR_FREE, ErrorRates

    rates = ERROR_FREE if args.error_free else ErrorRates()
    results = run_ablation([d for d in args.domains.split(",") if d], args.lang, args.seed, args.keep, arms, args.max_rounds, rates=rates)
    console = Console(width=200)
    render(results, console, seed=args.seed, language=args.lang, rates_tag=rates.tag())
    console.print(f"wall time {time.perf_counter() - started:.0f} s")
    if args.json:
        import orjson

        args.json.write_bytes(orjson.dumps([r.as_dict() for r in results], option=orjson.OPT_INDENT_2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
