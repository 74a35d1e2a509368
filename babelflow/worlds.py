"""Where two values can meet: the scope inside which two terms must be told apart.

In τ² or AgentDojo every task reads one shared database, so two products given one rendering can meet
anywhere: the agent can no longer tell them apart. A VitaBench task carries its own environment (its
stores, products and orders), so two values of different tasks never meet. The authors' English names
'猪肉生煎' (task 12) and '鲜肉生煎包' (task 40) both 'Pork Pan-fried Buns', and no agent, user or judge
ever sees both. A family whose tasks are worlds says so (`BenchmarkFamily.tasks_are_worlds`), the IR
records it, and a value's worlds are the tasks holding it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from babelflow.ir import DataKeyLocator, DataValueLocator, IRDocument, IRElement, TranslationType

EVERYWHERE = ""  # the world of a value outside any task (code, a shared database): it meets every value


def world_of(element: IRElement, ir: IRDocument) -> str:
    """The task an element belongs to when tasks are worlds ('tasks.json#12': the top-level item of its
    data artifact), else EVERYWHERE."""
    if not ir.tasks_are_worlds or not isinstance(element.locator, (DataValueLocator, DataKeyLocator)):
        return EVERYWHERE
    path = element.locator.path
    return f"{element.artifact}#{path[0]}" if path and isinstance(path[0], int) else EVERYWHERE


def worlds_of_terms(ir: IRDocument) -> dict[tuple[str, str], frozenset[str]]:
    """(canonical group, source) -> the worlds its Translate-Canonical fields stand in; {} when the whole
    benchmark is one world (every pair meets, as before)."""
    if not ir.tasks_are_worlds:
        return {}
    seen: dict[tuple[str, str], set[str]] = defaultdict(set)
    for element in ir.elements:
        if element.translation_type is TranslationType.TRANSLATE_CANONICAL:
            seen[(element.canonical_group or "default", element.source_text)].add(world_of(element, ir))
    return {key: frozenset(worlds) for key, worlds in seen.items()}


def collection_of(element: IRElement, ir: IRDocument) -> tuple:
    """Where a kept value must differ from its neighbours. Where tasks are worlds (VitaBench), the list it
    stands in: two options of one product's list, two products of one store ('…products', the path up to
    its last list index), its task's index kept. Elsewhere the whole benchmark is one list: τ²'s order lines
    name the catalogue's products, so a product named with another's name anywhere collides."""
    if not ir.tasks_are_worlds:
        return ()
    if not isinstance(element.locator, (DataValueLocator, DataKeyLocator)):
        return (element.artifact,)
    path = element.locator.path
    last = max((i for i, segment in enumerate(path) if isinstance(segment, int)), default=0)
    keep = max(last, 1) if path and isinstance(path[0], int) else last
    return (element.artifact, *path[:keep])


def meet(first: Iterable[str] | None, second: Iterable[str] | None) -> bool:
    """Whether values standing in these worlds can be seen together (None or EVERYWHERE: anywhere)."""
    if first is None or second is None:
        return True
    first, second = set(first), set(second)
    return EVERYWHERE in first or EVERYWHERE in second or not first.isdisjoint(second)
