"""The pipeline stages as coarse, restartable units with explicit inputs and small typed results.

Each stage reads and writes files under the state folder (atomically) and returns a record that
names them with their hashes, so Prefect caches on real inputs and passes kilobytes, not IRs.
The same functions run without Prefect (`flows/pipeline/adapt.py`, tests, benchmarks).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import orjson
from pydantic import Field

from analyzers import ANALYZER_VERSION
from analyzers.analyze import analyze_benchmark
from analyzers.profile import load_profile
from babelflow.adaptation_run import AdaptationRun
from babelflow.atomic_io import sha256_bytes, sha256_file, write_bytes_atomic
from babelflow.canonical_map import CanonicalMap, load_canonical_map, save_canonical_map
from babelflow.errors import BabelflowError
from babelflow.ir import IRDocument, Record, save_ir
from babelflow.ir_cache import remember
from babelflow.llm.costs import CostLedger, save_costs
from babelflow.progress import report
from babelflow.run_lock import one_at_a_time
from babelflow.variant import MANIFEST_NAME, VariantBuild, output_drift
from flows.components import analysis_lock, analyze_or_reuse, domain_name_for
from flows.pipeline.stage_io import STAGE_VERSIONS, costs_path, keep_ir, key_of, load_overrides, read_ir
from flows.written_targets import record_written_targets
from source_benchmarks import get_benchmark
from translators.adoption import adoption_key, load_adoption
from translators.engine import TranslationEngine
from translators.human_texts import HUMAN_ORIGINS, failing_units, translate_setting_aside
from translators.interface import Translator
from translators.memory import TranslationMemory
from translators.outcomes import TranslationOutcome, TranslationStats, UnitFailure
from translators.pack_checks import enforce
from translators.rebuild import rebuild_variant
from translators.spec import make_translator
from translators.unit_protection import pack_glossary
from translators.units import extract_units


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
    set_aside: list[UnitFailure] = Field(default_factory=list, description="human texts the release checks refuse")
    retranslated_units: int = Field(description="units sent to the translator in this execution")


def reviewed_map_key(cmap: CanonicalMap) -> str:
    """Only reviewer/CLDR entries are inputs; translator and entity-policy entries are outputs of this stage."""
    made_here = ("translator", "kept", "localized")
    return key_of(sorted((e.group, e.source, e.target) for e in cmap.entries if e.origin not in made_here))


def rendering_inputs(run: AdaptationRun, ir_sha: str) -> tuple:
    """What any rendering of the run's units depends on: the benchmark and language, the resolved translator,
    the pack (version and content), the IR and the map's reviewed entries. Shared by the terms and translate
    stages' cache keys."""
    cmap = load_canonical_map(run.paths.canonical_map, run.benchmark, run.language)
    return (
        run.benchmark,
        run.language,
        run.translator_id,
        run.pack_version,
        sha256_bytes(run.pack.model_dump_json().encode()),
        ir_sha,
        reviewed_map_key(cmap),
    )


def entity_override_inputs(run: AdaptationRun) -> list[tuple[str, str]]:
    return sorted((name, rendering.value) for name, rendering in run.entity_overrides.items())


def translate_inputs_key(run: AdaptationRun, ir_sha: str, reviewed: dict[str, str]) -> str:
    """Keyed on the *resolved* translator's id (with `auto`, installing or upgrading Apertium
    changes the translator, so the cached translation must not be reused) and the pack: its version
    and its content (a glossary fix without a version bump is an input too)."""
    parts = (
        *rendering_inputs(run, ir_sha),
        sorted(reviewed.items()),
        entity_override_inputs(run),
        adoption_key(run.paths.adopted),
    )
    return key_of("translate", STAGE_VERSIONS["translate"], *parts)


