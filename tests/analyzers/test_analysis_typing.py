"""Typing pinned on cases measured on the stock tau2 package (and the peer bug with 'delivered')."""

from __future__ import annotations

import pytest

from babelflow.ir import LinkKind, PreserveReason, TranslationType
from source_benchmarks import benchmarks_of

TAU2_BENCHMARKS = benchmarks_of("tau2")

P, FREE = TranslationType.PRESERVE, TranslationType.TRANSLATE_FREE
CANONICAL = TranslationType.TRANSLATE_CANONICAL


def elements(ir, artifact_suffix: str, role_suffix: str = "", text: str | None = None):
    found = [
        e
        for e in ir.elements
        if e.artifact.endswith(artifact_suffix)
        and e.role.endswith(role_suffix)
        and (text is None or e.source_text == text)
    ]
    assert found, (artifact_suffix, role_suffix, text)
    return found


def assert_all(found, translation_type, reason=None):
    for e in found:
        assert e.translation_type is translation_type, (e.role, e.source_text, e.typing_rule)
        if reason is not None:
            assert e.preserve_reason is reason, (e.role, e.source_text, e.preserve_reason, e.typing_rule)


def group_kinds(ir, element):
    groups = {g.id: g for g in ir.link_groups}
    return set().union(*(set(groups[g].kinds) for g in element.links)) if element.links else set()


def test_airline_cabin_literals_ids_and_codes(analyzed):
    ir = analyzed("tau2-airline")
    assert_all(elements(ir, "db.json", ".reservations.*.cabin"), P, PreserveReason.ENUM_CODE)
    gold_cabin = elements(ir, "tasks.json", ".arguments.cabin")
    assert_all(gold_cabin, P, PreserveReason.ENUM_CODE)
    assert_all(elements(ir, "tasks.json", ".arguments.user_id", "raj_sanchez_7340"), P, PreserveReason.IDENTIFIER)
    assert_all(elements(ir, "db.json", ".users.*{key}", "raj_sanchez_7340"), P, PreserveReason.IDENTIFIER)
    assert_all(elements(ir, "tasks.json", ".arguments.origin", "ORD"), P, PreserveReason.IDENTIFIER)
    assert_all(elements(ir, "tasks.json", ".arguments.insurance"), P, PreserveReason.ENUM_CODE)
    assert_all(elements(ir, "db.json", ".payment_methods.*.source", "gift_card"), P, PreserveReason.ENUM_CODE)
    assert_all(elements(ir, "db.json", ".status", "available"), P, PreserveReason.ENUM_CODE)
    assert_all(elements(ir, "tasks.json", "communicate_info[*]", "1628"), P, PreserveReason.NUMBER)
    economy = elements(ir, "db.json", ".reservations.*.cabin", "economy")[0]
    assert {LinkKind.SCHEMA_LITERAL, LinkKind.TOOL_ARGUMENT, LinkKind.DB_WRITE} <= group_kinds(ir, economy)


def test_retail_cancel_reasons_statuses_names_and_communicate_info(analyzed):
    ir = analyzed("tau2-retail")
    reasons = elements(ir, "tasks.json", ".arguments.reason", "no longer needed")
    assert_all(reasons, P, PreserveReason.ENUM_CODE)
    assert {LinkKind.COMPARED_IN_CODE, LinkKind.DB_WRITE, LinkKind.COMPARED_BY_EVALUATOR} <= group_kinds(ir, reasons[0])
    for status in ("pending", "delivered", "processed", "cancelled"):
        assert_all(elements(ir, "db.json", ".orders.*.status", status), P, PreserveReason.ENUM_CODE)
    # issue 23: an entity value the code only compares with other data is renamed consistently, and the
    # golden argument and the evaluator's communicate_info follow it (one canonical group per class)
    first_names = elements(ir, "db.json", ".users.*.name.first_name", "Yusuf")
    golden = elements(ir, "tasks.json", ".arguments.first_name", "Yusuf")
    assert_all(first_names + golden, CANONICAL)
    assert {e.canonical_group for e in first_names + golden} == {"person_name"}
    polyester = elements(ir, "tasks.json", "communicate_info[*]", "polyester")
    assert_all(polyester, CANONICAL)
    assert {e.canonical_group for e in polyester} == {"option_value"}
    assert any(e.artifact.endswith("db.json") for e in ir.elements if e.links and e.links[0] == polyester[0].links[0])
    assert_all(elements(ir, "tasks.json", ".arguments.order_id", "#W2378156"), P, PreserveReason.IDENTIFIER)
    known = elements(ir, "tasks.json", ".known_info", "You are Yusuf Rossi in zip code 19122.")[0]
    assert known.translation_type is FREE and {"Yusuf", "Rossi", "19122"} <= set(known.inline_tokens)


