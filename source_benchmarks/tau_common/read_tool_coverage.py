"""The coverage replay: every read-only tool called on every key the DB holds, instrumented like a golden
call (τ³: the gold trajectories reach a few records of a few tables; this shows what the tools compare,
look up and return for every record)."""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import Any

from source_benchmarks.tau_common.traced_replay import Instrumented
from source_benchmarks.tracing import leaf_values, phase

# a required parameter that no DB field names gets one plain probe of its annotated type
_PROBES: dict[Any, Any] = {int: 12, float: 1.0, bool: True, "int": 12, "float": 1.0, "bool": True}
COVERAGE_VALUES = 1000  # distinct values tried per tool (banking's largest key set: 604 transaction ids)


@dataclass
class Coverage:
    """What the coverage replay ran: tool calls per tool, and the read tools it could not fill."""

    calls: dict[str, int] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)


def field_values(db: Any) -> dict[str, list[str]]:
    """Distinct string values per field name across a DB (in file order), as plain strings."""
    found: dict[str, dict[str, None]] = {}
    for path, value in leaf_values(db).items():
        if isinstance(value, str) and path and isinstance(path[-1], str) and value.strip():
            found.setdefault(str(path[-1]), {})[str(value)] = None
    return {name: list(values) for name, values in found.items()}


def parameter_values(name: str, fields: dict[str, list[str]]) -> list[str]:
    """The DB values a parameter takes: the field of its name, then fields its name ends with
    (`credit_card_account_id` -> `account_id`, `customer_name` -> `name`), never the bare `id`."""
    words = name.split("_")
    values: dict[str, None] = {}
    for start in range(len(words)):
        suffix = "_".join(words[start:])
        if suffix != "id":
            values.update(dict.fromkeys(fields.get(suffix, ())))
    return list(values)[:COVERAGE_VALUES]


def _read_only(kit: Any, name: str) -> bool:
    from tau2.environment.toolkit import ToolType

    try:
        mutates = getattr(kit, "tool_mutates_state", lambda _: False)(name)
        return kit.tool_type(name) == ToolType.READ and not mutates
    except Exception:  # a tool without a declared type is not called
        return False


def trace_read_tools(env: Any, db_artifacts: tuple[str | None, str | None]) -> Coverage:
    """Call every read-only tool of the agent's and the user's toolkits (discoverable ones included)
    once per DB value its parameters take, instrumented like a golden call, on a fresh environment.

    The gold trajectories reach a few records of a few tables; this shows what the tools themselves
    compare, look up and return for every record. Arguments are plain strings (only the DB is tagged):
    what is observed is what the benchmark's code does with its data, not what we passed."""
    label = "coverage replay of the read tools: "
    Instrumented(env, db_artifacts, watch_db=True, formatted_outputs=True, label=label)
    coverage = Coverage()
    for kit, requestor in ((env.tools, "assistant"), (env.user_tools, "user")):
        if kit is None or kit.db is None:
            continue
        with phase(None):
            fields = field_values(kit.db)
        for name in sorted(kit.tools):
            if not _read_only(kit, name):
                continue
            arguments: dict[str, list[Any]] = {}
            for parameter in inspect.signature(kit.tools[name]).parameters.values():
                if parameter.default is not inspect.Parameter.empty or parameter.kind in (
                    inspect.Parameter.VAR_POSITIONAL,
                    inspect.Parameter.VAR_KEYWORD,
                ):
                    continue
                values = parameter_values(parameter.name, fields)
                if not values and parameter.annotation in _PROBES:
                    values = [_PROBES[parameter.annotation]]
                if not values:
                    coverage.skipped[f"{requestor}:{name}"] = f"no DB field gives its parameter {parameter.name!r}"
                    break
                arguments[parameter.name] = values
            else:
                count = max((len(values) for values in arguments.values()), default=1)
                for index in range(count):
                    kwargs = {key: values[index % len(values)] for key, values in arguments.items()}
                    try:
                        kit.use_tool(name, **kwargs)
                    except Exception:  # an error answer is an answer: the reads before it were observed
                        pass
                coverage.calls[f"{requestor}:{name}"] = count
    return coverage
