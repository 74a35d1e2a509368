"""Code texts only the agent and user simulator read get runtime evidence from perturbation trials (issue 13).

Real tau2 code throughout: the trials patch tau2's running prompts and tools in a process of their
own, run tau2's orchestrator with scripted models at the `generate` edge, and replay golden tasks.
"""

from __future__ import annotations

import pytest

from babelflow.ir import EvidenceScope, LinkKind, TranslationType


@pytest.fixture(scope="module")
def mock_ir(tmp_path_factory):
    import os

    from analyzers.analyze import analyze_benchmark
    from source_benchmarks import get_benchmark

    saved = os.environ.get("BABELFLOW_ANALYSIS_CACHE")
    os.environ["BABELFLOW_ANALYSIS_CACHE"] = str(
        tmp_path_factory.mktemp("analysis-cache")
    )  # cold: the trials really run
    try:
        yield analyze_benchmark(get_benchmark("tau2-mock"))
    finally:
        if saved is None:
            os.environ.pop("BABELFLOW_ANALYSIS_CACHE")
        else:
            os.environ["BABELFLOW_ANALYSIS_CACHE"] = saved


def _code(ir, artifact: str, text: str, qualname: str = "<module>"):
    found = [
        e
        for e in ir.elements
        if e.artifact == artifact
        and e.locator.kind == "python_literal"
        and e.locator.qualname == qualname
        and e.source_text.strip() == text.strip()
    ]
    assert len(found) == 1, (artifact, qualname, text, found)
    return found[0]


def _evidence(ir, element):
    assert element.evidence, element
    return {entry.id: entry for entry in ir.evidence}[element.evidence]


def test_user_stop_token_changes_the_conversation_and_links_to_the_guidelines(mock_ir):
    entry = _evidence(mock_ir, _code(mock_ir, "user/base.py", "###STOP###"))
    assert entry.scope is EvidenceScope.DIFFERENTIAL and LinkKind.PERTURBATION_CHANGES_OUTCOME in entry.kinds
    # alone: the scripted user says the guidelines' token, tau2 no longer recognises it,
    # the conversation runs to max steps
    assert "user_stop -> max_steps" in entry.detail, entry.detail
    # with the guideline mentions perturbed the same way, the user's token matches again
    assert "simulation_guidelines.md" in entry.detail and "(link)" in entry.detail, entry.detail
    # the solo agent's equal token is not needed for that (no solo agent in this conversation): not named
    assert "LLMSoloAgent" not in entry.detail, entry.detail


@pytest.mark.parametrize("token", ["###TRANSFER###", "###OUT-OF-SCOPE###"])
def test_every_user_control_token_has_its_own_conversation(mock_ir, token):
    entry = _evidence(mock_ir, _code(mock_ir, "user/base.py", token))
    assert LinkKind.PERTURBATION_CHANGES_OUTCOME in entry.kinds and "max_steps" in entry.detail, entry.detail


def test_prompt_templates_break_when_their_slots_are_translated(mock_ir):
    for artifact, name in (("agent/llm_agent.py", "SYSTEM_PROMPT"), ("user/user_simulator.py", "SYSTEM_PROMPT")):
        templates = [
            e
            for e in mock_ir.elements
            if e.artifact == artifact
            and e.source_text.lstrip().startswith("<instructions>" if "agent" in artifact else "{global")
        ]
        assert templates, (artifact, name)
        for element in templates:
            assert element.translation_type is TranslationType.PRESERVE
            entry = _evidence(mock_ir, element)
            assert "raised KeyError" in entry.detail and "{slot} names (str.format)" in entry.detail, entry.detail
            assert element.evidence_type is TranslationType.PRESERVE  # the run alone types it, not only the profile


def test_id_template_in_a_tool_is_read_by_an_env_assertion(mock_ir):
    entry = _evidence(
        mock_ir,
        _code(mock_ir, "domains/mock/tools.py", "task_{len(self.db.tasks) + 1}", qualname="MockTools.create_task"),
    )
    assert LinkKind.PERTURBATION_CHANGES_OUTCOME in entry.kinds
    assert "create_task_1_with_env_assertions" in entry.detail, entry.detail  # asserts task_2 exists


def test_a_text_without_a_role_is_not_given_one(mock_ir):
    # the solo agent writes and checks its own stop token: translating it alone changes nothing
    entry = _evidence(mock_ir, _code(mock_ir, "agent/llm_agent.py", "###STOP###", qualname="LLMSoloAgent"))
    assert entry.kinds == [] and "changes no outcome" in entry.detail
    # ...while the stop tool's name is checked against the tools tau2 gives the solo agent
    done = _evidence(mock_ir, _code(mock_ir, "agent/llm_agent.py", "done", qualname="LLMSoloAgent"))
    assert "raised ValueError" in done.detail, done.detail


def test_docstrings_no_model_reads_are_not_inventoried(mock_ir):
    # assert_number_of_tasks is an env-assertion helper, not an @is_tool: tau2 builds no schema from it
    docstrings = [e for e in mock_ir.elements if e.locator.kind == "python_literal" and e.locator.role == "docstring"]
    assert not [e for e in docstrings if e.locator.qualname == "MockTools.assert_number_of_tasks"]
    assert [e for e in docstrings if e.locator.qualname == "MockTools.create_task"]


def test_mock_preserve_fields_mostly_carry_runtime_evidence(mock_ir):
    from analyzers.evidence_report import evidence_shares

    shares = evidence_shares(mock_ir)
    assert shares.runtime_share >= 0.90, shares
