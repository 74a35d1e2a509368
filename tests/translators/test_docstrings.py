from __future__ import annotations

import types
from collections.abc import Callable

import docstring_parser
import pytest
from tau2.domains.airline.tools import AirlineTools
from tau2.domains.mock.tools import MockTools
from tau2.domains.retail.tools import RetailTools
from tau2.domains.telecom.tools import TelecomTools
from tau2.domains.telecom.user_tools import TelecomUserTools
from tau2.environment.tool import Tool, as_tool

from babelflow.docstring_parts import (
    DocstringPart,
    docstring_problems,
    join_parts,
    reindent_translation,
    split_docstring,
)
from translators.pseudo_locale import pseudo_translate_text

TOOLKITS = (RetailTools, AirlineTools, TelecomTools, TelecomUserTools, MockTools)


def _tool_functions() -> list[tuple[str, Callable[..., object]]]:
    found: list[tuple[str, Callable[..., object]]] = []
    for toolkit in TOOLKITS:
        for name, member in vars(toolkit).items():
            func = member.fget if isinstance(member, property) else member
            if callable(func) and hasattr(func, "__tool_type__"):
                found.append((f"{toolkit.__name__}.{name}", func))
    return found


TOOLS = _tool_functions()
TOOL_DOCS = {name: func.__doc__ or "" for name, func in TOOLS}
# tau2's own Google docstrings with an Examples section and descriptions on the next line
EXTRA_DOCS = {"as_tool": as_tool.__doc__ or "", "Tool.__init__": Tool.__init__.__doc__ or ""}
ALL_DOCS = {**TOOL_DOCS, **EXTRA_DOCS}


def _pseudo(parts: list[DocstringPart]) -> str:
    return join_parts(
        [
            DocstringPart(text=pseudo_translate_text(p.text, "en-XA"), translatable=True) if p.translatable else p
            for p in parts
        ]
    )


def _replace(doc: str, old: str, new: str) -> str:
    parts = split_docstring(doc)
    (target,) = [p for p in parts if p.translatable and p.text == old]
    return join_parts([DocstringPart(text=new, translatable=True) if p is target else p for p in parts])


def test_all_tau2_tools_are_found() -> None:
    assert len(TOOLS) == 76
    assert all(doc.strip() for doc in TOOL_DOCS.values())


@pytest.mark.parametrize("name", sorted(ALL_DOCS))
def test_split_is_lossless_and_translatable_parts_are_trimmed(name: str) -> None:
    doc = ALL_DOCS[name]
    parts = split_docstring(doc)
    assert join_parts(parts) == doc
    for part in parts:
        assert part.text
        if part.translatable:
            assert part.text == part.text.strip()


@pytest.mark.parametrize("name", sorted(ALL_DOCS))
def test_pseudo_translated_docstring_parses_to_the_same_structure(name: str) -> None:
    doc = ALL_DOCS[name]
    translated = _pseudo(split_docstring(doc))
    assert translated != doc
    before, after = docstring_parser.parse(doc), docstring_parser.parse(translated)
    assert [p.arg_name for p in after.params] == [p.arg_name for p in before.params]
    for old, new in zip(before.params, after.params):
        if old.description:
            assert new.description and new.description != old.description
    assert docstring_problems(doc, translated) == []


@pytest.mark.parametrize(("name", "func"), TOOLS, ids=[name for name, _ in TOOLS])
def test_tau2_builds_the_same_tool_schema_from_the_translated_docstring(name: str, func: Callable[..., object]) -> None:
    """The real consumer: tau2's Tool, whose JSON schema the agent sees."""
    copy = types.FunctionType(  # type: ignore[attr-defined]
        func.__code__, func.__globals__, func.__name__, func.__defaults__, func.__closure__
    )
    copy.__annotations__ = dict(func.__annotations__)
    copy.__doc__ = _pseudo(split_docstring(func.__doc__ or ""))
    # bound like ToolKitBase.tools does, so `self` is not a parameter
    owner = object()
    original = as_tool(types.MethodType(func, owner)).openai_schema
    translated = as_tool(types.MethodType(copy, owner)).openai_schema
    old_props = original["function"]["parameters"].get("properties", {})
    new_props = translated["function"]["parameters"].get("properties", {})
    assert list(new_props) == list(old_props)
    assert original["function"]["parameters"].get("required") == translated["function"]["parameters"].get("required")
    for key, prop in old_props.items():
        assert ("description" in prop) == ("description" in new_props[key])
    assert translated["function"]["description"] != original["function"]["description"]


def _merged(parts: list[DocstringPart]) -> list[tuple[str, bool]]:
    """Consecutive fixed parts (layout, header, spec) joined, to compare against readable expectations."""
    merged: list[tuple[str, bool]] = []
    for part in parts:
        if merged and not part.translatable and not merged[-1][1]:
            merged[-1] = (merged[-1][0] + part.text, False)
        else:
            merged.append((part.text, part.translatable))
    return merged


