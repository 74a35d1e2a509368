"""One language's review rounds: analyze → translate → rebuild → validate → merge, the round's artifacts
(failure report, findings, review material), the reviewers' decisions applied, then sign-off."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
from prefect import get_run_logger
from prefect.artifacts import create_markdown_artifact, create_table_artifact
from prefect.exceptions import FlowPauseTimeout
from prefect.flow_runs import pause_flow_run
from prefect.futures import wait
from prefect.runtime import flow_run as current_flow_run
from prefect.settings import get_current_settings

from analyzers.profile import ElementOverride
from babelflow.adaptation_run import AdaptationRun
from babelflow.atomic_io import write_bytes_atomic
from babelflow.errors import BabelflowError
from babelflow.ir import PreserveReason, TranslationType
from babelflow.llm.costs import against_estimate, publish_costs
from babelflow.run_lock import corrections_window
from babelflow.settings import BabelflowSettings
from flows.pipeline import stage_io, stages, validation_stages
from flows.pipeline.flow_results import AdaptFlowResult, FlowStatus, RoundRecord, StageRun
from flows.pipeline.reporting import failure_report_markdown, failure_table_rows, units_made_by
from flows.pipeline.shared_run import checkpoint, portable, provider_slots
from flows.pipeline.stage_tasks import (
    analyze_task,
    call_stage,
    integrity_task,
    layer_task,
    merge_task,
    rebuild_task,
    stored,
    terms_task,
    translate_task,
)
from flows.pipeline.terms_stage import terms_inputs_key
from flows.review.acceptance import UnitVerdict
from flows.review.forms import ask_for_review, form_verdicts, signoff_form
from flows.review.material import plan_line, review_material_markdown, signoff_material_markdown
from flows.review.named_pause import pause_named
from flows.review.replacements import apply_replacements
from flows.review.signoff import Signer, SignOffSample, signing_tier, signoff_state, void_stale_signoff
from flows.review.signoff_log import SignoffLog, conclude, deferred, rejected_unit_findings
from flows.review.signoff_sample import sign_sample
from flows.review.store import ReviewStore
from flows.review.terms_review import settle_terms
from flows.review.workbench import Workbench
from translators.outcomes import UnitFailure
from validators.findings import FailureSet, Layer, Severity


def _one_round(
    run: AdaptationRun,
    reviewed: dict[str, str],
    forget: list[str],
    record: RoundRecord,
    refused: list[UnitFailure] | None = None,
) -> tuple[FailureSet, Path]:
    """`refused`: the review form's replacements the checks refused, findings of this round."""
    paths = run.paths
    analysis, cached = call_stage(
        analyze_task.with_options(refresh_cache=not paths.ir.exists()),
        cache_key=stages.analyze_inputs_key(run),
        run=run,
    )
    # a cached result names the folder of the worker that made it: this run's own paths hold the same files
    analysis = analysis.model_copy(update={"ir_path": paths.ir})
    record.stages.append(StageRun(stage="analyze", cached=cached))
    terms, cached = call_stage(
        terms_task.with_options(refresh_cache=not paths.term_base.exists()),
        cache_key=terms_inputs_key(run, analysis.ir_sha256),
        run=run,
        ir_path=analysis.ir_path,
    )
    record.stages.append(StageRun(stage="terms", cached=cached))
    record.doubtful_terms = terms.doubtful
    record.term_decisions = settle_terms(run, record.round)  # the policy: wait for a reviewer, or go on
    # confirmed translation findings are cumulative inputs: the memory they purged stays purged
    history = sorted(
        f"{d.finding_id}@{d.at}"
        for d in ReviewStore(paths.review_dir).decisions()
        if d.decision == "confirm" and d.route == "translation"
    )
    translate_key = stages.translate_inputs_key(run, analysis.ir_sha256, reviewed) + stage_io.key_of(history)
    translated, cached = call_stage(
        translate_task.with_options(refresh_cache=not paths.targets.exists()),
        cache_key=translate_key,
        run=run,
        ir_path=analysis.ir_path,
        reviewed=reviewed,
        forget=forget,
    )
    translated = translated.model_copy(update={"targets_path": paths.targets})
    record.stages.append(StageRun(stage="translate", cached=cached))
    record.retranslated_units = 0 if cached else translated.retranslated_units
    record.segments_sent = 0 if cached else translated.stats.segments_sent
    record.units_by_origin = dict(translated.stats.units_by_origin)
    rebuild_key = stage_io.key_of(
        analysis.ir_sha256,
        translated.targets_sha256,
        translated.canonical_map_version,
        portable(paths.variant, run.settings),
    )
    rebuilt, cached = call_stage(
        rebuild_task.with_options(refresh_cache=not stages.variant_intact(paths.variant)),
        cache_key=rebuild_key,
        run=run,
        ir_path=analysis.ir_path,
        translated=translated,
    )
    rebuilt = rebuilt.model_copy(update={"variant_dir": paths.variant})
    record.stages.append(StageRun(stage="rebuild", cached=cached))
    if voided := void_stale_signoff(paths.variant, paths.review_dir):  # a rebuild that changed signed files
        get_run_logger().warning(voided)
    base = stage_io.key_of(analysis.ir_sha256, rebuilt.manifest_sha256, translated.canonical_map_version)
    ir_path, variant = analysis.ir_path, rebuilt.variant_dir
    integrity, cached = call_stage(
        integrity_task, cache_key=base + "-integrity", run=run, ir_path=ir_path, variant=variant
    )
    record.stages.append(StageRun(stage="validate:integrity", cached=cached))
    futures = {
        layer: stored(layer_task).submit(
            cache_key=f"{base}-{layer.value}",
            run=run,
            layer=layer,
            ir_path=ir_path,
            variant=variant,
            suppressed=integrity.suppressed,
            return_state=False,
        )
        for layer in (Layer.CONSISTENCY, Layer.FIDELITY, Layer.BEHAVIOR)
    }
    with provider_slots(run, "validate"):
        wait(list(futures.values()))
    checkpoint()
    layers = [integrity, validation_stages.translation_failures(translated, ir_path, run.benchmark, refused or [])]
    for layer, future in futures.items():
        layers.append(future.result())  # raises on failure
        record.stages.append(StageRun(stage=f"validate:{layer.value}", cached=future.state.name == "Cached"))
        if layer is Layer.BEHAVIOR and future.state.name != "Cached":
            record.tasks_replayed = layers[-1].tasks_replayed
    failures = merge_task(run=run, layers=layers, ir_path=ir_path, variant=variant)
    _publish_costs(run.settings, run.benchmark, run.language)
    record.findings = len(failures.findings)
    return failures, rebuilt.variant_dir


