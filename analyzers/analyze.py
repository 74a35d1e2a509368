"""Steps 1-2 of the method: inventory every text field, trace it at run time, link and type it."""

from __future__ import annotations

from analyzers.code_differential import code_differential
from analyzers.code_inventory import scan_python_file
from analyzers.entity_classes import entity_class_decisions, refuse_unsafe_translate
from analyzers.inventory import InventoryBuilder, Progress, check_overrides, facts_for
from analyzers.located_evidence import LocatedEvidence
from analyzers.open_fields import type_open_fields
from analyzers.profile import LoadedProfile, empty_profile, load_profile
from analyzers.runtime_evidence import (
    RuntimeEvidenceIndex,
    record_compared_literals,
    record_evaluation_criteria,
    record_schema_literals,
    record_tool_call,
    record_tool_schemas,
)
from analyzers.shaped_inventory import analyze_by_trial
from analyzers.trace_cache import cached
from babelflow.gc_pause import gc_paused
from babelflow.ir import ArtifactFormat, ArtifactRole, IRDocument
from source_benchmarks.protocol import SourceBenchmark
from source_benchmarks.registry import family_of


def collect_runtime_evidence(
    bench: SourceBenchmark, progress: Progress, located: LocatedEvidence | None = None
) -> RuntimeEvidenceIndex:
    index = RuntimeEvidenceIndex()
    progress("tool schemas")
    record_tool_schemas(index, bench.tool_schemas())
    task_ids = bench.task_ids(None)
    traced = family_of(bench.id).traced_replay(bench)
    if traced is not None and located is not None:
        # instrumented replay: set_state, tools, DB diffs, env assertions and evaluators observed per location
        progress(f"instrumented replay of {len(task_ids)} tasks")
        located.by_location = cached(bench, "trace", lambda: traced.trace(task_ids), extra="\0".join(task_ids))
        located.available = True
    else:
        progress(f"golden replay of {len(task_ids)} tasks")
        bench.replay_golden(
            task_ids,
            observer=lambda task_id, record: record_tool_call(index, task_id, record),
            scored=False,
            label="analysis: golden replays",
        )
        for task_id in task_ids:  # without a trace, what the evaluator reads is taken from the criteria
            record_evaluation_criteria(index, bench.task(task_id))
    index.replayed_tasks = len(task_ids)
    for spec in bench.artifacts():
        if spec.role is ArtifactRole.TOOL_CODE:
            record_compared_literals(index, spec.path, scan_python_file(bench.artifact_path(spec)).compared_literals)
    return index


def analyze_benchmark(
    bench: SourceBenchmark,
    profile: LoadedProfile | None = None,
    progress: Progress | None = None,
    use_profile: bool = True,
    instrumented: bool = True,
) -> IRDocument:
    """Build the IR of one benchmark. Runs its golden replays instrumented; no translation happens here.

    `use_profile=False` types from evidence, structure and shape alone (`babelflow analyze --no-profile`).
    `instrumented=False` is the earlier analysis (plain golden replay, value-keyed evidence, no
    differential trials), kept for side-by-side measurement (bench/analysis_speed.py)."""
    progress = progress or (lambda message: None)
    profile = (profile or load_profile(bench.id)) if use_profile else empty_profile(bench.id)
    progress("checking every artifact loads")
    bench.validate_artifacts()  # unreadable or schema-breaking input fails here, naming the file
    family = family_of(bench.id)
    perturbed = family.perturbation(bench)
    if perturbed is not None:  # code and data typed together by a trial
        return analyze_by_trial(bench, perturbed, profile, family.name, progress)
    located = LocatedEvidence()
    evidence = collect_runtime_evidence(bench, progress, located if instrumented else None)
    for spec in bench.artifacts():
        if spec.format in (ArtifactFormat.JSON, ArtifactFormat.TOML) and spec.translatable:
            record_schema_literals(evidence, spec.path, facts_for(spec).literal_values)
    builder = InventoryBuilder(bench, profile, evidence, located, use_profile=use_profile)
    # the inventory builds ~170k elements beside a 61 MB live trace (telecom): full collections that walk
    # it found nothing to free and cost a third of its time (21.5 s -> 14.4 s CPU paused, the same IR)
    with gc_paused():
        for spec in bench.artifacts():
            if not spec.translatable:
                continue
            progress(f"inventory {spec.path}")
            if spec.format in (ArtifactFormat.JSON, ArtifactFormat.TOML):
                builder.data_artifact(spec)
            elif spec.format is ArtifactFormat.MARKDOWN:
                builder.markdown_artifact(spec)
            else:
                builder.python_artifact(spec)
    check_overrides(profile, builder.elements)
    type_open_fields(builder, progress)
    if instrumented:  # the Preserve code texts nothing observed (prompts, control tokens, id templates)
        code_differential(
            bench,
            located,
            builder.code_texts,
            lambda what, compute, extra: cached(bench, what, compute, extra=extra),
            progress,
        )
    builder.link_canonical_values()
    refuse_unsafe_translate(profile, builder.typer.entity_tallies)
    builder.entity_classes = entity_class_decisions(profile, builder.elements, builder.typer.entity_tallies)
    progress("linking")
    return builder.document(profile, builder.link())
