"""The terms stage, between analysis and prose translation: every canonical term is rendered, signalled
and scored into the term base (translators/terms/), so a reviewer can fix a wrong rendering once,
before the prose, the DB and the golden arguments are built on it.

The stage writes the term base to the state folder; the canonical map is written by the translate
stage that follows (it renders the same terms again from the translation memory, sending nothing).
"""

from __future__ import annotations

from pathlib import Path

from pydantic import Field

from babelflow.adaptation_run import AdaptationRun
from babelflow.atomic_io import sha256_file
from babelflow.canonical_map import load_canonical_map, save_canonical_map
from babelflow.ir import Record
from babelflow.llm.costs import CostLedger, CostReport, save_costs
from babelflow.worlds import worlds_of_terms
from flows.pipeline.stage_io import STAGE_VERSIONS, costs_path, key_of, read_ir
from flows.pipeline.stages import entity_override_inputs, rendering_inputs
from translators.adoption import adoption_key, load_adoption, seed_map
from translators.engine import TranslationEngine
from translators.memory import TranslationMemory
from translators.spec import make_translator
from translators.terms.confidence import WEIGHTS_FILE
from translators.terms.term_base import build_term_base, save_term_base
from translators.unit_protection import pack_glossary


class TermsResult(Record):
    term_base_path: Path
    term_base_sha256: str
    terms: int = Field(description="entries of the term base (values a class's policy settles are not terms)")
    doubtful: int = Field(description="proposed renderings whose chance of being wrong is one half or more")
    doubtful_by_class: dict[str, int] = Field(default_factory=dict)
    approved: int = Field(description="entries a reviewer approved or corrected")


def terms_inputs_key(run: AdaptationRun, ir_sha: str) -> str:
    adopted = adoption_key(run.paths.adopted)
    parts = (*rendering_inputs(run, ir_sha), entity_override_inputs(run), sha256_file(WEIGHTS_FILE), adopted)
    return key_of("terms", STAGE_VERSIONS["terms"], *parts)


def stage_terms(run: AdaptationRun, ir_path: Path) -> TermsResult:
    """Render the terms (the translation memory answers what an earlier run translated) and write the
    term base. Pseudo-locales get no signals: their renderings are made by rule, not guessed."""
    ledger = CostLedger()
    translator = make_translator(run.request.translator, run.language, run.pack, costs=ledger)
    ir = read_ir(ir_path, run.benchmark)
    cmap = load_canonical_map(run.paths.canonical_map, run.benchmark, run.language)
    seed_map(cmap, load_adoption(run.paths.adopted), worlds_of_terms(ir))  # adopted renderings are terms like any other
    engine = TranslationEngine(
        translator, run.language, TranslationMemory(run.paths.memory), glossary=pack_glossary(run.pack, run.benchmark)
    )
    outcome = engine.render_terms(ir, cmap, renderings=run.entity_renderings(ir.entity_classes))
    pseudo = run.pack.offline_rendering is not None
    base = build_term_base(ir, cmap, outcome.drafts, run.language, signals=not pseudo)
    # the renderings are this stage's output: the term review decides on them (the reviewed map is unchanged)
    save_canonical_map(cmap, run.paths.canonical_map)
    save_term_base(base, run.paths.term_base)
    if ledger.report().rows:  # a model translator's calls for the terms, apart from the prose's
        rows = [row.model_copy(update={"stage": "terms"}) for row in ledger.report().rows]
        save_costs(CostReport(rows=rows), costs_path(run.settings, run.benchmark, run.language, "terms"))
    doubtful = base.doubtful()
    by_class: dict[str, int] = {}
    for entry in doubtful:
        by_class[entry.group] = by_class.get(entry.group, 0) + 1
    return TermsResult(
        term_base_path=run.paths.term_base,
        term_base_sha256=sha256_file(run.paths.term_base),
        terms=len(base.entries),
        doubtful=len(doubtful),
        doubtful_by_class=by_class,
        approved=sum(1 for e in base.entries if e.state == "approved"),
    )
