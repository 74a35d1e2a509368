"""The validation stages: the integrity layer (which suppresses what a broken file makes moot), each
other layer on the shared policy and context, the translation failures as findings, and their merge
with the run's model-backed validators."""

from __future__ import annotations

import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

import orjson
from pydantic import Field

from babelflow.adaptation_run import AdaptationRun
from babelflow.atomic_io import sha256_file, write_bytes_atomic
from babelflow.canonical_map import load_canonical_map, map_exists
from babelflow.ir import Record
from babelflow.llm.costs import CostLedger, save_costs
from babelflow.settings import BabelflowSettings
from flows.code_fingerprint import package_fingerprint, stage_code
from flows.pipeline.adoption_findings import with_adoption_repairs
from flows.pipeline.replay_memo import variant_replays
from flows.pipeline.stage_io import STAGE_VERSIONS, costs_path, key_of, read_ir
from flows.pipeline.stages import TranslateResult
from flows.review.store import ReviewStore
from source_benchmarks import get_benchmark, open_variant
from source_benchmarks.protocol import ReplayOutcome
from translators.adoption import adopted_renderings
from translators.outcomes import UnitFailure
from validators.context import ValidationContext
from validators.findings import FailureSet, Finding, Layer, SuppressedCheck
from validators.model_backends import make_validator_agents
from validators.orchestrator import review_and_merge, run_layer
from validators.probes.behavior import replay_pairs_of
from validators.probes.policy import InferredPolicy, infer_policy
from validators.translation_failures import translation_failed


class LayerResult(Record):
    layer: Layer
    findings: list[Finding]
    suppressed: list[SuppressedCheck] = Field(default_factory=list)
    tasks_replayed: int = Field(default=0, description="tasks compared again (their inputs changed since the last run)")
    variant_replays_run: int = Field(
        default=0,
        description="of those, variant replays actually executed (the rest reused: flows/pipeline/replay_memo.py)",
    )


def _context(run: AdaptationRun, ir_path: Path, variant: Path) -> ValidationContext:
    """What the probes read: the source, the variant, the IR, the run's canonical map and the run's pack."""
    bench = get_benchmark(run.benchmark, source_dir=run.source_dir)
    cmap_path = run.paths.canonical_map
    cmap = load_canonical_map(cmap_path, run.benchmark, run.language) if map_exists(cmap_path) else None
    return ValidationContext(
        bench,
        variant,
        read_ir(ir_path, run.benchmark),
        run.language,
        cmap,
        pack=run.pack,
        adopted_renderings=adopted_renderings(run.paths.adopted),
    )


def stage_integrity(run: AdaptationRun, ir_path: Path, variant: Path) -> LayerResult:
    suppressed: list[SuppressedCheck] = []
    findings = run_layer(Layer.INTEGRITY, _context(run, ir_path, variant), suppressed)
    return LayerResult(layer=Layer.INTEGRITY, findings=findings, suppressed=suppressed)


_POLICIES: dict[tuple, InferredPolicy] = {}
_POLICY_LOCKS: dict[tuple, threading.Lock] = {}
_POLICY_LOCKS_GUARD = threading.Lock()  # validation layers run in parallel threads


def share_policy(ctx: ValidationContext, ir_path: Path, variant: Path) -> InferredPolicy:
    """The rendering policy inferred once per IR and variant content, not once per layer.

    Consistency and behaviour each get their own context (they run in parallel threads) and both
    read the policy, a function of the IR and the variant's files only (telecom: ~3 s). The key is
    the IR file's identity and the content of every file in the variant folder (hashed, not taken
    from the manifest: a hand-edited variant must not reuse a stale policy): the second layer waits
    for the first one's result instead of computing it again."""
    stat = Path(ir_path).stat()
    files = sorted(p for p in Path(variant).rglob("*") if p.is_file())
    key = (
        str(ir_path),
        stat.st_ino,
        stat.st_size,
        stat.st_mtime_ns,
        str(variant),
        tuple((str(p), sha256_file(p)) for p in files),
    )
    with _POLICY_LOCKS_GUARD:
        lock = _POLICY_LOCKS.setdefault(key, threading.Lock())
    with lock:
        if key not in _POLICIES:
            if len(_POLICIES) >= 4:  # a few languages at once; the oldest go
                oldest = next(iter(_POLICIES))
                _POLICIES.pop(oldest)
                _POLICY_LOCKS.pop(oldest, None)
            _POLICIES[key] = infer_policy(ctx)
        return _POLICIES[key]