def _publish_costs(settings: BabelflowSettings, benchmark: str, language: str) -> None:
    """Token usage of model translators/validators (per stage, language, provider; USD when priced) as a table
    artifact, and beside it the `--estimate` made for this run, if one was."""
    report = stage_io.flow_costs(settings, benchmark, language)
    if not report.rows:
        return
    key = artifact_key(benchmark, language)
    publish_costs(report, key=f"{key}-costs")
    estimate = stage_io.matching_estimate(settings, benchmark, language, report)
    if estimate is not None:
        create_table_artifact(
            key=f"{key}-estimate",
            table=against_estimate(estimate, report),
            description="the --estimate made before the run, beside what the run spent",
        )


def artifact_key(benchmark: str, language: str) -> str:
    """Prefect artifact keys allow lowercase letters, digits and dashes only (a domain package's
    id `tau2-pkg:acme_tasks` holds a colon and an underscore)."""
    return re.sub(r"[^a-z0-9]+", "-", f"{benchmark}-{language}".lower()).strip("-")


def _ui_url(path: str) -> str | None:
    """A UI address for the run's API (None on Prefect's ephemeral API, which has no lasting UI)."""
    ui = get_current_settings().ui_url
    return f"{ui.rstrip('/')}/{path}" if ui else None


def _publish(
    run: AdaptationRun, round_no: int, failures: FailureSet, variant: Path, units_by_origin: dict[str, int]
) -> tuple[str, str | None]:
    """The round's failure report, findings table and (with findings) the review material; returns the
    report's artifact id and the review material's UI address (None on the ephemeral API or without
    findings)."""
    key = artifact_key(run.benchmark, run.language)
    made_by = "Translation units made by: " + (units_made_by(units_by_origin) or "—")
    report = create_markdown_artifact(
        key=f"{key}-failure-report",
        markdown=failure_report_markdown(failures, round_no, variant, made_by),
        description=f"round {round_no}",
    )
    create_table_artifact(
        key=f"{key}-findings",
        table=failure_table_rows(failures) or [{"finding": "none"}],
        description=f"round {round_no}",
    )
    if not failures.findings:
        return str(report), None
    material = create_markdown_artifact(
        key=f"{key}-review",
        markdown=review_material_markdown(failures, round_no, _workbench(run)),
        description=f"round {round_no}: what to read before deciding",
    )
    return str(report), _ui_url(f"artifacts/artifact/{material}")


def _workbench(run: AdaptationRun) -> Workbench | None:
    """The units as the round wrote them (context, provenance, checks) for the reviewer's reading."""
    try:
        return Workbench.load(run)
    except BabelflowError as error:  # the reading falls back to the findings' own evidence
        get_run_logger().warning(f"review material without unit context: {error}")
        return None


