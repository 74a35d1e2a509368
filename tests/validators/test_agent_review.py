"""Validator agents that read the translation itself (issue #18), against scripted reviewers.

The variant is a slice of SEATauBench's Vietnamese retail (tests/data/seatau, MIT): task 17 and the
DB entities it touches, with the policy left in English (so no translated sentence quotes an
order status, and the deterministic probes cannot learn how this variant labels one). Task 17's
defect is planted into a clean translation: "You want to change #W8665881 to be delivered to
Suite 641 instead" rendered with the order-status label 'đã giao' where the verb stood, every
token intact, exactly as the corpus has it.
"""

from __future__ import annotations

import gzip
import json
import shutil
import sys
from pathlib import Path

import pytest
from agent_fakes import SilentReviewer, StatusWordReviewer

from validators.agents import ValidatorAgent
from validators.findings import Layer

DATA = Path(__file__).resolve().parents[1] / "data" / "seatau"
sys.path.insert(0, str(DATA))
import corpus  # noqa: E402

TASK = "17"
USER = "fatima_johnson_7581"
REASON = "tasks.json[*].user_scenario.instructions.reason_for_call"
CLEAN = "Bạn muốn đơn hàng #W8665881 được giao đến Suite 641 thay vì địa chỉ cũ."
PLANTED = "Bạn muốn thay đổi #W8665881 thành đã giao đến Suite 641 thay vào đó."  # the corpus's own rendering


def _slice_db(db: dict) -> dict:
    orders = db["users"][USER]["orders"]
    products = {item["product_id"] for o in orders for item in db["orders"][o]["items"]}
    return {
        "products": {k: v for k, v in db["products"].items() if k in products},
        "users": {USER: db["users"][USER]},
        "orders": {k: v for k, v in db["orders"].items() if k in orders},
    }


def build_slice(dest: Path) -> Path:
    """<dest>/en (source), <dest>/clean and <dest>/planted (vi variants), laid out like tau2's data/."""
    packaged = corpus._packaged()
    db = _slice_db(json.loads((packaged / "db.json").read_text(encoding="utf-8")))
    tasks = {
        lang: [t for t in json.loads(gzip.decompress((DATA / f"{lang}.tasks.json.gz").read_bytes())) if t["id"] == TASK]
        for lang in ("en", "vi")
    }
    source = dest / "en" / corpus.RETAIL
    source.mkdir(parents=True)
    (source / "db.json").write_text(json.dumps(db, indent=1), encoding="utf-8")
    (source / "tasks.json").write_text(json.dumps(tasks["en"], indent=1), encoding="utf-8")
    (source / "split_tasks.json").write_text(json.dumps({"base": [TASK]}), encoding="utf-8")
    shutil.copyfile(packaged / "policy.md", source / "policy.md")
    vi_db = json.loads(json.dumps(db))
    for path, value in json.loads(gzip.decompress((DATA / "vi.db_changes.json.gz").read_bytes())):
        node = vi_db
        try:
            for segment in path[:-1]:
                node = node[segment]
            node[path[-1]]  # noqa: B018 - only entities of the slice
        except (KeyError, IndexError, TypeError):
            continue
        node[path[-1]] = value
    for name, reason in (("clean", CLEAN), ("planted", PLANTED)):
        folder = dest / name / corpus.RETAIL
        folder.mkdir(parents=True)
        (folder / "db.json").write_text(json.dumps(vi_db, ensure_ascii=False, indent=1), encoding="utf-8")
        shutil.copyfile(packaged / "policy.md", folder / "policy.md")
        variant_tasks = json.loads(json.dumps(tasks["vi"]))
        variant_tasks[0]["user_scenario"]["instructions"]["reason_for_call"] = reason
        (folder / "tasks.json").write_text(json.dumps(variant_tasks, ensure_ascii=False, indent=1), encoding="utf-8")
    return dest