def stage_layer(
    run: AdaptationRun, layer: Layer, ir_path: Path, variant: Path, suppressed: list[SuppressedCheck]
) -> LayerResult:
    """Consistency, fidelity or behaviour: the orchestrator's layer; behaviour per task, cached."""
    ctx = _context(run, ir_path, variant)
    if layer is Layer.CONSISTENCY or (
        layer is Layer.BEHAVIOR and not any(s.layer is Layer.BEHAVIOR for s in suppressed)
    ):
        ctx = replace(ctx, inferred_policy=share_policy(ctx, ir_path, variant))
    if layer is Layer.BEHAVIOR:
        return _behavior(run, ctx, suppressed)
    return LayerResult(layer=layer, findings=run_layer(layer, ctx, list(suppressed)))


def _raw_tasks(ctx: ValidationContext) -> tuple[dict[str, Any], dict[str, Any]]:
    """(source, variant) task id -> its raw data, what a task's behaviour key hashes.

    Raw task JSON, not model dumps: tau2 messages get a fresh timestamp each time they are built.
    A family whose tasks live in code (AgentDojo) has no tasks file: every task then reads only
    what all share (data files, the code overlay), which the shared key already covers."""
    tasks_specs = [s for s in ctx.specs if s.role.value == "tasks"]
    if not tasks_specs:
        ids = ctx.source.task_ids(None)
        return dict.fromkeys(ids, "code"), dict.fromkeys(ids, "code")
    source_tasks: dict[str, Any] = {}
    target_tasks: dict[str, Any] = {}
    for spec in tasks_specs:  # one tasks file (τ²), or one file per task (τ³ banking: holds_list False)
        for document, into in ((ctx.source_document(spec), source_tasks), (ctx.target_document(spec), target_tasks)):
            items = document if isinstance(document, list) and spec.holds_list is not False else [document]
            into.update((str(t["id"]), t) for t in items if isinstance(t, dict) and "id" in t)
    return source_tasks, target_tasks


def _behavior(run: AdaptationRun, ctx: ValidationContext, suppressed: list[SuppressedCheck]) -> LayerResult:
    """Replay only tasks whose inputs changed since the last run (per-task cache on content hashes)."""
    if any(s.layer is Layer.BEHAVIOR for s in suppressed):
        return LayerResult(layer=Layer.BEHAVIOR, findings=[])
    settings, language = run.settings, run.language
    ctx = replace(ctx, variant_bench=open_variant(run.benchmark, ctx.variant_root))
    cache_path = run.paths.behavior_cache
    cache = orjson.loads(cache_path.read_bytes()) if cache_path.exists() else {}
    shared = key_of(
        [
            sha256_file(ctx.target_path(s))
            for s in ctx.specs
            if s.role.value not in ("tasks", "task_split")
            and s.format.value != "python"
            and ctx.target_path(s).exists()
        ],
        sha256_file(ctx.variant_root / "babelflow_code_overlay.json")
        if (ctx.variant_root / "babelflow_code_overlay.json").exists()
        else "",
        [f.sha256 for f in ctx.source.fingerprints()],
        STAGE_VERSIONS["validate"],
        stage_code("validate"),  # a changed probe judges every task again
    )
    source_tasks, target_tasks = _raw_tasks(ctx)
    keys = {task_id: key_of(shared, raw, target_tasks.get(task_id, "missing")) for task_id, raw in source_tasks.items()}
    stale = [t for t, k in keys.items() if cache.get(t, {}).get("key") != k]
    replayed = len(stale)
    fresh = []
    if stale:
        present = [t for t in stale if t in target_tasks]
        try:  # variant replays reused where what they read is unchanged (flows/pipeline/replay_memo.py)
            target_pairs, replayed = variant_replays(
                settings, ctx.variant_bench, target_tasks, present, f"behaviour replays: {language} variant"
            )
        except Exception:  # the probe replays again and reports the crash as its finding
            target_pairs, replayed = {}, -1
        given = replace(
            ctx,
            task_ids=stale,
            source_pairs=source_replays(settings, ctx.source, stale),
            target_pairs=target_pairs if replayed >= 0 else None,
        )
        fresh = run_layer(Layer.BEHAVIOR, given, list(suppressed))
        replayed = replayed if replayed >= 0 else len(stale)
    by_task: dict[str, list] = {t: [] for t in stale}
    for finding in fresh:
        by_task.setdefault(finding.task_id or "", []).append(finding.model_dump(mode="json"))
    for task_id in stale:
        cache[task_id] = {"key": keys[task_id], "findings": by_task.get(task_id, [])}
    write_bytes_atomic(cache_path, orjson.dumps(cache))
    findings = [Finding.model_validate(f) for t in keys for f in cache[t]["findings"]]
    return LayerResult(layer=Layer.BEHAVIOR, findings=findings, tasks_replayed=len(stale), variant_replays_run=replayed)