def test_split_of_a_retail_docstring() -> None:
    parts = split_docstring(TOOL_DOCS["RetailTools.get_order_details"])
    assert [p.kind for p in parts if p.kind in ("header", "spec")] == [
        "header",
        "spec",
        "header",
        "spec",
        "header",
        "spec",
    ]
    assert [p.text for p in parts if p.kind == "header"] == ["Args:", "Returns:", "Raises:"]
    assert _merged(parts) == [
        ("Get the status and details of an order.", True),
        ("\n\n        Args:\n            order_id: ", False),
        ("The order id, such as '#W0000000'. Be careful there is a '#' symbol at the beginning of the order id.", True),
        ("\n\n        Returns:\n            Order: ", False),
        ("The order details.", True),
        ("\n\n        Raises:\n            ValueError: ", False),
        ("If the order is not found.", True),
        ("\n        ", False),
    ]


def test_untyped_returns_and_multi_line_descriptions_are_single_parts() -> None:
    calculate = [p.text for p in split_docstring(TOOL_DOCS["RetailTools.calculate"]) if p.translatable]
    assert calculate[2] == "The result of the mathematical expression."
    exchange = [p for p in split_docstring(TOOL_DOCS["RetailTools.exchange_delivered_order_items"]) if p.translatable]
    new_item_ids = exchange[3]
    assert new_item_ids.text.startswith("The item ids to be exchanged for") and new_item_ids.text.count("\n") == 2
    assert new_item_ids.continuation_indent == " " * 25


def test_example_sections_and_docstrings_without_sections() -> None:
    examples = _merged(split_docstring(EXTRA_DOCS["as_tool"]))[-1]
    assert not examples[1] and examples[0].startswith("\n\n    Examples:")
    only_prose = TOOL_DOCS["TelecomUserTools.check_network_mode_preference"]
    assert split_docstring(only_prose) == [DocstringPart(text=only_prose, translatable=True, continuation_indent="")]
    assert split_docstring("") == [DocstringPart(text="", translatable=False, kind="layout")]


def test_malformed_items_and_unindented_trailers_are_kept_verbatim() -> None:
    doc = (
        "Do it.\n\n    Args:\n        broken item without colon\n        x: The x.\n\n"
        "    Trailing note the parser ignores.\n    "
    )
    parts = split_docstring(doc)
    assert join_parts(parts) == doc
    assert [p.text for p in parts if p.translatable] == ["Do it.", "The x."]
    # a line at column 0 sets cleandoc's margin to 0: "    Args:" is then no header at all
    flat = "Do it.\n    Args:\n        x: The x.\nTrailer."
    assert docstring_parser.parse(flat).params == []
    assert split_docstring(flat) == [DocstringPart(text=flat, translatable=True, continuation_indent="    ")]


def test_tab_indented_docstrings_are_refused() -> None:
    with pytest.raises(ValueError, match="tabs"):
        split_docstring("Do it.\n\tArgs:\n\t\tx: y\n")


def test_reindent_repairs_an_llm_that_dropped_the_indentation() -> None:
    doc = TOOL_DOCS["RetailTools.cancel_pending_order"]
    old = "The reason for cancellation, which should be either 'no longer needed' or 'ordered by mistake'."
    (part,) = [p for p in split_docstring(doc) if p.text == old]
    llm_output = "  La raison de l'annulation.\nValeurs : 'no longer needed' ou 'ordered by mistake'.\n"
    broken = _replace(doc, old, llm_output.strip())
    assert docstring_problems(doc, broken) != []  # column 0 shifts the margin: every header vanishes
    repaired = reindent_translation(part, llm_output)
    assert (
        repaired == "La raison de l'annulation.\n                Valeurs : 'no longer needed' ou 'ordered by mistake'."
    )
    assert docstring_problems(doc, _replace(doc, old, repaired)) == []


def test_reindent_keeps_the_source_shape_when_the_line_count_matches() -> None:
    doc = TOOL_DOCS["RetailTools.transfer_to_human_agents"]
    (prose,) = [p for p in split_docstring(doc) if p.text.startswith("Transfer the user")]
    translated = pseudo_translate_text(prose.text, "en-XA")
    assert reindent_translation(prose, translated) == translated
    flattened = "\n".join(line.strip() for line in translated.split("\n"))
    assert reindent_translation(prose, flattened) == translated


def test_docstring_problems_catches_a_returns_description_read_as_a_type() -> None:
    doc = TOOL_DOCS["RetailTools.calculate"]
    # no space before the colon, as CJK translations often write it
    translated = _replace(doc, "The result of the mathematical expression.", "计算结果:数学表达式的结果。")
    assert docstring_problems(doc, translated) == ["returns type changed from None to '计算结果'"]


def test_docstring_problems_catches_a_lost_parameter() -> None:
    doc = TOOL_DOCS["RetailTools.get_user_details"]
    broken = doc.replace("user_id: ", "user id: ")
    assert docstring_problems(doc, broken) == ["parameters changed from [('user_id', None)] to [('user id', None)]"]
