"""Issue 37 defect 2: a run's `--entity` overrides are part of its request, stored in the variant's
manifest, and every rebuild of the run (the review workbench, `units`, `correct`, `export`, `import`)
reads them back: the review material shows the units the variant holds, not the default policy's."""

from __future__ import annotations

from babelflow.adapt_request import AdaptRequest
from babelflow.settings import BabelflowSettings

BENCH = "tau2-mock"
LANG = "en-XA"


def test_the_workbench_of_a_variant_renders_its_entities_as_the_run_did(tmp_path, analyzed) -> None:
    from babelflow.adapt_request import PseudoSpec
    from babelflow.entity_policy import parse_entity_options
    from babelflow.ir import save_ir
    from babelflow.variant import load_manifest
    from flows.pipeline.adapt import adapt
    from flows.review.workbench import Workbench

    ir = analyzed(BENCH)
    settings = BabelflowSettings(project_root=tmp_path)
    save_ir(ir, settings.layout.ir(BENCH))
    kept = [f"{entity.name}=keep" for entity in ir.entity_classes]  # the default translates the catalogue
    assert kept, "tau2-mock has canonical entity classes"
    result = adapt(AdaptRequest.of_options(BENCH, LANG, translator="pseudo", entities=kept), settings=settings, ir=ir)
    bench = Workbench.of_variant(settings, BENCH, LANG)
    canonical = [r for r in bench.records if r.kind == "canonical"]
    assert canonical and all(r.target == r.source for r in canonical)  # kept, as the variant holds them
    assert bench.targets == result.outcome.targets
    stored = load_manifest(result.paths.variant).request  # what every rebuild of the run reads back
    assert stored is not None and stored.entities == parse_entity_options(kept) and stored.translator == PseudoSpec()
