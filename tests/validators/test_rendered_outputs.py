"""Reading a tool output back through the code text that made it (issue 38), on τ² retail's own messages
(tau2/domains/retail/tools.py, MIT): a whole message is read whole, as the variant's catalog renders it.
`raise ValueError("Product not found")` also fits `f"{item_id} not found"`: read through the template, the
word 'Product' looked like a slot value the en-XA variant lost (a false critical in 6 clean variants)."""

from __future__ import annotations

from source_benchmarks.message_catalog import MessageCatalog
from validators.map_parity import Renderings
from validators.probes.rendered_outputs import rendered_call, same_inputs

PAIRS = [
    ("Product not found", "[Þŕöðûçţ ñöţ ƒöûñð one two]"),
    ("{item_id} not found", "[{item_id} ñöţ ƒöûñð one]"),
]
BROKEN = MessageCatalog([PAIRS[1][:1] + ("[{îţéɱ_îð} ñöţ ƒöûñð one]",)], {PAIRS[1][0]: ["{item_id}"]})
CATALOG = MessageCatalog(PAIRS, {"Product not found": [], "{item_id} not found": ["{item_id}"]})


def test_a_whole_message_is_read_whole():
    target = "Error: " + CATALOG.translate("Product not found")
    assert target == "Error: [Þŕöðûçţ ñöţ ƒöûñð one two]"
    assert rendered_call("Error: Product not found", target, CATALOG, Renderings()) is None


def test_a_template_message_carries_its_value_or_is_reported():
    filled = rendered_call("Error: 1008292230 not found", "Error: [1008292230 ñöţ ƒöûñð one]", CATALOG, Renderings())
    assert filled is not None and filled.raw_slots == [] and filled.lost_values == []
    raw = rendered_call("Error: 1008292230 not found", "Error: [{îţéɱ_îð} ñöţ ƒöûñð one]", BROKEN, Renderings())
    assert raw is not None and raw.raw_slots == ["{îţéɱ_îð}"] and raw.lost_values == ["1008292230"]
    assert raw.fill.source == "{item_id} not found"


def test_a_call_with_other_arguments_is_read_for_raw_slots_only():
    """τ³ banking's planted 'Gold Plus Account' renamed in a task's gold arguments: the variant's call opens
    another account (another hashed id) and its output names other values. That is the data defect, which the
    consistency checks report at the task; the template is not to blame. Raw slot syntax still is."""
    renderings = Renderings(allowed={"Gold Plus Account": {"Ĝöļð Þļûš Åççöûñţ"}})
    source = {"user_id": "jl72b4e9d1", "account_class": "Gold Plus Account"}
    assert same_inputs(source, dict(source), Renderings())
    assert same_inputs(source, {**source, "account_class": "Ĝöļð Þļûš Åççöûñţ"}, renderings)
    assert not same_inputs(source, {**source, "account_class": "Ĝöļð Þļûš Åççöûñţ"}, Renderings())
    assert not same_inputs({"ids": ["a", "b"]}, {"ids": ["a"]}, Renderings())
    raw = rendered_call("Error: 1 not found", "Error: [{îţéɱ_îð} ñöţ ƒöûñð one]", BROKEN, Renderings(), False)
    assert raw is not None and raw.raw_slots == ["{îţéɱ_îð}"] and raw.lost_values == []


def test_an_intact_template_showing_another_value_is_the_data_not_the_template():
    """The task's DB renamed 'Gold Plus Account' (same arguments, other state): the template kept its slot."""
    other = rendered_call("Error: 1 not found", "Error: [2 ñöţ ƒöûñð one]", CATALOG, Renderings())
    assert other is not None and other.lost_values == [] and other.raw_slots == []
