"""The pipeline stages as coarse, restartable units with explicit inputs and small typed results.

Each stage reads and writes files under the state folder (atomically) and returns a record that
names them with their hashes, so Prefect caches on real inputs and passes kilobytes, not IRs.
The same functions run without Prefect (`flows/pipeline/adapt.py`, tests, benchmarks).
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import orjson
from pydantic import Field

from analyzers import ANALYZER_VERSION
from analyzers.analyze import analyze_benchmark
from analyzers.profile import ElementOverride, load_profile
from babelflow.adaptation_run import AdaptationRun
from babelflow.atomic_io import sha256_bytes, sha256_file, write_bytes_atomic
from babelflow.canonical_map import CanonicalMap, load_canonical_map, save_canonical_map
from babelflow.errors import BabelflowError
from babelflow.ir import IRDocument, Record, save_ir
from babelflow.ir_cache import load_ir_cached, remember
from babelflow.llm.costs import CostLedger, save_costs
from babelflow.progress import report
from babelflow.run_lock import one_at_a_time
from babelflow.settings import BabelflowSettings
from babelflow.variant import MANIFEST_NAME, VariantManifest, output_drift
from flows.code_fingerprint import package_fingerprint, stage_code
from flows.components import analysis_lock, analyze_or_reuse, domain_name_for, translator_for
from flows.pipeline.replay_memo import variant_replays
from flows.review.store import ReviewStore
from flows.written_targets import record_written_targets
from source_benchmarks import get_benchmark, open_variant
from source_benchmarks.protocol import ReplayOutcome, SourceBenchmark
from translators.engine import TranslationEngine, TranslationOutcome, TranslationStats, UnitFailure, pack_glossary
from translators.interface import Translator
from translators.memory import TranslationMemory
from translators.pack_checks import check_translations, enforce
from translators.rebuild import rebuild_variant
from translators.units import extract_units
from validators.context import ValidationContext
from validators.findings import FailureSet, Finding, Layer, SuppressedCheck
from validators.model_backends import make_validator_agents
from validators.orchestrator import review_and_merge, run_layer
from validators.probes.behavior import replay_pairs_of
from validators.probes.policy import InferredPolicy, infer_policy
from validators.translation_failures import translation_failed

# Bump when a stage's logic changes: part of its cache key (Prefect's TASK_SOURCE misses helpers).
STAGE_VERSIONS = {"analyze": "2", "translate": "2", "rebuild": "1", "validate": "2", "merge": "1", "evaluate": "1"}


_IR_CACHE: dict[tuple[str, int, int, int], IRDocument] = {}  # (path, inode, size, mtime_ns)
_IR_LOCK = threading.Lock()  # validation layers run in parallel threads
# Once the IR is in memory (~1.7M objects for telecom, with what the process holds by then), it is
# moved out of the cyclic collector's reach (gc.freeze): every full collection triggered by a big
# parse later (a 19 MB tasks file, a DB per replay) walked all of it again, which made telecom's
# rerun stages 1.5-3x slower. Frozen objects are still freed by reference counting.


def read_ir(path: Path, benchmark: str) -> IRDocument:
    """Stages run one after another in one process (flow or bench): parse each IR file once.

    Keyed on the file's identity (path, size, mtime): a rewritten IR is read again. Callers only read it."""
    stat = Path(path).stat()
    key = (str(path), stat.st_ino, stat.st_size, stat.st_mtime_ns)  # atomic writes give a new inode
    with _IR_LOCK:
        if key not in _IR_CACHE:
            _IR_CACHE.clear()  # keep at most one IR (telecom's holds 170k elements)
            _IR_CACHE[key] = load_ir_cached(path, benchmark)
            gc.freeze()
        return _IR_CACHE[key]


def keep_ir(path: Path, document: IRDocument) -> None:
    """An IR the analysis just saved or reused: later stages of this process use it unparsed."""
    stat = Path(path).stat()
    with _IR_LOCK:
        _IR_CACHE.clear()
        _IR_CACHE[(str(path), stat.st_ino, stat.st_size, stat.st_mtime_ns)] = document
        gc.collect()  # the analysis' cyclic garbage, once, before what is left is frozen
        gc.freeze()


