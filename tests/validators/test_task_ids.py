"""A finding on a task's field carries the task's id (before: task_id null on every field finding)."""

from __future__ import annotations

import orjson

from babelflow.adapt_request import AdaptRequest
from babelflow.settings import BabelflowSettings
from source_benchmarks import get_benchmark


def test_a_field_finding_in_a_task_names_its_task(tmp_path, analyzed):
    from flows.pipeline.adapt import adapt
    from validators.run import validate_variant, variant_context

    ir = analyzed("tau2-mock")
    variant = adapt(
        AdaptRequest.of_options("tau2-mock", "en-XA"), settings=BabelflowSettings(project_root=tmp_path), ir=ir
    ).paths.variant
    tasks_path = variant / "data/tau2/domains/mock/tasks.json"
    tasks = orjson.loads(tasks_path.read_bytes())
    # the third task's user instructions copied back in English: an untranslated field of that task
    english = next(
        e
        for e in ir.elements
        if e.artifact.endswith("tasks.json")
        and e.locator.path[:1] == (2,)
        and e.role.endswith("instructions")
        and e.translation_type.value != "preserve"
    )
    tasks[2]["user_scenario"]["instructions"] = english.source_text
    tasks_path.write_bytes(orjson.dumps(tasks))
    findings = validate_variant(variant_context(get_benchmark("tau2-mock"), variant, ir, "en-XA")).findings
    on_field = [f for f in findings if f.element_id == english.id]
    assert on_field and all(f.task_id == tasks[2]["id"] for f in on_field), on_field
