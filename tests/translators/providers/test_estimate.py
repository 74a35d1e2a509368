"""`adapt … --estimate` (flows/pipeline/estimate.py): what a keyed run will spend, counted before any call.

Against the loopback fake, which bills with Qwen's own vocabulary: the estimate sends nothing, needs no key,
leaves the project as it was, and comes within 15% of what the run then spends; after one correction its
estimate of the next run follows the agents' memory. Prices come only from the spec."""

from __future__ import annotations

import hashlib

import orjson
import pytest
from fakes import KEYS, MODELS
from typer.testing import CliRunner

from babelflow.llm.costs import CostLedger, CostReport, cost_rows
from babelflow.llm.estimate import EstimatingClient, stand_in, token_ratio
from babelflow.llm.simulated import simulated_config
from babelflow.llm.token_count import count_tokens
from flows.cli.app import app

PRICED = "price_in=0.7&price_out=2.8"
TRANSLATOR = f"dashscope:{MODELS['dashscope']}?{PRICED}"
VALIDATORS = ",".join([f"dashscope:{MODELS['dashscope']}"] * 3)


def _tree(root) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file() and "prefect" not in p.parts
    }


def _report(root, name: str) -> CostReport:
    return CostReport.model_validate_json((root / ".babelflow" / "costs" / "tau2-mock" / "zh-Hans" / name).read_bytes())


def _tokens(report: CostReport, stage: str | None = None) -> int:
    return sum(report.total(stage=stage))


@pytest.mark.parametrize("ratio", [0.73, 1.3, 2.4])
def test_a_stand_in_takes_the_tokens_the_target_would_and_keeps_what_must_stay(ratio):
    text = "Please cancel order ⟦1⟧ for the Espresso Machine and refund it to your 订单 account ⟦2⟧ today."
    made = stand_in(text, ratio, keep=("订单",))
    assert abs(count_tokens(made) - ratio * count_tokens(text)) <= 2
    assert "⟦1⟧" in made and "⟦2⟧" in made and "订单" in made


def test_ratios_come_from_measured_languages_and_a_chinese_source_reads_the_other_way():
    assert token_ratio("en", "th") == pytest.approx(2.4)
    assert token_ratio("zh", "en") == pytest.approx(1 / 0.73)
    assert token_ratio("en", "fr") == pytest.approx(1.3)  # not measured: the default, said so in the report


def test_the_estimating_client_renders_the_glossary_and_upholds_what_the_probes_found():
    client = EstimatingClient(simulated_config())
    user = {
        "task": "translate",
        "source_language": "en",
        "target_language": "zh-Hans",
        "segments": [{"id": "s1", "text": "Refund the order ⟦1⟧ now.", "context": "", "kind": "free"}],
        "glossary": [{"source": "order", "target": "订单"}],
    }
    reply = orjson.loads(client.complete("system", orjson.dumps(user).decode(), "submit_translations", {}, True).text)
    assert "订单" in reply["translations"][0]["text"] and "⟦1⟧" in reply["translations"][0]["text"]
    review = {"task": "review", "probe_findings": [{"id": "F1"}, {"id": "F2"}]}
    actions = orjson.loads(client.complete("s", orjson.dumps(review).decode(), "submit_review", {}, True).text)
    assert [(a["kind"], a["finding_id"]) for a in actions["actions"]] == [
        ("uphold", "F1"),
        ("uphold", "F2"),
        ("done", None),
    ]


def test_priced_rows_say_usd_and_unpriced_ones_say_so():
    ledger = CostLedger()
    common = {"language": "th", "provider": "dashscope", "model": "qwen3-32b", "estimated": False}
    ledger.record(stage="translate", input_tokens=1_000_000, output_tokens=500_000, prices=(0.7, 2.8), **common)
    ledger.record(stage="validate", input_tokens=10, output_tokens=10, agent="validator-1-dashscope", **common)
    rows = cost_rows(ledger.report())
    assert [r["USD"] for r in rows] == ["2.10", "—", "2.10 (priced rows)"]


def test_estimate_sends_nothing_changes_nothing_and_comes_within_15_percent_of_the_run(
    project, fake, seed_analysis_cache, monkeypatch
):
    seed_analysis_cache(project, "tau2-mock")
    runner = CliRunner()
    keyed = ["adapt", "tau2-mock", "--lang", "zh-Hans", "--translator", TRANSLATOR, "--validators", VALIDATORS]
    before = _tree(project)
    monkeypatch.delenv("DASHSCOPE_API_KEY")  # an estimate needs no key
    estimated = runner.invoke(app, [*keyed, "--estimate"])
    assert estimated.exit_code == 0, estimated.output
    assert fake.state.seen == []  # nothing reached the provider
    assert "estimate before any call" in estimated.output and "assumed:" in estimated.output
    changed = {k for k, v in _tree(project).items() if before.get(k) != v}
    assert changed == {".babelflow/costs/tau2-mock/zh-Hans/estimate.json"}  # the estimate itself, nothing else
    estimate = _report(project, "estimate.json")
    assert {(r.stage, r.agent) for r in estimate.rows} == {("translate", "")} | {
        ("validate", f"validator-{n}-dashscope") for n in (1, 2, 3)
    }
    assert estimate.rows[0].price_in == 0.7 and estimate.usd() is not None

    monkeypatch.setenv("DASHSCOPE_API_KEY", KEYS["dashscope"])
    ran = runner.invoke(app, keyed)
    assert ran.exit_code in (0, 1), ran.output
    actual = _report(project, "adapt.json")
    for stage in ("translate", "validate"):
        requests = [sum(r.requests for r in report.rows if r.stage == stage) for report in (estimate, actual)]
        assert requests[0] == requests[1], stage  # the run's own batching: the same calls
    assert _tokens(estimate) == pytest.approx(_tokens(actual), rel=0.15)

    # after the run, the agents' memory holds what they read: the next run's estimate is a fraction of it
    again = runner.invoke(app, [*keyed, "--estimate"])
    assert again.exit_code == 0, again.output
    assert _tokens(_report(project, "estimate.json"), "validate") < 0.2 * _tokens(actual, "validate")