def load_overrides(path: Path) -> list[ElementOverride]:
    return [ElementOverride.model_validate(o) for o in orjson.loads(path.read_bytes())] if path.exists() else []


def key_of(*parts: object) -> str:
    return sha256_bytes(orjson.dumps(parts, default=str))


# ---- analyze ---------------------------------------------------------------------------------
class AnalyzeResult(Record):
    ir_path: Path
    ir_sha256: str


def analyze_inputs_key(run: AdaptationRun) -> str:
    bench = get_benchmark(run.benchmark, source_dir=run.source_dir)
    loaded = load_profile(run.benchmark, run.profile, load_overrides(run.paths.overrides))
    # the analyzer's version too: a typing change must not be answered with the cached IR of the old rules
    fingerprints = [f.sha256 for f in bench.fingerprints()]
    return key_of("analyze", STAGE_VERSIONS["analyze"], ANALYZER_VERSION, fingerprints, loaded.sha256)


def stage_analyze(run: AdaptationRun) -> AnalyzeResult:
    bench = get_benchmark(run.benchmark, source_dir=run.source_dir)
    path = run.paths.ir
    loaded_overrides = load_overrides(run.paths.overrides)
    if loaded_overrides:
        with one_at_a_time(analysis_lock(path)):
            ir = analyze_benchmark(bench, load_profile(run.benchmark, run.profile, loaded_overrides))
            save_ir(ir, path)
            remember(path, ir)
    else:
        ir = analyze_or_reuse(bench, run.profile, path, lambda m: None)
    keep_ir(path, ir)
    return AnalyzeResult(ir_path=path, ir_sha256=sha256_file(path))


# ---- translate -------------------------------------------------------------------------------
class TranslateResult(Record):
    targets_path: Path
    targets_sha256: str
    canonical_map_version: str
    translator_id: str
    language_pack_version: str
    stats: TranslationStats
    failures: list[UnitFailure]
    retranslated_units: int = Field(description="units sent to the translator in this execution")


def reviewed_map_key(cmap: CanonicalMap) -> str:
    """Only reviewer/CLDR entries are inputs; translator and entity-policy entries are outputs of this stage."""
    made_here = ("translator", "kept", "localized")
    return key_of(sorted((e.group, e.source, e.target) for e in cmap.entries if e.origin not in made_here))


def translate_inputs_key(run: AdaptationRun, ir_sha: str, reviewed: dict[str, str]) -> str:
    """Keyed on the *resolved* translator's id (with `auto`, installing or upgrading Apertium
    changes the translator, so the cached translation must not be reused) and the pack: its version
    and its content (a glossary fix without a version bump is an input too)."""
    cmap = load_canonical_map(run.paths.canonical_map, run.benchmark, run.language)
    parts = (
        run.benchmark,
        run.language,
        run.translator_id,
        run.pack_version,
        sha256_bytes(run.pack.model_dump_json().encode()),
        ir_sha,
        reviewed_map_key(cmap),
        sorted(reviewed.items()),
        sorted((name, rendering.value) for name, rendering in run.entity_overrides.items()),
    )
    return key_of("translate", STAGE_VERSIONS["translate"], *parts)


def costs_path(settings: BabelflowSettings, benchmark: str, language: str, stage: str) -> Path:
    return settings.layout.costs(benchmark, language, stage)


def translate_ir(
    run: AdaptationRun,
    translator: Translator,
    ir: IRDocument,
    reviewed: dict[str, str],
    forget: list[str],
    progress: Callable[[int, int], None] | None,
) -> tuple[TranslationOutcome, CanonicalMap]:
    """Translate the IR's units (canonical terms first), run the pack's release checks, then save
    the canonical map: nothing is written for a run the checks refuse. `forget`: element ids whose units are translated
    again (confirmed translation findings)."""
    cmap = load_canonical_map(run.paths.canonical_map, run.benchmark, run.language)
    engine = TranslationEngine(
        translator, run.language, TranslationMemory(run.paths.memory), glossary=pack_glossary(run.pack, run.benchmark)
    )
    if forget:
        engine.memory.forget(engine.memory_keys(ir, cmap, set(forget)))
        reviewed = release_forgotten(run, ir, reviewed, forget)
    renderings = run.entity_renderings(ir.entity_classes)
    outcome = engine.translate(ir, cmap, reviewed=reviewed, progress=progress, renderings=renderings)
    try:
        enforce(run.pack, ir, outcome.targets)  # release checks before anything is written, the map included
    except BabelflowError as exc:
        raise release_check_error(run, ir, outcome, exc) from None
    save_canonical_map(cmap, run.paths.canonical_map)  # a refused run leaves it as it was (its terms stay in the TM)
    return outcome, cmap


