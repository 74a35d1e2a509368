"""Translate-consistently entities (fixture: book titles) stay solvable and scorable.

The title is rendered once and reused in the DB, the task prose, the golden arguments and
communicate_info; the final DB state, mapped back through the canonical map, equals the source's.
"""

from __future__ import annotations

import orjson

from babelflow.adapt_request import AdaptRequest
from babelflow.canonical_map import load_canonical_map
from babelflow.settings import BabelflowSettings
from source_benchmarks import get_benchmark, open_variant
from source_benchmarks.fixture.replay import golden_trajectory


def _map_back(value, inverse):
    if isinstance(value, str):
        return inverse.get(value, value)
    if isinstance(value, dict):
        return {inverse.get(k, k): _map_back(v, inverse) for k, v in value.items()}
    if isinstance(value, list):
        return [_map_back(v, inverse) for v in value]
    return value


def test_canonical_titles_are_consistent_and_behaviour_is_equal(tmp_path):
    from flows.pipeline.adapt import adapt

    settings = BabelflowSettings(project_root=tmp_path)
    result = adapt(AdaptRequest.of_options("fixture-library", "en-XA"), settings=settings)
    cmap = load_canonical_map(result.paths.canonical_map, "fixture-library", "en-XA")
    titles = {e.source: e.target for e in cmap.entries if e.group == "book_title"}
    assert len(titles) == 8 and all(source != target for source, target in titles.items())
    assert all(e.origin == "translator" and e.origin_detail == "pseudo:en-XA/v1" for e in cmap.entries)

    source, variant = get_benchmark("fixture-library"), open_variant("fixture-library", result.paths.variant)
    db = orjson.loads((result.paths.variant / "data/db.json").read_bytes())
    assert sorted(book["title"] for book in db["books"].values()) == sorted(titles.values())
    task = variant.task("checkout_unavailable")
    reason = task.user_scenario.instructions.reason_for_call + task.user_scenario.instructions.task_instructions
    assert titles["Murder at Millbrook"] in reason  # the prose mention uses the canonical rendering
    assert titles["The Clockmaker's Secret"] in task.evaluation_criteria.communicate_info

    inverse = {target: source_title for source_title, target in titles.items()}
    for task_id in source.task_ids(None):
        ours, theirs = variant.replay_golden([task_id])[0], source.replay_golden([task_id])[0]
        assert ours.reward == theirs.reward == 1.0, task_id
        assert [(c.name, c.error) for c in ours.tool_calls] == [(c.name, c.error) for c in theirs.tool_calls]
        assert variant.run_do_nothing([task_id])[0].reward == source.run_do_nothing([task_id])[0].reward
        _, _, target_env = golden_trajectory(variant.task(task_id), variant.environment_factory, None)
        _, _, source_env = golden_trajectory(source.task(task_id), source.environment_factory, None)
        assert _map_back(target_env.db.model_dump(), inverse) == source_env.db.model_dump(), task_id


def test_rerun_reuses_memory_and_reviewed_canonical_entries(tmp_path):
    from babelflow.canonical_map import CanonicalEntry, save_canonical_map
    from flows.pipeline.adapt import adapt

    settings = BabelflowSettings(project_root=tmp_path)
    first = adapt(AdaptRequest.of_options("fixture-library", "en-XA"), settings=settings)
    assert first.outcome.stats.memory_hits == 0 and first.outcome.stats.requests > 0
    second = adapt(AdaptRequest.of_options("fixture-library", "en-XA"), settings=settings)
    assert second.outcome.stats.requests == 0 and second.outcome.stats.memory_hits == first.outcome.stats.free_units
    before = (first.paths.variant / "data/tasks.json").read_bytes()
    assert before == (second.paths.variant / "data/tasks.json").read_bytes()
    # a reviewer fixes one title: it is used everywhere on the next run, nothing else is retranslated
    cmap = load_canonical_map(first.paths.canonical_map, "fixture-library", "en-XA")
    cmap.upsert(
        CanonicalEntry(
            group="book_title",
            source="The Salt Road",
            target="[Ŕöûţé ðû Šéļ]",
            origin="reviewer",
            origin_detail="ana",
            review_state="confirmed",
        )
    )
    save_canonical_map(cmap, first.paths.canonical_map)
    third = adapt(AdaptRequest.of_options("fixture-library", "en-XA"), settings=settings)
    tasks = (third.paths.variant / "data/tasks.json").read_text(encoding="utf-8")
    assert "[Ŕöûţé ðû Šéļ]" in tasks and "Salt Road" not in tasks
    variant = open_variant("fixture-library", third.paths.variant)
    assert all(o.reward == 1.0 for o in variant.replay_golden(variant.task_ids(None)))
