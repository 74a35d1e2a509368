"""`--validators` runs the agents on every family: `babelflow validate agentdojo-banking --lang en-XA
--validators openai:M` against the loopback fake. The agent reads the variant itself (YAML fields
and code texts with their targets), its requests reach the provider, and what it raises merges with
the probes' findings into one failure set, the same set the Prefect flow's stages merge. Before the
one orchestrator, this command checked the key and ran no agent on an AgentDojo variant."""

from __future__ import annotations

import orjson
import pytest
from fakes import MODELS
from typer.testing import CliRunner

from babelflow.adapt_request import AdaptRequest
from babelflow.ir import TranslationType, load_ir
from babelflow.settings import BabelflowSettings
from flows.cli.app import app
from flows.pipeline import validation_stages
from flows.run_setup import resolve_run
from source_benchmarks.yaml_io import dump_yaml, load_yaml, set_at
from validators.findings import Layer

pytest.importorskip("agentdojo")

BENCH = "agentdojo-banking"


def _english_again(project) -> str:
    """One translated environment field put back to its English source: the probes report it as
    untranslated, and so does the fake reviewer (it raises what it reads copied through)."""
    ir = load_ir(project / ".babelflow" / "ir" / f"{BENCH}.json")
    element = next(
        e
        for e in ir.elements
        if e.locator.kind == "data_value"
        and e.translation_type is TranslationType.TRANSLATE_FREE
        and e.artifact.endswith("environment.yaml")
        and len(e.source_text) > 30
    )
    path = project / "adapted" / BENCH / "en-XA" / element.artifact
    document = load_yaml(path)
    set_at(document, tuple(element.locator.path), element.source_text)
    dump_yaml(path, document)
    return element.id


@pytest.mark.slow
def test_validate_agentdojo_with_validators_runs_the_agents_and_merges(project, fake, seed_analysis_cache):
    seed_analysis_cache(project, BENCH)
    runner = CliRunner()
    adapt = runner.invoke(app, ["adapt", BENCH, "--lang", "en-XA"])
    assert adapt.exit_code == 0, adapt.output
    planted = _english_again(project)

    report = project / "failures.json"
    validators = f"openai:{MODELS['openai']}"
    arguments = ["validate", BENCH, "--lang", "en-XA", "--validators", validators, "--json", str(report)]
    result = runner.invoke(app, arguments)
    assert result.exit_code == 1, result.output  # the planted field is a finding

    requests = fake.state.requests("openai", "review")
    assert requests, "the agent sent no review request"
    units = [u for r in requests for u in r.payload.get("units", [])]
    # it read the variant: environment fields with their translated targets, and code texts (prompts, docstrings)
    assert any(u["artifact"].endswith("environment.yaml") and u["target"] != u["source"] for u in units)
    assert any(u["artifact"].endswith(".py") for u in units)
    assert any(u["unit_id"] == planted and u["target"] == u["source"] for u in units)

    failures = orjson.loads(report.read_bytes())
    assert failures["validators"] == ["probes", "validator-1-openai"]
    on_planted = [f for f in failures["findings"] if f["element_id"] == planted]
    # one finding, the probes' and the agent's evidence merged on it
    assert [(f["layer"], f["kind"]) for f in on_planted] == [("fidelity", "untranslated")]
    assert on_planted[0]["validators"] == ["probes", "validator-1-openai"]
    assert {e["validator_id"] for e in on_planted[0]["evidence"]} == {"probes", "validator-1-openai"}
    assert fake.state.usage("openai", "review")[0] > 0

    # the flow's path: the stages' layers, then their merge with the run's validators
    settings = BabelflowSettings(project_root=project)
    run = resolve_run(settings, AdaptRequest.of_options(BENCH, "en-XA", translator="pseudo", validators=validators))
    ir_path, variant = project / ".babelflow" / "ir" / f"{BENCH}.json", project / "adapted" / BENCH / "en-XA"
    integrity = validation_stages.stage_integrity(run, ir_path, variant)
    later = (Layer.CONSISTENCY, Layer.FIDELITY, Layer.BEHAVIOR)
    layers = [integrity] + [
        validation_stages.stage_layer(run, layer, ir_path, variant, integrity.suppressed) for layer in later
    ]
    flow = validation_stages.stage_merge(run, layers, ir_path, variant)
    assert {(f.layer.value, f.kind, f.element_id, tuple(f.validators)) for f in flow.findings} == {
        (f["layer"], f["kind"], f["element_id"], tuple(f["validators"])) for f in failures["findings"]
    }