@pytest.fixture(scope="module")
def seatau_slice(tmp_path_factory):
    from analyzers.analyze import analyze_benchmark
    from babelflow.settings import apply_offline_environment
    from source_benchmarks import get_benchmark

    apply_offline_environment()
    root = build_slice(tmp_path_factory.mktemp("seatau-slice"))
    bench = get_benchmark("tau2-retail", source_dir=root / "en")
    ir = analyze_benchmark(bench)
    reason = next(e for e in ir.elements if e.role == REASON)
    return root, bench, ir, reason


def _validate(seatau_slice, variant: str, agents):
    from validators.run import validate_variant, variant_context

    root, bench, ir, _ = seatau_slice
    return validate_variant(variant_context(bench, root / variant, ir, "vi"), agents=agents)


def _about_reason(failures, reason) -> list:
    """Findings naming task 17's reason_for_call field (by element, or by task and field role)."""
    return [
        f
        for f in failures.findings
        if f.element_id == reason.id or (f.task_id == TASK and f.location.startswith(REASON))
    ]


def test_probes_alone_pass_the_planted_task_17(seatau_slice):
    _, _, _, reason = seatau_slice
    failures = _validate(seatau_slice, "planted", agents=[])
    assert failures.findings, "the slice has other defects the probes do see (the policy left in English)"
    assert _about_reason(failures, reason) == []


def test_three_isolated_reviewers_name_task_17_and_its_field(seatau_slice):
    _, _, ir, reason = seatau_slice
    models = [StatusWordReviewer(f"scripted:reviewer-{n}") for n in (1, 2, 3)]
    agents = [ValidatorAgent(f"validator-{n}", model=m, batch_size=12) for n, m in enumerate(models, start=1)]
    failures = _validate(seatau_slice, "planted", agents)

    (finding,) = [f for f in failures.findings if f.kind == "meaning_changed"]
    assert (finding.task_id, finding.element_id, finding.layer, finding.location) == (
        TASK,
        reason.id,
        Layer.FIDELITY,
        REASON,
    )
    assert finding.validators == ["validator-1", "validator-2", "validator-3"]  # three agents, one merged finding
    assert {e.validator_id for e in finding.evidence} == {"validator-1", "validator-2", "validator-3"}
    assert all("ordinary verb" in e.reasoning and e.detail["quote"] == "đã giao" for e in finding.evidence)

    for model in models:
        first = model.requests[0]
        # the task comes whole, in the first batch, side by side with its source
        (task,) = first.tasks
        field = next(f for f in task.fields if f.unit_id == reason.id)
        assert (task.task_id, field.source, field.target) == (TASK, reason.source_text, PLANTED)
        assert set(field.protected_tokens) >= {"#W8665881"} and field.role == REASON
        # asked, was answered, raised: one conversation per batch, every batch read
        assert [r.turn for r in model.requests[:2]] == [1, 2] and model.requests[1].answers[0].content[
            "target"
        ] == PLANTED
        batches = [r for r in model.requests if r.turn == 1]
        assert len(batches) == first.batches > 1 and [r.batch for r in batches] == list(range(1, first.batches + 1))
        assert (
            sum(len(r.units) for r in batches) == len({u.unit_id for r in batches for u in r.units}) > 50
        )  # each unit once
        assert all(len(r.units) + sum(len(t.fields) for t in r.tasks) <= 12 for r in batches)
        # isolation: nothing of another agent reaches this one
        assert all(set(f.validators) == {"probes"} for r in model.requests for f in r.probe_findings)
        assert all(r.validator_id == model.requests[0].validator_id for r in model.requests)


def test_a_clean_translation_of_task_17_raises_nothing(seatau_slice):
    _, _, _, reason = seatau_slice
    failures = _validate(seatau_slice, "clean", [ValidatorAgent("validator-1", model=StatusWordReviewer())])
    assert _about_reason(failures, reason) == []