def release_forgotten(
    run: AdaptationRun, ir: IRDocument, reviewed: dict[str, str], forget: list[str]
) -> dict[str, str]:
    """A confirmed translation finding without a replacement on a human text (an import, a correction)
    sends the unit back to the translator: its reviewed text would otherwise settle it again, and the
    finding come back unchanged round after round (issue 25). The reviewed map is rewritten without
    the unit's fields (the flow holds the run lock); a replacement text is `babelflow correct --finding`."""
    hit = set(forget) & reviewed.keys()
    if not hit:
        return reviewed
    _, free = extract_units(ir)
    dropped = {e for unit in free if hit & set(unit.element_ids) for e in unit.element_ids}
    kept = {k: v for k, v in reviewed.items() if k not in dropped}
    write_bytes_atomic(run.paths.reviewed, orjson.dumps(kept))
    return kept


HUMAN_ORIGINS = ("reviewed", "canonical map (reviewer)")


def release_check_error(
    run: AdaptationRun, ir: IRDocument, outcome: TranslationOutcome, error: BabelflowError
) -> BabelflowError:
    """The pack's release-check failure, per unit (its id, who made its text, each problem once) with the
    fix that fits: a human's text (a correction, an import) is corrected again; a draft follows the pack."""
    elements = {e.id: e for e in ir.elements}
    canonical, free = extract_units(ir)
    failing: list[tuple[str, str, list[str]]] = []
    for unit in canonical + free:
        fields = [elements[i] for i in unit.element_ids if i in outcome.targets]
        found = check_translations(run.pack, ir.model_copy(update={"elements": fields}), outcome.targets)
        if found:
            failing.append((unit.key, outcome.unit_origins.get(unit.key, "?"), list(dict.fromkeys(found))))
    if not failing:  # the pack itself fails (check_pack): its own message says what
        return error
    human = [key for key, origin, _ in failing if origin in HUMAN_ORIGINS]
    lines = [f"unit {key} ({origin}): " + "; ".join(problems[:2]) for key, origin, problems in failing[:20]]
    more = f"\n  … and {len(failing) - 20} more unit(s)" if len(failing) > 20 else ""
    where = f"babelflow correct {run.benchmark} --lang {run.language} --id UNIT --text …"
    fixes = []
    if human:
        fixes.append(f"correct the {len(human)} human text(s) ({', '.join(human[:3])}…): `{where}`")
    if len(human) < len(failing):
        fixes.append(
            f"for the drafts: fix language_packs/{run.language}.toml (glossary, forbidden renderings) or correct them"
            f" (`{where}`); `babelflow units {run.benchmark} --lang {run.language} --id UNIT` shows one"
        )
    return BabelflowError(
        f"Language pack {run.pack.tag} {run.pack_version}: release checks failed in {len(failing)} unit(s);"
        f" nothing was written:\n  " + "\n  ".join(lines) + more,
        field="language pack",
        fix="; ".join(fixes),
    )


def stage_translate(run: AdaptationRun, ir_path: Path, reviewed: dict[str, str], forget: list[str]) -> TranslateResult:
    ledger = CostLedger()
    translator = translator_for(run.translator_spec, run.language, run.pack, costs=ledger)
    ir = read_ir(ir_path, run.benchmark)
    progress = lambda done, total: report(f"translation units: {run.language}", done, total)  # noqa: E731
    outcome, cmap = translate_ir(run, translator, ir, reviewed, forget, progress)
    if ledger.report().rows:
        save_costs(ledger.report(), costs_path(run.settings, run.benchmark, run.language, "translate"))
    data = orjson.dumps(outcome.targets, option=orjson.OPT_SORT_KEYS)
    write_bytes_atomic(run.paths.targets, data)
    return TranslateResult(
        targets_path=run.paths.targets,
        targets_sha256=sha256_bytes(data),
        canonical_map_version=cmap.version(),
        translator_id=translator.translator_id,
        language_pack_version=run.pack_version,
        stats=outcome.stats,
        failures=outcome.failures,
        # units, as `babelflow units` and the report count them (several units may share one segment sent)
        retranslated_units=outcome.stats.units_by_origin.get(outcome.stats.translator_id, 0),
    )


