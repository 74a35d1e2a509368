"""The offline back-translation agent (Apertium spa-eng) on a Spanish variant of τ² mock made by
Apertium eng-spa: a clean variant raises under 5% of its units, a task field replaced by a fluent
but unrelated Spanish sentence is raised, with the back-translation quoted; a language without a
reverse pair gets a note, not a silent pass. (Retail's rate: python -m bench.backtranslation_rate.)"""

from __future__ import annotations

import pytest

from babelflow.adapt_request import AdaptRequest
from babelflow.apertium import apertium_binary, installed_modes
from validators.backtranslation import KIND, VALIDATOR_ID, BacktranslationAgent, reverse_mode

pytestmark = pytest.mark.skipif(
    apertium_binary() is None or "spa-eng" not in installed_modes(),
    reason="Apertium spa-eng is not installed (scripts/install.sh installs apertium-eng-spa: both directions)",
)


@pytest.fixture(scope="module")
def spanish_mock(tmp_path_factory, analyzed):
    from babelflow.settings import BabelflowSettings
    from flows.pipeline.adapt import adapt
    from source_benchmarks import get_benchmark

    ir = analyzed("tau2-mock")
    result = adapt(
        AdaptRequest.of_options("tau2-mock", "es"),
        settings=BabelflowSettings(project_root=tmp_path_factory.mktemp("es")),
        ir=ir,
    )
    return get_benchmark("tau2-mock"), ir, result.paths.variant


def test_reverse_pairs_are_found_by_language():
    assert reverse_mode("es")[1] == "spa-eng"
    assert reverse_mode("vi") is None and reverse_mode("en-XA") is None


def test_clean_spanish_variant_raises_under_5_percent(spanish_mock):
    from validators.context import ValidationContext

    source, ir, variant = spanish_mock
    scores = BacktranslationAgent().score(ValidationContext(source, variant, ir, "es"), [])
    assert len(scores) > 50 and any(s.unit.task_id for s in scores) and any(s.unit.task_id is None for s in scores)
    assert sum(s.divergent for s in scores) / len(scores) < 0.05


def test_an_unrelated_sentence_is_raised_as_its_own_validator(spanish_mock, tmp_path):
    import shutil

    from bench.backtranslation_rate import plant
    from validators.context import ValidationContext
    from validators.model_backends import make_validator_agents
    from validators.run import validate_variant, variant_context

    source, ir, clean = spanish_mock
    variant = tmp_path / "variant"
    shutil.copytree(clean, variant)
    (agent,) = make_validator_agents("backtranslation")
    scores = agent.score(ValidationContext(source, variant, ir, "es"), [])
    unit = next(s.unit for s in scores if s.unit.task_id is not None and not s.divergent and len(s.unit.source) > 40)
    plant(variant, ir, unit)

    failures = validate_variant(variant_context(source, variant, ir, "es"), agents=[agent])
    (finding,) = [f for f in failures.findings if f.element_id == unit.unit_id and f.kind == KIND]
    assert finding.validators == [VALIDATOR_ID] and finding.task_id == unit.task_id
    assert (
        float(finding.evidence[0].detail["chrf"]) < 25
        and "madrid will be sunny" in finding.evidence[0].detail["back_translation"].lower()
    )
    assert failures.validators == ["probes", VALIDATOR_ID]
    assert any(n.startswith(f"{VALIDATOR_ID}: back-translated") for n in failures.notes)


def test_no_reverse_pair_is_a_note(spanish_mock):
    from validators.context import ValidationContext

    source, ir, variant = spanish_mock
    report = BacktranslationAgent().review(ValidationContext(source, variant, ir, "vi"), [])
    assert report.findings == [] and "no Apertium pair vi→en installed" in report.note
