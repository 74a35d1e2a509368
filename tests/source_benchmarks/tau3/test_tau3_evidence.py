"""Runtime evidence beyond the gold calls: what τ³'s own code reads, compares and returns.

The unit tests run anywhere (the tracer and the evidence index are babelflow's); the trace test runs
τ³ banking_knowledge in its worker and is skipped without .venv-tau3."""

from __future__ import annotations

import pytest

from analyzers.located_evidence import LocatedEvidence
from babelflow.ir import EvidenceScope, LinkKind
from source_benchmarks.registry import get_benchmark
from source_benchmarks.tau3.runtime import INSTALL_COMMAND, find_runtime
from source_benchmarks.tau_common.read_tool_coverage import field_values, parameter_values
from source_benchmarks.tracing import RECORDER, Traced

RUNTIME = find_runtime()
needs_tau3 = pytest.mark.skipif(isinstance(RUNTIME, str), reason=f"τ³ not installed: {INSTALL_COMMAND}")

DATA = "data/tau2/domains/banking_knowledge"
DB = f"{DATA}/db.json"
TASK = f"{DATA}/tasks/task_001.json"


@pytest.fixture
def recorder():
    saved = RECORDER.phase, RECORDER.observations, RECORDER.formatted, RECORDER.only_with
    RECORDER.phase, RECORDER.observations = "a tool", {}
    yield RECORDER
    RECORDER.phase, RECORDER.observations, RECORDER.formatted, RECORDER.only_with = saved


def test_formatting_a_traced_value_is_seen_and_equality_notes_only_what_the_filter_allows(recorder):
    value, other = Traced("u_123", ("db.json", ("users", "u_123", "user_id"), False)), Traced("u_9", ("t", (), False))
    recorder.formatted = []
    assert f"   user_id: {value}" == "   user_id: u_123" and recorder.formatted == [value]
    recorder.formatted = None
    recorder.only_with = lambda loc: loc[0] == "t"  # only comparisons with the task's fields count
    assert value != "u_9" and not recorder.observations  # a DB value against a plain string: filtered out
    assert value != other and set(recorder.observations) == {value.loc, other.loc}


def test_a_read_tool_takes_the_db_values_its_parameter_names():
    db = {"accounts": {"a1": {"account_id": "a1"}}, "cards": {"c1": {"credit_card_account_id": "cc1"}}}
    fields = field_values(db)
    assert parameter_values("credit_card_account_id", fields) == ["cc1", "a1"]  # its own field, then account_id
    assert parameter_values("customer_id", fields) == []  # never the bare `id`


def test_a_field_path_observed_in_one_file_of_a_group_is_evidence_for_the_others():
    located = LocatedEvidence(
        by_location={(f"{DATA}/documents/a.json", ("id",), False): {"compared_in_code": "golden_retrieval prompt"}},
        available=True,
    )
    assert located.for_paths(f"{DATA}/documents/b.json", set()) == {}  # alone, a file has its own locations only
    grouped = located.for_paths(f"{DATA}/documents/b.json", set(), group=f"{DATA}/documents/*.json")
    observed = grouped[(("id",), False)]
    assert observed.scope is EvidenceScope.FIELD_PATH and observed.observed == 1
    assert observed.kinds == {LinkKind.COMPARED_IN_CODE}


@needs_tau3
def test_banking_trace_sees_retrieval_the_user_tool_list_and_every_read_tool():
    trace = get_benchmark("tau3-banking_knowledge").trace(["task_001"])

    def kinds(artifact: str, *path, is_key: bool = False) -> dict[str, str]:
        return trace.get((artifact, tuple(path), is_key), {})

    # golden_retrieval looks the task's required_documents up among the documents' ids ...
    reference = kinds(TASK, "required_documents", 0)
    assert "golden_retrieval" in reference[LinkKind.COMPARED_IN_CODE.value]
    assert LinkKind.COMPARED_IN_CODE.value in kinds(
        f"{DATA}/documents/doc_credit_cards_gold_rewards_card_001.json", "id"
    )
    # ... and only comparisons with the task count: titles compared with each other while indexed are not noted
    assert not [key for key in trace if key[0].startswith(f"{DATA}/documents/") and key[1] == ("title",)]
    # the runner filters the user's tools by the task's list
    assert "get_user_tools" in kinds(TASK, "user_tools", 0)[LinkKind.COMPARED_IN_CODE.value]
    # the coverage replay: a card transaction no gold call of task_001 reads, compared and returned by τ³'s tools
    record = ("credit_card_transaction_history", "data", "txn_8d1aa1219382")
    assert "coverage replay" in kinds(DB, *record, "merchant_name")[LinkKind.TOOL_OUTPUT.value]
    assert LinkKind.COMPARED_IN_CODE.value in kinds(DB, *record, "user_id")
    # a debit card listed by json.dumps (no f-string) is seen too
    assert LinkKind.TOOL_OUTPUT.value in kinds(DB, "debit_cards", "data", "dbc_538bfb9cba", "cvv")
    # action_id: no code of τ³'s reads it during a run (only Action.__str__, for display): nothing is claimed
    assert kinds(TASK, "evaluation_criteria", "actions", 0, "action_id") == {}