_SOURCE_REPLAYS: dict[str, dict[str, tuple]] = {}
_SOURCE_REPLAYS_LOCK = threading.Lock()


def source_replays(settings: BabelflowSettings, bench, task_ids: list[str]) -> dict[str, tuple]:
    """The source's (golden, do-nothing) outcomes, replayed once per source content for every
    language and rerun: kept in memory and in <state>/replays/<benchmark>/<source hash>.json."""
    source_key = key_of(
        [f.sha256 for f in bench.fingerprints()],
        STAGE_VERSIONS["validate"],
        type(bench).__module__,
        package_fingerprint("source_benchmarks"),  # the replay code is part of what a replay says
    )
    path = settings.layout.replays(bench.id) / f"{source_key}.json"
    with _SOURCE_REPLAYS_LOCK:  # languages adapted at once in one process replay the source once
        known = _SOURCE_REPLAYS.setdefault(str(path), {})
        if not known and path.exists():
            try:
                for task_id, pair in orjson.loads(path.read_bytes()).items():
                    known[task_id] = tuple(ReplayOutcome.model_validate(o) for o in pair)
            except (orjson.JSONDecodeError, ValueError):
                known.clear()  # a damaged cache is replayed again, never trusted
        missing = [t for t in task_ids if t not in known]
        if missing:
            known.update(replay_pairs_of(bench, missing, "behaviour replays: source"))
            write_bytes_atomic(
                path, orjson.dumps({t: [o.model_dump(mode="json") for o in pair] for t, pair in known.items()})
            )
        return {t: known[t] for t in task_ids}


def translation_failures(
    translated: TranslateResult, ir_path: Path, benchmark: str, refused: list[UnitFailure] | None = None
) -> LayerResult:
    """Units the translator could not deliver intact (e.g. a dropped placeholder) become findings,
    so the review loop can route them back (confirm → that unit is translated again); so do human
    texts set aside (stored ones the release checks refuse, `refused` review-form replacements)."""
    failed = translated.failures + translated.set_aside + (refused or [])
    by_id = read_ir(ir_path, benchmark).by_id() if failed else {}
    findings = translation_failed(failed, by_id)
    return LayerResult(layer=Layer.FIDELITY, findings=findings)


# ---- merge -----------------------------------------------------------------------------------
def stage_merge(
    run: AdaptationRun, layers: list[LayerResult], ir_path: Path | None = None, variant: Path | None = None
) -> FailureSet:
    """Union of the probes' findings and, with the run's model-backed validators, each agent's
    isolated review (the orchestrator's merge, as `babelflow validate` does it)."""
    suppressed = [s for layer in layers for s in layer.suppressed]
    probe_findings = [f for layer in layers for f in layer.findings]
    agents = None
    ledger = CostLedger()
    if run.validators and ir_path is not None and variant is not None:
        memory = run.settings.layout.agent_memory(run.benchmark, run.language)
        agents = make_validator_agents(run.validators, costs=ledger, memory_dir=memory)

    def own_context() -> ValidationContext:
        assert ir_path is not None and variant is not None  # agents exist only with both
        return replace(_context(run, ir_path, variant), variant_bench=open_variant(run.benchmark, variant))

    merged = review_and_merge(run.benchmark, run.language, probe_findings, suppressed, agents, own_context)
    if ledger.report().rows:
        save_costs(ledger.report(), costs_path(run.settings, run.benchmark, run.language, "validate"))
    if ir_path is not None:  # what `babelflow adopt` repaired is reviewed like any finding
        merged = with_adoption_repairs(merged, run.paths.adopted, read_ir(ir_path, run.benchmark))
    return ReviewStore(run.paths.review_dir).open_findings(merged)