def apply_decisions(run: AdaptationRun, store: ReviewStore) -> tuple[dict[str, str], list[str], list[UnitFailure]]:
    """Route confirmed findings: analysis → profile override; translation → retranslate, or the
    reviewer's replacement text for the whole unit (checked; refused ones are returned as set aside)."""
    paths = run.paths
    overrides = stage_io.load_overrides(paths.overrides)
    forget: list[str] = []
    pending = store.unapplied_confirmations()
    for decision in pending:
        if decision.element_id is None or decision.replacement or decision.fixes:
            continue  # a text of the reviewer's, or the finding's repair: apply_replacements writes it
        if decision.route == "analysis":
            reason = decision.preserve_reason
            overrides = [o for o in overrides if o.element != decision.element_id] + [
                ElementOverride(
                    element=decision.element_id,
                    type=TranslationType.PRESERVE,
                    reason=reason or PreserveReason.LINKED_ENTITY,
                    note=f"review {decision.finding_id} by {decision.reviewer}: {decision.note}",
                )
            ]
        else:
            forget.append(decision.element_id)
    write_bytes_atomic(paths.overrides, orjson.dumps([o.model_dump(mode="json") for o in overrides]))
    replaced = apply_replacements(run, pending)
    store.mark_applied(pending)
    reviewed: dict[str, str] = orjson.loads(paths.reviewed.read_bytes()) if paths.reviewed.exists() else {}
    return reviewed, forget, replaced.refused


def review_rounds(run: AdaptationRun) -> AdaptFlowResult:
    logger = get_run_logger()
    review_timeout, max_rounds = run.request.review.timeout, run.request.review.max_rounds
    benchmark, language = run.benchmark, run.language
    store = ReviewStore(run.paths.review_dir)
    rounds: list[RoundRecord] = []
    variant = Path(".")
    run_url = _ui_url(f"runs/flow-run/{current_flow_run.id}")  # Prefect logs it once already ("View at")
    ids: dict[str, Any] = {
        "flow_run_id": str(current_flow_run.id),
        "report_artifact_key": f"{artifact_key(benchmark, language)}-failure-report",
    }

    def ended(status: FlowStatus, open_findings: list[str], timed_out: bool = False) -> AdaptFlowResult:
        return AdaptFlowResult(
            benchmark=benchmark,
            language=language,
            status=status,
            rounds=rounds,
            open_findings=open_findings,
            variant_dir=variant,
            timed_out=timed_out,
            **ids,
        )

    judged: JudgedSample | None = None
    for round_no in range(1, max_rounds + 1):
        reviewed, forget, refused = apply_decisions(run, store)
        record = RoundRecord(round=round_no, stages=[], findings=0, retranslated_units=0, tasks_replayed=0)
        failures, variant = _one_round(run, reviewed, forget, record, refused)
        failures = _with_rejected_units(run, store, failures)
        rounds.append(record)
        store.save_queue(failures, str(current_flow_run.id))
        ids["report_artifact_id"], material_url = _publish(run, round_no, failures, variant, record.units_by_origin)
        notes = [f for f in failures.findings if f.severity is Severity.NOTE]
        open_findings = [f for f in failures.findings if f.severity is not Severity.NOTE]
        logger.info(f"round {round_no}: {len(open_findings)} open findings, {len(notes)} notes")
        if not open_findings:  # notes record a policy (values kept as they are): read at sign-off, no decision
            signed = _sign(run, variant, store, rounds, ids, run_url, judged)
            if isinstance(signed, JudgedSample):  # corrected at the form: a round applies them, then the count
                judged = signed
                continue
            return signed
        if review_timeout <= 0:
            logger.warning("unattended run: review queue persisted; run `babelflow review` then rerun")
            return ended("awaiting_review", [f.id for f in open_findings])
        if run_url:
            logger.info(f"review form (open the paused run, then Resume): {run_url}")
        if material_url:
            logger.info(f"review material (source and target of every group): {material_url}")
        decisions = ask_for_review(failures, round_no, review_timeout, material_url)
        if decisions is None:
            return ended("awaiting_review", [f.id for f in open_findings], timed_out=True)
        store.append_many(decisions, failures)
    return ended("rounds_exhausted", [])


def _with_rejected_units(run: AdaptationRun, store: ReviewStore, failures: FailureSet) -> FailureSet:
    """A rejected sign-off's failing units stay open findings while their text reads as judged."""
    rejection = SignoffLog(store.folder).last_rejection()
    if rejection is None:
        return failures
    queued = FailureSet(
        benchmark=run.benchmark,
        language=run.language,
        findings=rejected_unit_findings(Workbench.load(run), rejection),
        validators=["signoff"],
    )
    still = store.open_findings(queued).findings  # a dismissed one stays dismissed until its text changes
    return failures.model_copy(update={"findings": failures.findings + still}) if still else failures