def translate_ir(
    run: AdaptationRun,
    translator: Translator,
    ir: IRDocument,
    reviewed: dict[str, str],
    forget: list[str],
    progress: Callable[[int, int], None] | None,
    *,
    applying: frozenset[str] = frozenset(),
) -> tuple[TranslationOutcome, CanonicalMap]:
    """Translate the IR's units (canonical terms first), run the pack's release checks, then save
    the canonical map: nothing is written for a run the checks refuse. `forget`: element ids whose units are translated
    again (confirmed translation findings).

    A stored human text the release checks refuse (a hand edit, a correction a newer pack fails) does
    not stop the run: when only such texts fail, they are set aside (the unit keeps its machine text)
    and `outcome.set_aside` names them for the review queue. The texts being applied now (`applying`:
    a correction's or an import's units) are refused instead, so their command rolls back."""
    cmap = load_canonical_map(run.paths.canonical_map, run.benchmark, run.language)
    engine = TranslationEngine(
        translator, run.language, TranslationMemory(run.paths.memory), glossary=pack_glossary(run.pack, run.benchmark)
    )
    if forget:
        engine.memory.forget(engine.memory_keys(ir, cmap, set(forget)))
        reviewed = release_forgotten(run, ir, reviewed, forget)
    renderings = run.entity_renderings(ir.entity_classes)
    outcome = translate_setting_aside(
        engine,
        run.pack,
        ir,
        cmap,
        reviewed=reviewed,
        renderings=renderings,
        progress=progress,
        applying=applying,
        adoption=load_adoption(run.paths.adopted),
    )
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


def release_check_error(
    run: AdaptationRun, ir: IRDocument, outcome: TranslationOutcome, error: BabelflowError
) -> BabelflowError:
    """The pack's release-check failure, per unit (its id, who made its text, each problem once) with the
    fix that fits: a human's text (a correction, an import) is corrected again; a draft follows the pack."""
    failing = failing_units(run.pack, ir, outcome)
    if not failing:  # the pack itself fails (check_pack): its own message says what
        return error
    human = [u.unit_key for u in failing if u.origin in HUMAN_ORIGINS]
    lines = [f"unit {u.unit_key} ({u.origin}): " + "; ".join(u.failure.problems[:2]) for u in failing[:20]]
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
    translator = make_translator(run.request.translator, run.language, run.pack, costs=ledger)
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
        set_aside=outcome.set_aside,
        # units, as `babelflow units` and the report count them (several units may share one segment sent)
        retranslated_units=outcome.stats.units_by_origin.get(outcome.stats.translator_id, 0),
    )


# ---- rebuild ---------------------------------------------------------------------------------
class RebuildResult(Record):
    variant_dir: Path
    manifest_sha256: str


def variant_build(
    run: AdaptationRun, translator_id: str, canonical_map_version: str, failed_units: int, pack_version: str
) -> VariantBuild:
    """What the rebuild records in the manifest: the variant registers under the benchmark's domain name
    for the language, and its request is stored for every later rebuild of the run."""
    return VariantBuild(
        language=run.language,
        domain_name=domain_name_for(run.benchmark, run.language),
        canonical_map_version=canonical_map_version,
        translator_id=translator_id,
        failed_units=failed_units,
        language_pack_version=pack_version,
        # where the variant is (its folder, its project) is not part of it: a variant may move
        request=run.request.model_copy(update={"out": None, "project_root": None}),
    )


def stage_rebuild(run: AdaptationRun, ir_path: Path, translated: TranslateResult) -> RebuildResult:
    bench = get_benchmark(run.benchmark, source_dir=run.source_dir)
    ir = read_ir(ir_path, run.benchmark)
    targets = orjson.loads(translated.targets_path.read_bytes())
    variant = run.paths.variant
    build = variant_build(
        run,
        translated.translator_id,
        translated.canonical_map_version,
        len(translated.failures),
        translated.language_pack_version,
    )
    rebuild_variant(
        bench,
        ir,
        targets,
        variant,
        build,
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