def test_retail_delivered_as_a_verb_is_prose_not_the_status_code(analyzed):
    ir = analyzed("tau2-retail")
    prose = [e for e in ir.elements if "to be delivered to Suite 641" in e.source_text]
    assert prose
    for e in prose:
        assert e.translation_type is FREE
        assert "delivered" not in e.inline_tokens and "Suite 641" in e.inline_tokens
    quoted = [e for e in ir.elements if e.artifact.endswith("policy.md") and "'delivered'" in e.source_text]
    assert quoted and all("delivered" in e.inline_tokens for e in quoted)


def test_retail_option_values_named_in_instructions_are_linked(analyzed):
    ir = analyzed("tau2-retail")
    clicky = elements(ir, "db.json", ".options.*", "clicky")
    assert_all(clicky, CANONICAL)
    assert LinkKind.MENTIONED_IN_PROSE in group_kinds(ir, clicky[0])
    members = [e for e in ir.elements if clicky[0].links[0] in e.links and e.translation_type is FREE]
    assert any("clicky switches" in e.source_text for e in members)
    option_keys = elements(ir, "db.json", ".options.*{key}", "screen size")
    assert_all(option_keys, P, PreserveReason.SCHEMA_KEY)  # an option's name is structure, never renamed


def test_telecom_excellent_enums_and_ids(analyzed):
    ir = analyzed("tau2-telecom")
    expected = elements(ir, "tasks.json", ".arguments.expected_desc", "excellent")
    assert_all(expected, P, PreserveReason.ENUM_CODE)
    assert LinkKind.COMPARED_IN_CODE in group_kinds(ir, expected[0])
    assert_all(elements(ir, "tasks.json", ".arguments.expected_status", "no_service"), P, PreserveReason.ENUM_CODE)
    assert_all(elements(ir, "tasks.json", ".arguments.mode", "4g_5g_preferred"), P, PreserveReason.ENUM_CODE)
    assert_all(elements(ir, "db.toml", ".status", "Active"), P, PreserveReason.ENUM_CODE)
    assert_all(elements(ir, "tasks.json", ".arguments.customer_id", "C1001"), P, PreserveReason.IDENTIFIER)
    assert_all(elements(ir, "user_tools.py", "", "Excellent"), P, PreserveReason.ENUM_CODE)
    manual = [e for e in ir.elements if e.artifact.endswith("tech_support_manual.md") and "Excellent" in e.source_text]
    assert manual and all("Excellent" in e.inline_tokens for e in manual if e.translation_type is FREE)


@pytest.mark.parametrize("benchmark_id", TAU2_BENCHMARKS)
def test_control_tokens_tool_names_and_docstring_headers(benchmark_id, analyzed):
    ir = analyzed(benchmark_id)
    for token in ("###STOP###", "###TRANSFER###", "###OUT-OF-SCOPE###"):
        assert_all(elements(ir, "user/base.py", "", token), P, PreserveReason.CONTROL_TOKEN)
    headers = [
        e for e in ir.elements if e.role.endswith(":docstring") and e.source_text in ("Args:", "Returns:", "Raises:")
    ]
    assert headers
    assert_all(headers, P, PreserveReason.DOCSTRING_HEADER)
    assert_all(elements(ir, "tasks.json", ".evaluation_criteria.actions[*].name"), P, PreserveReason.TOOL_NAME)
    assert_all(elements(ir, "tasks.json", "[*].id"), P, PreserveReason.IDENTIFIER)
    prose_docs = [e for e in ir.elements if e.role.endswith("tool_code:docstring") and e.translation_type is FREE]
    assert prose_docs


def test_guidelines_name_control_tokens_as_protected_tokens(analyzed):
    ir = analyzed("tau2-mock")
    guideline_blocks = [
        e for e in ir.elements if "simulation_guidelines.md" in e.artifact and "###STOP###" in e.source_text
    ]
    assert guideline_blocks and all("###STOP###" in e.inline_tokens for e in guideline_blocks)


def test_retail_entity_classes_are_decided_by_the_evidence(analyzed):
    """Issue 23: each entity class of the profile gets a decision with its flows; catalogue values are
    renamed consistently, codes and numbers inside a class stay, statuses (compared with literals) stay."""
    ir = analyzed("tau2-retail")
    classes = {entity.name: entity for entity in ir.entity_classes}
    assert set(classes) == {"person_name", "product_name", "option_value", "address"}
    products, options = classes["product_name"], classes["option_value"]
    assert products.decision == "canonical" and products.canonical_values == 50 and not products.kept_values
    assert products.flows.get("tool_output", 0) >= 50  # every product name reaches the agent through a tool
    assert options.canonical_values >= 150 and options.kept_values.get("shape: identifier", 0) > 0
    kept = {
        e.source_text
        for e in ir.elements
        if e.typing_rule.startswith("entity option_value:") and e.translation_type is P
    }
    assert {"8GB", "A4"} <= kept and "clicky" not in kept
