"""One benchmark through the Prefect flow, as a user runs it: a cold first run, then the review
loop's rerun after one confirmed finding. Run in its own process by bench/performance.py so the
peak RSS is the flow's alone. Prints one JSON line.

The finding is real: a translation-memory entry of one task-instruction unit is made to carry
translator commentary (as a careless model run would), the flow finds it, the reviewer confirms
it with their own wording, and the rerun applies that one change: retranslate nothing else,
rewrite the changed file, revalidate, replay only the tasks whose text changed.

Usage: python -m bench.flow_rerun_worker BENCHMARK PROJECT_DIR   (from the repo root; PREFECT_API_URL must be set)
"""

from __future__ import annotations

import json
import resource
import sys
import time
from collections import Counter
from pathlib import Path

from babelflow.adapt_request import AdaptRequest


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    benchmark, project = sys.argv[1], Path(sys.argv[2])
    from loguru import logger

    logger.disable("tau2")
    import orjson

    from babelflow.adapt_request import PseudoSpec
    from babelflow.canonical_map import load_canonical_map
    from babelflow.settings import BabelflowSettings
    from flows.pipeline import stage_io
    from flows.pipeline.prefect_flows import adapt_language, outcome
    from flows.review.store import ReviewDecision, ReviewStore
    from translators.engine import TranslationEngine
    from translators.memory import TranslationMemory
    from translators.spec import make_translator

    settings = BabelflowSettings(project_root=project)
    started = time.perf_counter()
    first = outcome(
        adapt_language(AdaptRequest(benchmark=benchmark, language="en-XA", project_root=project), return_state=True)
    )
    first_wall = time.perf_counter() - started
    first_rss = _rss_mb()

    # plant: one unit of one task's text comes back from "the model" with commentary
    ir = stage_io.read_ir(settings.layout.ir(benchmark), benchmark)
    counts = Counter(e.source_text for e in ir.elements)
    element = min(
        (
            e
            for e in ir.elements
            if e.artifact.endswith("tasks.json")
            and e.translation_type.value == "translate_free"
            and len(e.source_text) > 40
        ),
        key=lambda e: (counts[e.source_text], e.id),
    )
    translator = make_translator(PseudoSpec(), "en-XA")
    memory = settings.layout.memory(benchmark, "en-XA", translator.translator_id)
    cmap = load_canonical_map(settings.layout.canonical_map(benchmark, "en-XA"), benchmark, "en-XA")
    keys = TranslationEngine(translator, "en-XA", TranslationMemory(memory)).memory_keys(ir, cmap, {element.id})
    records = [orjson.loads(line) for line in memory.read_bytes().splitlines()]
    for record in records:
        if record["key"] in keys:
            record["target"] += " (Note: translated automatically)"
    memory.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))
    settings.layout.targets(benchmark, "en-XA").unlink()  # the translate stage runs again and reads the planted entry
    started = time.perf_counter()
    found = outcome(
        adapt_language(AdaptRequest(benchmark=benchmark, language="en-XA", project_root=project), return_state=True)
    )
    defect_wall = time.perf_counter() - started

    # review: confirm with the reviewer's own wording, then the rerun the issue measures
    store = ReviewStore(settings.layout.review_dir(benchmark, "en-XA"))
    queue = store.queue()
    store.append_many(
        [
            ReviewDecision(
                finding_id=f.id,
                decision="confirm",
                reviewer="bench",
                note="strip the note",
                replacement=(f.evidence[0].target or "").replace(" (Note: translated automatically)", "") + " ŕéṽîéŵéð",
            )
            for f in queue.findings
        ],
        queue,
    )
    started = time.perf_counter()
    rerun = outcome(
        adapt_language(AdaptRequest(benchmark=benchmark, language="en-XA", project_root=project), return_state=True)
    )
    rerun_wall = time.perf_counter() - started
    last = rerun.rounds[-1]
    print(
        json.dumps(
            {
                "benchmark": benchmark,
                "first_wall": first_wall,
                "first_status": first.status,
                "first_rss_mb": first_rss,
                "planted_occurrences": counts[element.source_text],
                "defect_round_wall": defect_wall,
                "defect_findings": len(found.open_findings),
                "rerun_wall": rerun_wall,
                "rerun_status": rerun.status,
                "rerun_stages_run": [s.stage for s in last.stages if not s.cached],
                "rerun_units": last.retranslated_units,
                "rerun_tasks_replayed": last.tasks_replayed,
                "peak_rss_mb": _rss_mb(),
            }
        )
    )


if __name__ == "__main__":
    main()