# ---- rebuild ---------------------------------------------------------------------------------
class RebuildResult(Record):
    variant_dir: Path
    manifest_sha256: str


def rebuild_into(
    bench: SourceBenchmark,
    ir: IRDocument,
    targets: dict[str, str],
    variant: Path,
    *,
    language: str,
    canonical_map_version: str,
    translator_id: str,
    failed_units: int,
    language_pack_version: str,
    ir_sha256: str | None = None,
    canonical_map: CanonicalMap | None = None,
) -> VariantManifest:
    """Write the variant (only outputs whose inputs changed) under the benchmark's domain name for the language."""
    return rebuild_variant(
        bench,
        ir,
        targets,
        variant,
        language=language,
        domain_name=domain_name_for(bench.id, language),
        canonical_map_version=canonical_map_version,
        translator_id=translator_id,
        failed_units=failed_units,
        language_pack_version=language_pack_version,
        ir_sha256=ir_sha256,
        canonical_map=canonical_map,
    )


def stage_rebuild(run: AdaptationRun, ir_path: Path, translated: TranslateResult) -> RebuildResult:
    bench = get_benchmark(run.benchmark, source_dir=run.source_dir)
    ir = read_ir(ir_path, run.benchmark)
    targets = orjson.loads(translated.targets_path.read_bytes())
    variant = run.paths.variant
    rebuild_into(
        bench,
        ir,
        targets,
        variant,
        language=run.language,
        canonical_map_version=translated.canonical_map_version,
        translator_id=translated.translator_id,
        failed_units=len(translated.failures),
        language_pack_version=translated.language_pack_version,
        ir_sha256=sha256_file(ir_path),
        canonical_map=load_canonical_map(run.paths.canonical_map, run.benchmark, run.language),
    )
    record_written_targets(run, targets)
    return RebuildResult(variant_dir=variant, manifest_sha256=sha256_file(variant / MANIFEST_NAME))


def variant_intact(variant: Path) -> bool:
    """All files the manifest lists exist with their recorded hashes (else cached results are stale)."""
    try:
        drift = output_drift(variant)
    except BabelflowError:
        return False
    return not drift.missing and not drift.edited


# ---- validate --------------------------------------------------------------------------------
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
    cmap = load_canonical_map(cmap_path, run.benchmark, run.language) if cmap_path.exists() else None
    return ValidationContext(bench, variant, read_ir(ir_path, run.benchmark), run.language, cmap, pack=run.pack)


def stage_integrity(run: AdaptationRun, ir_path: Path, variant: Path) -> LayerResult:
    suppressed: list[SuppressedCheck] = []
    findings = run_layer(Layer.INTEGRITY, _context(run, ir_path, variant), suppressed)
    return LayerResult(layer=Layer.INTEGRITY, findings=findings, suppressed=suppressed)


_POLICIES: dict[tuple, InferredPolicy] = {}
_POLICY_LOCKS: dict[tuple, threading.Lock] = {}


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
    with _IR_LOCK:
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


def translation_failures(translated: TranslateResult, ir_path: Path, benchmark: str) -> LayerResult:
    """Units the translator could not deliver intact (e.g. a dropped placeholder) become findings,
    so the review loop can route them back (confirm → that unit is translated again)."""
    by_id = read_ir(ir_path, benchmark).by_id() if translated.failures else {}
    findings = translation_failed(translated.failures, by_id)
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
        agents = make_validator_agents(run.validators, costs=ledger)

    def own_context() -> ValidationContext:
        assert ir_path is not None and variant is not None  # agents exist only with both
        return replace(_context(run, ir_path, variant), variant_bench=open_variant(run.benchmark, variant))

    merged = review_and_merge(run.benchmark, run.language, probe_findings, suppressed, agents, own_context)
    if ledger.report().rows:
        save_costs(ledger.report(), costs_path(run.settings, run.benchmark, run.language, "validate"))
    return ReviewStore(run.paths.review_dir).open_findings(merged)
