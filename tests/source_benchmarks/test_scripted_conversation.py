"""tau2's own orchestrator, agents and user simulator with scripted models at the `generate` edge,
and code texts perturbed in the running code and put back."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest


@pytest.fixture(scope="module")
def mock():
    from source_benchmarks import get_benchmark

    return get_benchmark("tau2-mock")


def _guidelines(bench, folder: Path) -> Path:
    from babelflow.ir import ArtifactRole

    for spec in bench.artifacts():
        if spec.role is ArtifactRole.USER_GUIDELINES:
            shutil.copy(bench.artifact_path(spec), folder / spec.path.rsplit("/", 1)[-1])
    return folder


def test_scripted_conversations_end_the_way_tau2_decides(mock, tmp_path):
    from source_benchmarks.tau_common.scripted_conversation import conversation_plans, run_conversation

    folder = _guidelines(mock, tmp_path)
    plans = conversation_plans(
        [mock.task(t) for t in mock.task_ids(None)], (folder / "simulation_guidelines.md").read_text()
    )
    assert {p.agent for p in plans} == {"llm_agent", "llm_agent_gt", "llm_agent_solo"}
    assert sorted(p.user_token for p in plans if p.agent == "llm_agent") == [0, 1, 2]  # STOP, TRANSFER, OUT-OF-SCOPE
    outcomes = {
        (p.agent, p.user_token): run_conversation(p, mock.task(p.task_id), "mock", mock.environment_factory, folder)
        for p in plans
    }
    assert outcomes[("llm_agent", 0)].termination == "user_stop"
    assert outcomes[("llm_agent_solo", 0)].termination == "agent_stop"
    # greeting, user, the golden tool call and its result, the agent's answer, the user's token
    assert outcomes[("llm_agent", 0)].messages == 6 and outcomes[("llm_agent", 0)].tool_errors == 0


def test_perturbation_patches_every_binding_and_restores_them():
    import tau2.user.base as base
    import tau2.user.user_simulator as simulator

    from source_benchmarks.tau_common.code_perturbation import CodeLiteral, perturbation, perturbed

    literal = CodeLiteral(
        key="k", artifact="user/base.py", file=base.__file__, qualname="<module>", name="STOP", text="###STOP###"
    )
    with perturbation([literal]) as missing:
        assert missing == []
        assert base.STOP == simulator.STOP == perturbed("###STOP###") != "###STOP###"
    assert base.STOP == simulator.STOP == "###STOP###"


def test_a_function_literal_is_patched_in_its_code_object():
    from tau2.domains.mock.tools import MockTools

    from source_benchmarks.tau_common.code_perturbation import CodeLiteral, perturbation

    code = MockTools.create_task.__code__
    literal = CodeLiteral(
        key="k",
        artifact="domains/mock/tools.py",
        file=__import__("tau2.domains.mock.tools", fromlist=["x"]).__file__,
        qualname="MockTools.create_task",
        text="task_{len(self.db.tasks) + 1}",
    )
    with perturbation([literal]) as missing:
        assert missing == [] and MockTools.create_task.__code__ is not code
        assert "task_" not in MockTools.create_task.__code__.co_consts
    assert MockTools.create_task.__code__ is code
    absent = literal.model_copy(update={"text": "no such literal"})
    with perturbation([absent]) as missing:
        assert missing == ["k"]  # not found where the scanner said: no trial, no evidence


def test_code_trials_run_in_their_own_process(mock):
    """The trial process perturbs, reruns, compares; this process's tau2 stays untouched."""
    import tau2.user.base as base

    from source_benchmarks.tau_common.code_perturbation import CodeLiteral

    literals = [
        CodeLiteral(
            key="stop", artifact="user/base.py", file=base.__file__, qualname="<module>", name="STOP", text="###STOP###"
        ),
        CodeLiteral(
            key="scope",
            artifact="user/base.py",
            file=base.__file__,
            qualname="<module>",
            name="OUT_OF_SCOPE",
            text="###OUT-OF-SCOPE###",
        ),
    ]
    results = {r.key: r for r in mock.code_trials(literals, ["stop", "scope"], ["stop", "scope"], {})}
    assert results["stop"].changed and "max_steps" in results["stop"].changed
    assert any("simulation_guidelines.md" in link for link in results["stop"].linked)
    assert results["scope"].changed and "user token #2" in results["scope"].changed
    assert base.STOP == "###STOP###"