def test_budget_reads_every_task_first_then_units_by_risk(seatau_slice):
    from validators.context import ValidationContext
    from validators.review_material import ReviewMaterial, plan_review

    root, bench, ir, reason = seatau_slice
    full = plan_review(
        ReviewMaterial(ValidationContext(bench, root / "planted", ir, "vi"), []), batch_size=12, budget=0
    )
    assert not full.sampled and full.tasks_total == 1 and full.units_total > 50

    model = SilentReviewer()
    agent = ValidatorAgent("validator-1", model=model, batch_size=12, budget=6000)
    failures = _validate(seatau_slice, "planted", [agent])
    read = [r for r in model.requests if r.turn == 1]
    assert read[0].tasks and read[0].tasks[0].task_id == TASK  # the task first
    units = [u for r in read for u in r.units]
    assert 0 < len(units) < full.units_total  # sampled ...
    assert [u.risk for u in units] == sorted((u.risk for u in units), reverse=True)  # ... riskiest first
    note = next(n for n in failures.notes if n.startswith("validator-1"))
    assert f"read 1/1 tasks and {len(units)}/{full.units_total} units (budget 6,000 tokens" in note


def test_validators_tokens_are_ledger_rows_per_agent(seatau_slice, monkeypatch):
    """Three model reviewers on the model layer (answered in-process by a simulated client: no
    network), one ledger: the cost table has one row per agent, and the budget option reaches it."""
    from babelflow.llm.config import parse_spec
    from babelflow.llm.costs import CostLedger, cost_rows
    from babelflow.llm.simulated import SimulatedChatClient, simulated_config
    from validators.model_backends import ModelReviewer

    def done(request: dict) -> dict:
        return {"actions": [{"kind": "done", "reasoning": "read"}]}

    ledger = CostLedger()
    agents = [
        ValidatorAgent(
            f"validator-{n}",
            model=ModelReviewer(simulated_config(), costs=ledger, client=SimulatedChatClient(done)),
            batch_size=12,
        )
        for n in (1, 2, 3)
    ]
    _validate(seatau_slice, "planted", agents)
    rows = [r for r in cost_rows(ledger.report()) if r["stage"] == "validate"]
    assert [r["agent"] for r in rows] == ["validator-1", "validator-2", "validator-3"]
    assert (
        len({(r["requests"], r["input tokens"]) for r in rows}) == 1 and int(rows[0]["requests"]) > 1
    )  # same reading, billed per agent
    assert (
        parse_spec("openai-compatible:m@http://127.0.0.1:9/v1?budget=5000&batch=8", field="--validators").budget == 5000
    )


def test_a_dispute_goes_to_the_reviewer_and_removes_nothing(seatau_slice):
    from validators.agent_exchange import ReviewAction, ReviewReply

    class Disputer(SilentReviewer):
        def review(self, request):
            self.requests.append(request)
            first = request.probe_findings[:1]
            return ReviewReply(
                actions=[ReviewAction(kind="dispute", finding_id=f.id, reasoning="a heading, not prose") for f in first]
                + [ReviewAction(kind="done")]
            )

    failures = _validate(seatau_slice, "planted", [ValidatorAgent("validator-1", model=Disputer(), batch_size=12)])
    note = next(n for n in failures.notes if n.startswith("validator-1"))
    disputed = [f for f in failures.findings if f"disputes {f.id}: a heading, not prose" in note]
    assert disputed and all(f.validators == ["probes"] for f in disputed)  # still there, not upheld by the agent


def test_a_budget_below_the_tasks_reads_every_tasks_instructions_first():
    """Pure: 30 tasks whose assertions are long; the budget fits their instructions, not all of them whole."""
    from types import SimpleNamespace

    from validators.review_material import TaskView, UnitView, item_tokens, plan_review

    def view(uid: str, role: str, text: str, risk: float = 0.0, task: str | None = None) -> UnitView:
        return UnitView(
            unit_id=uid,
            artifact="data/tasks.json",
            role=role,
            type="translate_free",
            task_id=task,
            source=text,
            target=text.upper(),
            risk=risk,
        )

    tasks = [
        TaskView(
            task_id=str(n),
            fields=[
                view(
                    f"i{n}",
                    "tasks.json[*].user_scenario.instructions.reason_for_call",
                    f"You want to return order #{n}.",
                    1.0,
                    str(n),
                ),
                view(
                    f"a{n}",
                    "tasks.json[*].evaluation_criteria.nl_assertions[*]",
                    "The agent explains the refund policy in detail. " * 20,
                    2.0,
                    str(n),
                ),
            ],
        )
        for n in range(30)
    ]
    units = [view(f"u{n}", "policy.md:paragraph", f"Policy paragraph {n}.", risk=float(n % 5)) for n in range(40)]
    material = SimpleNamespace(items=(tasks, units))
    instructions = sum(item_tokens(TaskView(task_id=t.task_id, fields=t.fields[:1])) for t in tasks)
    plan = plan_review(material, batch_size=20, budget=int((instructions + 3000) / 0.75))
    read_tasks = [t for b in plan.batches for t in b[0]]
    assert len(read_tasks) == 30 and all(
        [f.unit_id for f in t.fields] == [f"i{t.task_id}"] for t in read_tasks
    )  # every task's instructions
    read_units = [u for b in plan.batches for u in b[1]]
    assert read_units and [u.risk for u in read_units] == sorted(
        (u.risk for u in read_units), reverse=True
    )  # then by risk
    assert plan.sampled and plan.units_left_out > 0


