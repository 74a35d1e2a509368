"""Run the benchmark instrumented and record where each value goes.

Sources of evidence, all from executing or loading the benchmark's own code:
- golden replay of every task: strings in tool-call arguments (and whether the tool writes the
  DB), strings in tool outputs;
- the tool schemas the agent and user see: tool names, argument names, enum values;
- the evaluation criteria as the evaluators read them: communicate_info (substring match),
  compared action arguments (exact), env-assertion arguments (compared in code);
- the code scan: string literals the tool code compares against;
- the pydantic models: Literal/Enum value sets per field.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import orjson

from babelflow.ir import LinkKind, RuntimeEvidence

MAX_SAMPLES = 3


@dataclass
class ValueTrace:
    kinds: set[LinkKind] = field(default_factory=set)
    samples: list[RuntimeEvidence] = field(default_factory=list)

    def add(self, kind: LinkKind, evidence: RuntimeEvidence) -> None:
        if len(self.samples) < MAX_SAMPLES or kind not in self.kinds:
            self.samples.append(evidence)  # bounded, but every kind keeps at least one example
        self.kinds.add(kind)


@dataclass
class RuntimeEvidenceIndex:
    values: dict[str, ValueTrace] = field(default_factory=lambda: defaultdict(ValueTrace))
    tool_names: set[str] = field(default_factory=set)
    argument_names: set[str] = field(default_factory=set)
    schema_descriptions: list[str] = field(default_factory=list)
    replayed_tasks: int = 0
    tool_calls: int = 0

    def note(self, value: str, kind: LinkKind, evidence: RuntimeEvidence) -> None:
        if value.strip():
            self.values[value].add(kind, evidence)

    def kinds_of(self, value: str) -> set[LinkKind]:
        trace = self.values.get(value)
        return trace.kinds if trace else set()


def string_leaves(value: Any) -> Iterable[str]:
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            yield node
        elif isinstance(node, dict):
            stack.extend(node.values())
            stack.extend(k for k in node if isinstance(k, str))
        elif isinstance(node, (list, tuple)):
            stack.extend(node)


def record_tool_call(index: RuntimeEvidenceIndex, task_id: str, record: Any) -> None:
    """Observer for golden replays (called once per executed tool call)."""
    index.tool_calls += 1
    for value in string_leaves(record.arguments):
        index.note(
            value,
            LinkKind.TOOL_ARGUMENT,
            RuntimeEvidence(source="golden_replay", detail=f"argument of {record.name}", task_id=task_id),
        )
        if record.is_write and not record.error:
            index.note(
                value,
                LinkKind.DB_WRITE,
                RuntimeEvidence(source="golden_replay", detail=f"written by {record.name}", task_id=task_id),
            )
    try:
        output = orjson.loads(record.output)
    except orjson.JSONDecodeError:
        output = record.output
    for value in string_leaves(output):
        index.note(
            value,
            LinkKind.TOOL_OUTPUT,
            RuntimeEvidence(source="golden_replay", detail=f"output of {record.name}", task_id=task_id),
        )


def record_tool_schemas(index: RuntimeEvidenceIndex, schemas: list[dict[str, Any]]) -> None:
    """What the models see: tool names, parameters, enum values and every description string."""
    for schema in schemas:
        function = schema.get("function", schema)
        index.tool_names.add(function["name"])
        stack: list[Any] = [function]
        while stack:
            node = stack.pop()
            if isinstance(node, dict):
                if isinstance(node.get("description"), str):
                    index.schema_descriptions.append(node["description"])
                for name in (node.get("properties") or {}) if isinstance(node.get("properties"), dict) else ():
                    index.argument_names.add(name)
                for value in node.get("enum") or ():
                    if isinstance(value, str):
                        index.note(
                            value,
                            LinkKind.SCHEMA_LITERAL,
                            RuntimeEvidence(source="tool_schema", detail=f"enum in {function['name']}"),
                        )
                stack.extend(node.values())
            elif isinstance(node, list):
                stack.extend(node)


def record_evaluation_criteria(index: RuntimeEvidenceIndex, task: Any) -> None:
    """What an evaluator in τ²'s task schema compares (communicate_info, compared action arguments,
    env assertions). Tasks of another shape (a plug-in family's) add nothing here: their golden
    replay's observed tool calls are their evidence."""
    criteria = getattr(task, "evaluation_criteria", None)
    if criteria is None:
        return
    for info in getattr(criteria, "communicate_info", None) or []:
        index.note(
            info,
            LinkKind.COMPARED_BY_EVALUATOR,
            RuntimeEvidence(
                source="evaluator", detail="communicate_info: substring of agent messages", task_id=task.id
            ),
        )
    for action in getattr(criteria, "actions", None) or []:
        compared = action.compare_args if action.compare_args is not None else list(action.arguments)
        for name in compared:
            for value in string_leaves(action.arguments.get(name)):
                index.note(
                    value,
                    LinkKind.COMPARED_BY_EVALUATOR,
                    RuntimeEvidence(
                        source="evaluator", detail=f"{action.name}.{name} compared exactly", task_id=task.id
                    ),
                )
    for assertion in getattr(criteria, "env_assertions", None) or []:
        for value in string_leaves(assertion.arguments):
            index.note(
                value,
                LinkKind.COMPARED_BY_EVALUATOR,
                RuntimeEvidence(source="evaluator", detail=f"env assertion {assertion.func_name}", task_id=task.id),
            )


def record_compared_literals(index: RuntimeEvidenceIndex, artifact: str, compared: dict[str, list[int]]) -> None:
    for value, lines in compared.items():
        index.note(
            value, LinkKind.COMPARED_IN_CODE, RuntimeEvidence(source="code_scan", detail=f"{artifact} line {lines[0]}")
        )


def record_schema_literals(
    index: RuntimeEvidenceIndex, artifact: str, literal_values: dict[tuple, frozenset[str]]
) -> None:
    for path, values in literal_values.items():
        for value in values:
            index.note(
                value,
                LinkKind.SCHEMA_LITERAL,
                RuntimeEvidence(source="static_scan", detail=f"Literal/Enum of {artifact}:{'.'.join(path)}"),
            )