@dataclass(frozen=True)
class JudgedSample:
    """A sign-off form's answer, kept while the round that applies the corrections made at the form runs."""

    sample: SignOffSample
    verdicts: list[UnitVerdict]
    signer: Signer
    read: bool


def _sign(
    run: AdaptationRun,
    variant: Path,
    store: ReviewStore,
    rounds: list[RoundRecord],
    ids: dict[str, Any],
    run_url: str | None,
    judged: JudgedSample | None,
) -> AdaptFlowResult | JudgedSample:
    """Ask for the sign-off (or count an answer given before a correction round) and act on the count."""
    benchmark, language = run.benchmark, run.language
    result = AdaptFlowResult(
        benchmark=benchmark,
        language=language,
        status="awaiting_signoff",
        rounds=rounds,
        open_findings=[],
        variant_dir=variant,
        **ids,
    )
    if judged is None and signoff_state(variant).valid:  # an unchanged rerun of a signed variant stays signed
        return result.model_copy(update={"status": "signed"})
    if judged is None:
        if run.request.review.timeout <= 0:
            return result
        asked = _ask_signoff(run, store, rounds, run_url)
        if asked is None:
            return result.model_copy(update={"timed_out": True})
        judged, corrected = asked
        if corrected:
            get_run_logger().info(f"{corrected} correction(s) made at the sign-off form: a round applies them first")
            return judged
    bench = Workbench.load(run)
    if not judged.read:  # nothing decided; the note is babelflow's to keep, not only Prefect's input table
        SignoffLog(store.folder).append(deferred(bench, judged.signer))
        return result
    decision = conclude(bench, store, judged.sample, judged.verdicts, judged.signer)
    if decision.decision == "signed":
        return result.model_copy(update={"status": "signed"})
    queued = [f.id for f in queue.findings] if (queue := store.queue()) else []
    return result.model_copy(update={"status": "signoff_rejected", "open_findings": queued})


def _ask_signoff(
    run: AdaptationRun, store: ReviewStore, rounds: list[RoundRecord], run_url: str | None
) -> tuple[JudgedSample, int] | None:
    """The stratified sample a reviewer reads and judges (as `babelflow review --sign` draws it), asked in
    the paused run's form; (the answer, corrections made meanwhile), or None when nobody answered."""
    benchmark, language = run.benchmark, run.language
    bench = Workbench.load(run)
    sample = sign_sample(bench)
    translator_id, tier = signing_tier(bench)
    material = create_markdown_artifact(
        key=f"{artifact_key(benchmark, language)}-signoff-sample",
        markdown=signoff_material_markdown(sample, benchmark, language, translator_id, tier),
        description=f"sign-off sample: {sample.sample_size} of {sample.lot_size} units",
    )
    material_url = _ui_url(f"artifacts/artifact/{material}")
    if run_url:
        get_run_logger().info(f"sign-off form (open the paused run, then Resume): {run_url}")
    if material_url:
        get_run_logger().info(f"sign-off sample ({sample.sample_size} units side by side): {material_url}")
    read = f"[the sample, source and target side by side]({material_url})" if material_url else "the sample artifact"
    form = signoff_form(
        f"**No open findings.** Translator {translator_id} ({tier}). Read {read}: "
        f"{sample.sample_size} of {sample.lot_size} units drawn by role and risk (ISO 2859-1 level II, "
        f"letter {sample.code_letter}). {plan_line(sample)} Mark each unit below pass or fail (a failing unit"
        f" takes its MQM category and severity), tick that you read them all, then Resume. Correct a unit now with"
        f' `babelflow correct {benchmark} --lang {language} --id ID --text "…"`: the sign-off picks it up.',
        sample,
    )
    before = len(bench.log.entries())
    window = corrections_window(run.settings.layout.locks(), benchmark, language, str(current_flow_run.id))
    try:
        with pause_named("AwaitingSignoff"), window:  # `babelflow correct` may store texts while the form waits
            answer = pause_flow_run(
                wait_for_input=form, timeout=run.request.review.timeout, poll_interval=2, key=f"signoff-{len(rounds)}"
            )
    except FlowPauseTimeout:
        return None
    signer = Signer(reviewer=answer.reviewer, note=answer.note, flow_run_id=str(current_flow_run.id))
    judged = JudgedSample(sample=sample, verdicts=form_verdicts(answer, sample), signer=signer, read=answer.read)
    return judged, len(bench.log.entries()) - before
