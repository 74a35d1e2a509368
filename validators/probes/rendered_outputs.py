"""Layer 4: what a model reads from a code text at run time, rendered on the source and on the variant.

Golden replays score the same whether or not a tool's message reaches the user simulator filled: the
evaluator never reads it. So each golden tool call whose source output a code text of the overlay made
(`Wi-Fi is ON and connected to 'HomeNet'`) is read back through that template, and the variant's output of
the same call must carry every slot's run-time value (as is, or as the variant renders that value) and no
raw slot syntax (`{estado['ssid']}`, `%s`). A value the variant shows otherwise through an intact template
came from other data (a renamed DB value): that is reported where the data is, not here.
Comparing the two outputs modulo translation cannot see this:
both sides go through the same catalog, broken slots and all.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from babelflow.format_slots import format_slots
from source_benchmarks.message_catalog import MessageCatalog, SlotFill
from validators.finding_kinds import Layer, Severity, declare_kind
from validators.findings import Hit
from validators.map_parity import Renderings
from validators.probes.behavior import Replays, replay_check

RENDERED_OUTPUT_BROKEN = declare_kind(
    "rendered_output_broken",
    Layer.BEHAVIOR,
    Severity.CRITICAL,
    frozenset(),
    "a code text rendered at run time lost a slot's value or shows raw slot syntax to the model",
)


@dataclass(frozen=True)
class RenderedCall:
    """One tool output code texts made, as the source and the variant render it; `fill` is the code text
    to blame (the one whose slot broke), `fills` every template it was read through (outer first)."""

    fill: SlotFill
    fills: list[SlotFill]
    source: str
    target: str
    raw_slots: list[str]
    lost_values: list[str]


def _value_in(value: str, target: str, renderings: Renderings, catalog: MessageCatalog) -> bool:
    """The variant shows the value: as is, as one of its renderings, or as the catalog translates it."""
    if value in target:
        return True
    candidates = renderings.allowed.get(value, set()) | {catalog.translate(value)}
    return any(candidate and candidate in target for candidate in candidates)


def _intact(fill: SlotFill) -> bool:
    """The variant's template keeps every slot of the source's: a value it shows differently came from other
    data (a renamed DB value, another hashed id), which the consistency checks report where it is."""
    return all(fill.target.count(slot) >= fill.source.count(slot) for slot in set(fill.slots))


def _read(fill: SlotFill, catalog: MessageCatalog, fills: list[SlotFill], leaves: list[tuple[SlotFill, str]]) -> None:
    """Every template a run-time text went through (a slot's value another code text made, read in turn)
    and the leaf values the code put in their slots."""
    fills.append(fill)
    for _, value in fill.values:
        # as the catalog renders it: a whole text of the overlay first ('Data Roaming is now ON.'), then a template
        whole = value in catalog.exact
        inner = catalog.fill_of(value) if len(value.split()) >= 2 and not whole and len(fills) < 8 else None
        if inner is not None:
            _read(inner, catalog, fills, leaves)
        elif value.strip():
            leaves.append((fill, value.strip()))


def same_inputs(source: Any, target: Any, renderings: Renderings) -> bool:
    """The variant's call got the source's arguments, each string as is or as the variant renders it. Other
    arguments make other values (an account id hashed from them): a data defect that other checks report."""
    if isinstance(source, dict) and isinstance(target, dict):
        return source.keys() == target.keys() and all(same_inputs(v, target[k], renderings) for k, v in source.items())
    if isinstance(source, list) and isinstance(target, list):
        return len(source) == len(target) and all(same_inputs(a, b, renderings) for a, b in zip(source, target))
    if isinstance(source, str) and isinstance(target, str):
        return source == target or renderings.accepts(source, target)
    return source == target


def rendered_call(
    source: str, target: str, catalog: MessageCatalog, renderings: Renderings, same_arguments: bool = True
) -> RenderedCall | None:
    """The source output read through the overlay's templates, and what the variant's output of the same
    call lost (None: no template with slots made it). Raw slot syntax is read on every call; a value counts
    as lost only from a template that dropped or changed its slot, on a call whose arguments were the
    source's (`same_arguments`)."""
    made = source.removeprefix("Error: ")
    outer = None if made in catalog.exact else catalog.fill_of(made)  # read as the catalog renders it: whole first
    if outer is None:
        return None
    fills: list[SlotFill] = []
    leaves: list[tuple[SlotFill, str]] = []
    _read(outer, catalog, fills, leaves)
    in_source = {slot.text for slot in format_slots(source, fstring=True)}
    raw = [slot.text for slot in format_slots(target, fstring=True) if slot.text not in in_source]
    raw += [slot for f in fills for slot in f.slots if slot in target and slot not in source and slot not in raw]
    lost = [
        (f, value)
        for f, value in leaves
        if same_arguments and not _intact(f) and not _value_in(value, target, renderings, catalog)
    ]
    blamed = next((f for f in reversed(fills) if any(slot in f.target for slot in raw)), None)
    blamed = blamed or (lost[0][0] if lost else outer)
    return RenderedCall(blamed, fills, source, target, raw, list(dict.fromkeys(value for _, value in lost)))


def rendered_calls(replays: Replays) -> Iterator[tuple[str, RenderedCall]]:
    """(task id, rendered call) for every golden tool call of the agent and the user a code text made."""
    catalog = replays.catalog
    if not catalog.templates:
        return
    for task_id, sg, _, tg, _ in replays.pairs():
        for a, b in zip(sg.tool_calls, tg.tool_calls):
            if a.name != b.name:
                break  # tool_calls_changed reports a diverging sequence
            same = same_inputs(a.arguments, b.arguments, replays.renderings)
            call = rendered_call(a.output, b.output, catalog, replays.renderings, same)
            if call is not None:
                yield task_id, call


@replay_check(RENDERED_OUTPUT_BROKEN)
def rendered_output_broken(replays: Replays) -> Iterator[Hit]:
    """One finding per code text whose rendering broke, at the text, the first call's two renderings as
    evidence and how many calls showed it."""
    ctx = replays.ctx
    where = {t.source: t for t in ctx.overlay.message_texts()} if ctx.overlay is not None else {}
    element_of = {ctx.code_key(e): e.id for e in ctx.ir.elements if e.code_slots}
    broken: dict[str, list[tuple[str, RenderedCall]]] = {}
    for task_id, call in rendered_calls(replays):
        if call.raw_slots or call.lost_values:
            broken.setdefault(call.fill.source, []).append((task_id, call))
    for source, calls in broken.items():
        task_id, call = calls[0]
        text = where.get(source)
        said = []
        if call.raw_slots:
            said.append("raw slot syntax reaches the model: " + ", ".join(call.raw_slots))
        if call.lost_values:
            said.append("slot values missing from the variant's rendering: " + ", ".join(map(repr, call.lost_values)))
        yield Hit(
            artifact=text.module if text is not None else replays.tasks_artifact,
            location=f"{text.qualname} ({text.role})" if text is not None else f"task {task_id}",
            message="; ".join(said) + f" ({len(calls)} call(s), first in task {task_id})",
            task_id=task_id,
            element_id=element_of.get((text.module, text.qualname, text.role, text.occurrence)) if text else None,
            source=call.source,
            target=call.target,
            detail={"template": source, "template_target": call.fill.target, "calls": str(len(calls))},
        )
