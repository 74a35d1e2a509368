"""Reading a tool output back through the code text that made it (issue 38), on τ² retail's own messages
(tau2/domains/retail/tools.py, MIT): a whole message is read whole, as the variant's catalog renders it.
`raise ValueError("Product not found")` also fits `f"{item_id} not found"`: read through the template, the
word 'Product' looked like a slot value the en-XA variant lost (a false critical in 6 clean variants)."""

from __future__ import annotations

from source_benchmarks.message_catalog import MessageCatalog
from validators.map_parity import Renderings
from validators.probes.rendered_outputs import rendered_call

PAIRS = [
    ("Product not found", "[Þŕöðûçţ ñöţ ƒöûñð one two]"),
    ("{item_id} not found", "[{item_id} ñöţ ƒöûñð one]"),
]
CATALOG = MessageCatalog(PAIRS, {"Product not found": [], "{item_id} not found": ["{item_id}"]})


def test_a_whole_message_is_read_whole():
    target = "Error: " + CATALOG.translate("Product not found")
    assert target == "Error: [Þŕöðûçţ ñöţ ƒöûñð one two]"
    assert rendered_call("Error: Product not found", target, CATALOG, Renderings()) is None


def test_a_template_message_carries_its_value_or_is_reported():
    filled = rendered_call("Error: 1008292230 not found", "Error: [1008292230 ñöţ ƒöûñð one]", CATALOG, Renderings())
    assert filled is not None and filled.raw_slots == [] and filled.lost_values == []
    raw = rendered_call("Error: 1008292230 not found", "Error: [{îţéɱ_îð} ñöţ ƒöûñð one]", CATALOG, Renderings())
    assert raw is not None and raw.raw_slots == ["{îţéɱ_îð}"] and raw.lost_values == ["1008292230"]
    assert raw.fill.source == "{item_id} not found"
