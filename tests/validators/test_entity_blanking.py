"""The renderings of what a task's source names are blanked before entity_rendering_unknown looks for another
product's rendering, the longest first, whatever order they come in (VitaBench instore es, Apertium: 'Comida
occidental' is Western food, 'Occidental' the tag Western, 'Comida' the tag Lunch)."""

from __future__ import annotations

import itertools

from validators.probes.references import blanked


def test_the_longest_rendering_is_blanked_first_in_any_order():
    target = "dijo que quiere comer comida occidental. así que control de restaurantes occidentales"
    renderings = ["Occidental", "Comida occidental", "Restaurantes occidentales"]
    results = {blanked(target, set(order)) for order in itertools.permutations(renderings)}
    assert len(results) == 1
    (rest,) = results
    assert "comida" not in rest and len(rest) == len(target)  # nothing left to read as the tag 'Lunch'
