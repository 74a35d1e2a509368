"""Model-backed validator agents: one ReviewModel per SDK, JSON replies validated into ReviewReply,
retried when unusable, never read as 'no findings' when the model does not comply."""

from __future__ import annotations

import pytest
from fakes import FAST, SDKS, Fault, spec

from babelflow.errors import BabelflowError
from babelflow.llm.config import parse_spec
from babelflow.llm.costs import CostLedger
from babelflow.llm.resilience import ProviderError
from tests.validators.findings_by_hand import a_finding
from validators.agent_exchange import ReviewRequest
from validators.findings import Layer, Severity
from validators.model_backends import ModelReviewer, make_validator_agents


def _request() -> ReviewRequest:
    finding = a_finding(
        "probes",
        Layer.FIDELITY,
        "wrong_language",
        Severity.MAJOR,
        "data/tasks.json",
        "task 1 reason_for_call",
        "only 0% of letters are Han",
        element_id="e-1",
        source="Cancel my order",
        target="Cancel my order",
    )
    return ReviewRequest(
        validator_id="validator-1", benchmark="tau2-mock", language="zh-Hans", turn=1, probe_findings=[finding]
    )


@pytest.mark.parametrize("provider", SDKS)
def test_reviewer_reply_is_validated_into_actions(provider, fake):
    costs = CostLedger()
    reviewer = ModelReviewer(parse_spec(spec(provider)), costs=costs)
    assert reviewer.model_id.endswith("/prompt-review.v2")
    request = _request()
    reply = reviewer.review(request)
    assert [(a.kind, a.finding_id) for a in reply.actions] == [("uphold", request.probe_findings[0].id), ("done", None)]
    (row,) = costs.report().rows
    assert (row.stage, row.provider, row.requests) == ("validate", provider, 1)
    assert (row.input_tokens, row.output_tokens) == fake.state.usage(provider, "review")


@pytest.mark.parametrize("provider", SDKS)
def test_reviewer_reads_tasks_and_units_and_quotes_over_the_wire(provider, fake):
    from validators.review_material import TaskView, UnitView

    field = UnitView(
        unit_id="e-2",
        artifact="data/tasks.json",
        role="tasks.json[*].reason_for_call",
        type="translate_free",
        task_id="7",
        source="Cancel order #W1",
        target="Cancel order #W1",
        protected_tokens=["#W1"],
        risk=2.0,
    )
    unit = UnitView(
        unit_id="e-3",
        artifact="policy.md",
        role="policy:paragraph",
        type="translate_free",
        source="Be polite.",
        target="要有礼貌。",
    )
    request = _request().model_copy(
        update={"tasks": [TaskView(task_id="7", fields=[field])], "units": [unit], "batch": 2, "batches": 3}
    )
    reply = ModelReviewer(parse_spec(spec(provider)), costs=CostLedger()).review(request)
    raised = [a for a in reply.actions if a.kind == "raise_finding"]
    assert [(a.element_id, a.task_id, a.finding_kind, a.quote) for a in raised] == [
        ("e-2", "7", "untranslated", "Cancel order #W1")
    ]
    (sent,) = fake.state.requests(provider, "review")
    assert sent.payload["batch"] == 2 and sent.payload["tasks"][0]["fields"][0]["protected_tokens"] == ["#W1"]
    assert (
        "risk" not in sent.payload["tasks"][0]["fields"][0] and "canonical_terms" not in sent.payload["units"][0]
    )  # nothing the model need not read


@pytest.mark.parametrize("provider", SDKS)
@pytest.mark.parametrize("kind", ["bad_json", "truncated", "500"])
def test_unusable_reply_is_asked_again(provider, kind, fake):
    fake.script(provider, Fault(kind, task="review"))
    reply = ModelReviewer(parse_spec(spec(provider)), costs=CostLedger()).review(_request())
    assert reply.actions[-1].kind == "done"
    assert [s.fault for s in fake.state.requests(provider, "review")] == [kind, None]


@pytest.mark.parametrize("provider", SDKS)
def test_a_model_that_never_complies_stops_the_run(provider, fake):
    fake.script(provider, Fault("bad_json", times=None, task="review"))
    with pytest.raises(ProviderError, match="gave no valid review reply"):
        ModelReviewer(parse_spec(spec(provider)), costs=CostLedger()).review(_request())
    assert len(fake.state.requests(provider, "review")) == 3


def test_three_isolated_agents_each_with_its_own_provider(fake):
    costs = CostLedger()
    agents = make_validator_agents(
        f"{spec('openai', FAST)}, {spec('dashscope', FAST)},{spec('anthropic', FAST)}", costs=costs
    )
    assert [a.validator_id for a in agents] == ["validator-1-openai", "validator-2-dashscope", "validator-3-anthropic"]
    models = [a.model for a in agents]
    assert [m.config.provider for m in models] == ["openai", "dashscope", "anthropic"]
    assert (
        len({id(m.caller) for m in models}) == 3 and len({id(m.caller.client) for m in models}) == 3
    )  # nothing shared
    for model in models:
        model.review(_request())
    assert {r.provider for r in costs.report().rows} == {"openai", "dashscope", "anthropic"}


def test_validator_specs_check_keys_first(monkeypatch):
    monkeypatch.delenv("DASHSCOPE_API_KEY", raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-present-0000")
    with pytest.raises(BabelflowError) as raised:
        make_validator_agents("openai:gpt-x,dashscope:qwen-x")
    assert raised.value.field == "DASHSCOPE_API_KEY" and "--validators" in raised.value.fix
