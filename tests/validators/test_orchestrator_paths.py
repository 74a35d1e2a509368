"""One orchestrator, two paths: `babelflow validate` (validators.run.validate_variant) and the Prefect
flow's stages (flows/pipeline/stages.py: integrity, then consistency/fidelity/behaviour, then merge) find the
same defects on the same fields, because both call the orchestrator's layers; every registered check has
the signature check(ctx, scope)."""

from __future__ import annotations

import inspect
import random
import shutil

import pytest

from babelflow.adapt_request import AdaptRequest
from babelflow.ir import save_ir
from babelflow.settings import BabelflowSettings
from bench.defects import inject_defect
from flows.pipeline import validation_stages
from flows.pipeline.adapt import adapt
from flows.run_setup import resolve_run
from source_benchmarks import get_benchmark
from validators.checks import CHECKS
from validators.findings import Layer
from validators.run import validate_variant, variant_context

BENCH, LANG = "fixture-library", "en-XA"


def test_every_check_has_one_signature():
    for registered in CHECKS:
        assert list(inspect.signature(registered.function).parameters) == ["ctx", "scope"], registered.name


def _stage_path(settings: BabelflowSettings, variant, ir_path):
    run = resolve_run(settings, AdaptRequest.of_options(BENCH, LANG, translator="pseudo"))
    integrity = validation_stages.stage_integrity(run, ir_path, variant)
    layers = [integrity] + [
        validation_stages.stage_layer(run, layer, ir_path, variant, integrity.suppressed)
        for layer in (Layer.CONSISTENCY, Layer.FIDELITY, Layer.BEHAVIOR)
    ]
    return layers, validation_stages.stage_merge(run, layers, ir_path, variant)


def _fields(failures) -> set[tuple]:
    return {(f.layer.value, f.kind, f.severity.value, f.artifact, f.location, f.element_id) for f in failures.findings}


@pytest.mark.parametrize("kind", ["gold_tool_name_translated", "preserved_code_literal_translated"])
def test_cli_and_flow_stages_find_the_same_defects(tmp_path, analyzed, kind):
    settings = BabelflowSettings(project_root=tmp_path)
    result = adapt(AdaptRequest.of_options(BENCH, LANG), settings=settings, ir=analyzed(BENCH))
    save_ir(result.ir, settings.layout.ir(BENCH))  # what the flow's analysis stage leaves for the others
    variant = tmp_path / "planted"
    shutil.copytree(result.paths.variant, variant)
    inject_defect(kind, variant, result.ir, random.Random(0))

    cli = validate_variant(variant_context(get_benchmark(BENCH), variant, result.ir, LANG))
    layers, flow = _stage_path(settings, variant, settings.layout.ir(BENCH))
    assert _fields(cli) and _fields(flow) == _fields(cli)
    assert flow.validators == cli.validators
    assert layers[-1].tasks_replayed == len(get_benchmark(BENCH).task_ids(None))

    again, _ = _stage_path(settings, variant, settings.layout.ir(BENCH))
    assert again[-1].tasks_replayed == 0  # the behaviour layer's per-task cache holds
