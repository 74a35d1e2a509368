"""The shared pieces a perturbation-trial family is typed with: the runtime-literal scan (code_inventory),
shape decisions (typing_rules), the model walk (model_schema) and the capability check (analyze.py).
Fast: a small module written here, no benchmark run."""

from __future__ import annotations

import importlib.util
import sys
import textwrap
from pathlib import Path
from types import ModuleType

import pytest
from pydantic import BaseModel

from analyzers.code_inventory import scan_runtime_literals
from analyzers.model_schema import annotation_at
from analyzers.typing_rules import data_leaf_decision, runtime_literal_decision, shape_decision, tool_message_decision
from babelflow.ir import PreserveReason, TranslationType

P, FREE, CANON = TranslationType.PRESERVE, TranslationType.TRANSLATE_FREE, TranslationType.TRANSLATE_CANONICAL

SOURCE = '''
_CITY = "Paris"


class UserTask1:
    PROMPT = f"Book a hotel in {_CITY}, please."
    _TARGET = "Le Marais"
    _NAMES = ["Olivia Smith", "Bob"]

    def utility(self, env) -> bool:
        """Not a literal of the check."""
        found = {"hotel_name": env.name}
        return "le marais" in found["hotel_name"].lower() and env.note == f"Booked {{x}} at {env.time}\\tok"
'''


@pytest.fixture
def module(tmp_path: Path) -> tuple[Path, ModuleType]:
    path = tmp_path / "trial_tasks_mod.py"
    path.write_text(textwrap.dedent(SOURCE), encoding="utf-8")
    spec = importlib.util.spec_from_file_location("trial_tasks_mod", path)
    assert spec is not None and spec.loader is not None
    loaded = importlib.util.module_from_spec(spec)
    sys.modules["trial_tasks_mod"] = loaded
    try:
        spec.loader.exec_module(loaded)
        yield path, loaded
    finally:
        sys.modules.pop("trial_tasks_mod", None)


def test_runtime_literals_hold_what_the_interpreter_holds(module) -> None:
    path, loaded = module
    found = {(lit.qualname, lit.value): lit for lit in scan_runtime_literals(path, loaded, frozenset({"PROMPT"}))}
    prompt = found[("UserTask1.PROMPT", "Book a hotel in Paris, please.")]  # the f-string evaluated, not its source
    assert prompt.where == "attribute"
    assert found[("_CITY", "Paris")].where == "module_constant"
    assert found[("UserTask1._TARGET", "Le Marais")].where == "class_constant"
    assert found[("UserTask1._NAMES", "Olivia Smith")].in_container
    keys = [lit.is_dict_key for lit in scan_runtime_literals(path, loaded, frozenset()) if lit.value == "hotel_name"]
    assert keys == [True, False]  # the dict's key, then the subscript that reads it
    assert found[("UserTask1.utility", "le marais")].where == "function_literal"
    part = found[("UserTask1.utility", "Booked {x} at ")]  # an f-string's text part, {{ unescaped
    assert part.where == "fstring_part"
    assert not any("Not a literal" in value for _, value in found)  # docstrings are not check literals
    literals = scan_runtime_literals(path, loaded, frozenset())
    occurrences = [lit.occurrence for lit in literals if lit.qualname == "UserTask1.utility"]
    assert occurrences == list(range(len(occurrences)))  # numbered per qualname: the overlay's address


def test_trial_shape_decisions() -> None:
    assert shape_decision("Le Marais").translation_type is CANON  # a short value: one rendering everywhere
    assert shape_decision("Please book the cheapest hotel for me.").translation_type is FREE
    assert shape_decision("report_2024.pdf").preserve_reason is PreserveReason.IDENTIFIER
    assert shape_decision("{injection_hotel}").translation_type is P
    escaped = data_leaf_decision("Line one\\nline two", reparsed=True, validated=False, annotation=None, messages=False)
    assert escaped.preserve_reason is PreserveReason.MARKUP
    plain = data_leaf_decision("Line one\\nline two", reparsed=False, validated=False, annotation=None, messages=False)
    assert plain.translation_type is CANON
    message = data_leaf_decision("short text", reparsed=True, validated=False, annotation=None, messages=True)
    assert message.translation_type is FREE
    typed = data_leaf_decision("sunny", reparsed=True, validated=True, annotation=int, messages=False)
    assert typed.preserve_reason is PreserveReason.ENUM_CODE and "int" in typed.typing_rule
    assert tool_message_decision("ok").preserve_reason is PreserveReason.EVALUATOR_TOKEN
    assert tool_message_decision("The file was not found.").translation_type is FREE


def test_runtime_literal_decisions(module) -> None:
    path, loaded = module
    literals = scan_runtime_literals(path, loaded, frozenset({"PROMPT"}))
    by_value = {lit.value: runtime_literal_decision(lit) for lit in literals}
    assert by_value["Book a hotel in Paris, please."].translation_type is FREE
    assert by_value["Olivia Smith"].preserve_reason is PreserveReason.EVALUATOR_TOKEN  # checks iterate the list
    assert by_value["hotel_name"].translation_type is P
    assert by_value["le marais"].preserve_reason is PreserveReason.EVALUATOR_TOKEN  # lowercase check token
    assert by_value["Le Marais"].translation_type is CANON


def test_annotation_at_walks_models_lists_and_maps() -> None:
    class Room(BaseModel):
        beds: int
        name: str

    class Hotel(BaseModel):
        rooms: list[Room]
        tags: dict[str, str]
        note: str | None = None

    assert annotation_at(Hotel, ("rooms", 0, "beds")) is int
    assert annotation_at(Hotel, ("tags", "any")) is str
    assert annotation_at(Hotel, ("note",)) is str
    assert annotation_at(Hotel, ("missing",)) is None


def test_only_a_family_that_provides_the_perturbation_hook_is_typed_by_trial() -> None:
    """The trial runs on the family's perturbation view (family.perturbation), which mypy checks against
    PerturbedBenchmark; a family without the hook, or a benchmark not its own, has none."""
    from source_benchmarks.registry import family_of, get_benchmark

    fixture = get_benchmark("fixture-library")
    assert family_of("fixture-library").perturbation(fixture) is None
    assert family_of("agentdojo-travel").perturbation(fixture) is None  # not an AgentDojo adapter
    travel = get_benchmark("agentdojo-travel")
    assert family_of("agentdojo-travel").perturbation(travel) is travel


def test_an_id_template_stays_under_a_role_wide_translate_rule():
    """A profile rule that makes a file's tool outputs prose must not translate the id template
    txn_{_deterministic_id(f'…')} (τ³ banking seeds transaction ids with it); a sentence with a
    slot is still prose."""
    from analyzers.typing_rules import _is_id_template

    assert _is_id_template("txn_{_deterministic_id(f'checking_credit:{account_id}:{amount}')}")
    assert _is_id_template("split_{Path(path).stem}.json")
    assert not _is_id_template("Order {order_id} not found")
    assert not _is_id_template("user_id")
