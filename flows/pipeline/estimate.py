"""`babelflow adapt|flow … --estimate`: the model calls and tokens a keyed run will spend, before any call.

The run itself is played in a scratch copy of the project's state for this benchmark and language (its IR,
translation memory, canonical map, reviewed and adopted texts, agent memory), with every model call
answered offline (babelflow/llm/estimate.py). So the estimate sends what the run would send: the
batches, glossaries and review material the run's own code builds, minus what the translation memory and
the agents' memory already hold. The project is not touched; the scratch copy is deleted.

The estimate covers translation (with the terms stage) and one reading by each validator agent; the
probe layers make no model call. On a rerun they run here on the texts already written (the last run's and
the reviewers'), and the agents are given what they find there, as the run's agents will be; findings on a
stand-in are left out. Before a first run every text is a stand-in: no probe runs and the agents are given the
findings of their last reading, if any. So after a run, the estimate of the next counts only what changes.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

from babelflow.adapt_request import AdaptRequest
from babelflow.canonical_map import load_canonical_map
from babelflow.language_data import language_data
from babelflow.llm.costs import CostLedger, CostReport
from babelflow.llm.estimate_mode import estimating
from babelflow.settings import BabelflowSettings
from babelflow.state_layout import StateLayout
from flows.pipeline.adapt import adapt
from flows.review.workbench import read_reviewed
from flows.written_targets import read_written_targets_in
from source_benchmarks import get_benchmark
from validators.agent_exchange import remembered_probe_findings
from validators.model_backends import make_validator_agents
from validators.orchestrator import review_by_agents, run_probes
from validators.run import variant_context


def _copy_state(project: StateLayout, scratch: StateLayout, benchmark: str, language: str) -> None:
    """What a run of (benchmark, language) reads and may reuse; never its outputs or other languages."""
    for source, target in (
        (project.ir(benchmark), scratch.ir(benchmark)),
        (project.canonical_maps / benchmark, scratch.canonical_maps / benchmark),
        (project.memories(benchmark, language), scratch.memories(benchmark, language)),
        (project.run_dir(benchmark, language), scratch.run_dir(benchmark, language)),
        (project.term_base(benchmark, language), scratch.term_base(benchmark, language)),
        (project.agent_memory(benchmark, language), scratch.agent_memory(benchmark, language)),
        (project.profile_overrides(benchmark), scratch.profile_overrides(benchmark)),
    ):
        if source.is_dir():
            shutil.copytree(source, target)
        elif source.is_file():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)


def _known_texts(layout: StateLayout, request: AdaptRequest, targets: dict[str, str]) -> set[str]:
    """The elements whose text the run will send as it stands here: what the last run wrote, or a reviewer's text;
    the others are stand-ins for what the model will write."""
    last = read_written_targets_in(layout.run_dir(request.benchmark, request.language))
    if last is None:
        return set()
    reviewed = read_reviewed(layout.reviewed_translations(request.benchmark, request.language))
    return {e for e, text in targets.items() if last.get(e) == text or reviewed.get(e) == text}


def assumptions(request: AdaptRequest, source_language: str) -> list[str]:
    """What the estimate cannot know and assumed, in the words the report prints."""
    target = language_data(request.language)
    ratio = (
        f"measured on real translations ({target.token_ratio}x English)"
        if target.token_ratio_measured
        else f"not measured for {request.language}: assumed {target.token_ratio}x English"
    )
    return [
        f"translations take the tokens the target language takes for the same text: {ratio};",
        "each validator agent reads every batch once and raises nothing beyond the probes' findings (on a rerun,"
        " those the probes make of the texts already written; before a first run, none);",
        "no retry, 429, failed reply or later review round is counted;",
        f"source language {source_language}; tokens counted with Qwen's BPE (exact for Qwen models, a proxy"
        " for others).",
    ]


def estimate_run(
    request: AdaptRequest, settings: BabelflowSettings, progress: Callable[[str], None] | None = None
) -> tuple[CostReport, str]:
    """(the calls and tokens per stage and agent, the IR's source language) of the keyed run `request` asks
    for. Nothing is sent and nothing in the project is written."""
    say = progress or (lambda message: None)
    with tempfile.TemporaryDirectory(prefix="babelflow-estimate-") as folder:
        scratch = BabelflowSettings(project_root=Path(folder))
        _copy_state(settings.layout, scratch.layout, request.benchmark, request.language)
        ledger = CostLedger()
        with estimating():
            here = request.model_copy(update={"out": None, "project_root": None})
            memory = scratch.layout.agent_memory(request.benchmark, request.language)
            agents = make_validator_agents(request.validators, costs=ledger, memory_dir=memory)
            result = adapt(here, settings=scratch, progress=say, costs=ledger)
            if agents:
                cmap = load_canonical_map(result.paths.canonical_map, request.benchmark, request.language)
                source = get_benchmark(request.benchmark, source_dir=request.source_dir)

                def own_context():
                    variant, language = result.paths.variant, request.language
                    return variant_context(source, variant, result.ir, language, canonical_map=cmap)

                # the project's record of what its last run wrote (the scratch copy's is the estimate's own now)
                known = _known_texts(settings.layout, request, result.outcome.targets)
                findings = remembered_probe_findings(memory)
                if known:  # a rerun: what the probes find on texts already written is what the run's will find
                    say("probes on the texts already written")
                    found, _ = run_probes(own_context())
                    everything = len(known) == len(result.outcome.targets)
                    findings = [f for f in found if f.element_id in known or (f.element_id is None and everything)]
                say("validator agents reading")
                review_by_agents(agents, own_context, findings)
        return ledger.report(), result.ir.source_language