def test_an_agent_that_remembers_reads_an_unchanged_variant_once(seatau_slice):
    _, _, _, reason = seatau_slice
    model = StatusWordReviewer()
    agent = ValidatorAgent("validator-1", model=model, batch_size=12, remember=True)
    first = _validate(seatau_slice, "planted", [agent])
    read_first = len(model.requests)
    second = _validate(seatau_slice, "planted", [agent])
    again = model.requests[read_first:]
    assert again and all(
        not r.tasks and not r.units for r in again
    )  # only the probe findings, which it reviews each pass
    assert (
        {f.id for f in _about_reason(second, reason)} == {f.id for f in _about_reason(first, reason)} != set()
    )  # its finding, reported again
    assert "unchanged since this agent read them, not sent again" in next(
        n for n in second.notes if n.startswith("validator-1")
    )


def test_an_agent_with_a_memory_file_reads_only_what_changed_in_a_later_run(seatau_slice, tmp_path):
    """A review round is a new process: the memory on disk is what spares the unchanged items, and an
    item is read again when its text changed (the planted variant against the clean one)."""
    _, _, _, reason = seatau_slice
    memory = tmp_path / "memory" / "validator-1.json"
    first_model, later_model = StatusWordReviewer(), StatusWordReviewer()

    def agent(model) -> ValidatorAgent:
        return ValidatorAgent("validator-1", model=model, batch_size=12, remember=True, memory_file=memory)

    first = _validate(seatau_slice, "planted", [agent(first_model)])
    assert memory.is_file() and any(r.tasks for r in first_model.requests)
    unchanged = _validate(seatau_slice, "planted", [agent(later_model)])
    assert later_model.requests and all(not r.tasks and not r.units for r in later_model.requests)
    assert {f.id for f in _about_reason(unchanged, reason)} == {f.id for f in _about_reason(first, reason)} != set()
    changed_model = StatusWordReviewer()
    _validate(seatau_slice, "clean", [agent(changed_model)])
    read_again = [f.unit_id for r in changed_model.requests for t in r.tasks for f in t.fields]
    assert read_again and TASK in {t.task_id for r in changed_model.requests for t in r.tasks}
    assert all(not r.units for r in changed_model.requests)  # the DB's units did not change: not sent again
    memory.write_text("{not json", encoding="utf-8")  # a damaged memory is read again in full
    damaged_model = StatusWordReviewer()
    _validate(seatau_slice, "planted", [agent(damaged_model)])
    assert any(r.tasks for r in damaged_model.requests)


def test_an_agents_batches_read_at_once_report_in_batch_order(seatau_slice):
    """Conversations held in parallel give the same report as one at a time."""
    one, many = StatusWordReviewer(), StatusWordReviewer()
    alone = _validate(seatau_slice, "planted", [ValidatorAgent("validator-1", model=one, batch_size=2)])
    at_once = _validate(seatau_slice, "planted", [ValidatorAgent("validator-1", model=many, batch_size=2, parallel=4)])
    assert len(one.requests) == len(many.requests) > 1
    assert [f.id for f in alone.findings] == [f.id for f in at_once.findings]
