"""Tool outputs and DB states of a source replay and a variant's replay, compared: modulo the harness's
translated messages and the variant's renderings of its values (the canonical map, an inferred policy)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from source_benchmarks.message_catalog import MessageCatalog
from source_benchmarks.protocol import ReplayOutcome
from validators.map_parity import Renderings, equal_modulo, explain, holds_free_text, parse_output


def _same_result(source: str, target: str, catalog: MessageCatalog) -> bool:
    """Equal up to the catalog: a text result translated whole, a dict result's top-level texts translated."""
    try:
        parsed_source, parsed_target = json.loads(source), json.loads(target)
    except ValueError:
        return target == catalog.translate(source)
    if isinstance(parsed_source, dict) and isinstance(parsed_target, dict):
        expected = {k: catalog.translate(v) if isinstance(v, str) else v for k, v in parsed_source.items()}
        return expected == parsed_target
    return parsed_source == parsed_target or target == catalog.translate(source)


def _same_modulo(source: str, target: str, renderings: Renderings) -> bool:
    """Equal through the map: each string of a JSON/YAML result as a whole value, a text result whole;
    a text formatted from values equal once the values are replaced by their renderings."""
    parsed_source, parsed_target = parse_output(source), parse_output(target)
    if parsed_source is not None and parsed_target is not None:
        derived = holds_free_text(parsed_source, renderings)  # a translated file's size changes with it
        return equal_modulo(parsed_source, parsed_target, renderings, derived)
    return renderings.accepts(source, target) or renderings.composed(source, target)


def same_output(
    source: str, target: str, catalog: MessageCatalog, renderings: Callable[[], Renderings], mapped: bool
) -> bool:
    """`_same_result`, else equal through the variant's renderings (built only when needed). With a
    canonical map, equal texts are not enough: a mapped value must appear in its rendering."""
    if not mapped and _same_result(source, target, catalog):
        return True
    if mapped and source != target and target == catalog.translate(source):
        return True  # a harness message the code overlay translates whole ('Preferred Network Mode set to: …')
    return _same_modulo(source, target, renderings())


def same_state(a: ReplayOutcome, b: ReplayOutcome) -> bool:
    return (a.final_db_sha256, a.final_user_db_sha256) == (b.final_db_sha256, b.final_user_db_sha256)


ESCAPE = re.compile(r"\\u([0-9a-fA-F]{4})")


def escaped_text(output: str) -> str:
    """The non-ASCII text an output carries as \\uXXXX escapes ('' if none): what an agent would
    have to read through, where the source's English arrives as text."""
    return "".join(chr(int(code, 16)) for code in ESCAPE.findall(output) if int(code, 16) >= 0x80)


def writes(golden: ReplayOutcome, nothing: ReplayOutcome) -> bool:
    """Do the golden actions leave another DB (or user DB) than doing nothing?"""
    return (golden.final_db_sha256, golden.final_user_db_sha256) != (
        nothing.final_db_sha256,
        nothing.final_user_db_sha256,
    )


def with_messages(renderings: Renderings, catalog: MessageCatalog) -> Renderings:
    renderings.messages = catalog.translate  # harness messages the code overlay translates
    return renderings


def difference(source: str, target: str, renderings: Renderings) -> dict[str, str] | None:
    """deepdiff's account of a structured result's difference once the source went through the map."""
    parsed_source, parsed_target = parse_output(source), parse_output(target)
    if parsed_source is None or parsed_target is None:
        return None
    return {"difference_through_map": explain(parsed_source, parsed_target, renderings)}