def _tool_result(status: str, line: str) -> dict:
    return {"message": f"{status}\nStatus Bar: {line}", "line": " | ".join([status, line])}


def test_dict_keys_escaped_fstring_parts_and_letterless_separators_are_found():
    """What tau2's telecom tools return: dict keys (one tuple constant), f-strings whose scanned
    text keeps the source's `\\n`, and separators with no letter to accent."""
    from source_benchmarks.tau_common.code_perturbation import CodeLiteral, perturbation, perturbed

    def literal(text: str) -> CodeLiteral:
        return CodeLiteral(key=text, artifact="tests", file=__file__, qualname="_tool_result", text=text)

    with perturbation([literal("message"), literal("{status}\\nStatus Bar: {line}"), literal(" | ")]) as missing:
        assert missing == []
        result = _tool_result("on", "4G")
    assert result == {
        perturbed("message"): f"on{perturbed(chr(10) + 'Status Bar: ')}4G",
        "line": f"on{perturbed(' | ')}4G",
    }
    assert _tool_result("on", "4G") == {"message": "on\nStatus Bar: 4G", "line": "on | 4G"}


class _Kit:
    @classmethod
    def label(cls) -> str:
        return "pending"

    def outer(self) -> str:
        def inner() -> str:
            return "nested text"

        return inner()


STATUS = "open"  # an interned string equal to a constant of another module, not imported from it


def test_texts_the_running_code_cannot_reach_are_not_found_and_nothing_crashes():
    from source_benchmarks.tau_common.code_perturbation import CodeLiteral, perturbation, perturbed

    def literal(qualname: str, text: str, name: str | None = None) -> CodeLiteral:
        return CodeLiteral(key=qualname, artifact="tests", file=__file__, qualname=qualname, name=name, text=text)

    with perturbation(
        [
            literal("_Kit.label", "pending"),
            literal("_Kit.outer.inner", "nested text"),
            literal("_Kit.outer.<locals>.inner", "nested text"),
        ]
    ) as missing:
        assert _Kit.label() == perturbed("pending")  # a classmethod: its function's code is patched
        assert missing == ["_Kit.outer.inner", "_Kit.outer.<locals>.inner"]  # a nested function: reported, not a crash
    assert _Kit.label() == "pending"


def test_an_equal_interned_constant_elsewhere_is_not_patched(tmp_path):
    import importlib
    import sys

    (tmp_path / "babelflow_owner_mod.py").write_text('STATUS = "open"\n')
    (tmp_path / "babelflow_user_mod.py").write_text(
        "from babelflow_owner_mod " + "import STATUS\n"
    )  # split: this file must not hold the import line itself
    sys.path.insert(0, str(tmp_path))
    try:
        owner, user = importlib.import_module("babelflow_owner_mod"), importlib.import_module("babelflow_user_mod")
        from source_benchmarks.tau_common.code_perturbation import CodeLiteral, perturbation

        assert STATUS is owner.STATUS  # interned: the same object, though this module never imported it
        with perturbation(
            [CodeLiteral(key="k", artifact="x", file=owner.__file__, qualname="<module>", name="STATUS", text="open")]
        ):
            assert owner.STATUS != "open" and user.STATUS == owner.STATUS
            assert STATUS == "open"
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("babelflow_owner_mod", None)
        sys.modules.pop("babelflow_user_mod", None)
