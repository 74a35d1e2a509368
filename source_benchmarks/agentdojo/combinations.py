"""Tasks AgentDojo's TaskCombinator makes from two others: their parts, and the class it would make by default."""

from __future__ import annotations

from typing import Any

from source_benchmarks.agentdojo.loader import load_module

COMBINATOR_MODULE = "agentdojo.task_suite.task_combinators"


def combined_parts(cls: type) -> list[Any]:
    """The two tasks a `TaskCombinator` task runs (its methods close over them), else []."""
    if cls.__module__ != COMBINATOR_MODULE:
        return []
    fn = vars(cls).get("ground_truth")
    return [c.cell_contents for c in (fn.__closure__ or ()) if hasattr(c.cell_contents, "ground_truth")] if fn else []


def combinator() -> Any:
    """A TaskCombinator bound to no suite: `_create_combined_task` builds the class without registering it."""
    return load_module(COMBINATOR_MODULE).TaskCombinator(None)


def default_combination(name: str, parts: list[Any]) -> type:
    """The class AgentDojo's combinator makes from these parts with its default texts."""
    return combinator()._create_combined_task(name, parts[0], parts[1])
