"""Differential analysis of code texts the traced replay leaves open (issue 13, step 1 for code).

The golden replay runs tools and evaluators, never the agent or user simulator, so a prompt
template, a control token such as `###STOP###` or an id template inside a tool has no observation
of its own. Each such Preserve text is perturbed alone in the running code and the benchmark reruns
what reads it (scripted conversations through tau2's orchestrator, golden replays of the tasks that
call its function): a changed outcome is its evidence; "changes no outcome" is recorded as such and
does not count as a role. Runs in a process of its own (the benchmark's `code_trials`), cached by
source hash like the other trials.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from analyzers.code_inventory import CodeText
from analyzers.differential import MAX_TASKS, watched_indices
from analyzers.located_evidence import LocatedEvidence, Observed
from babelflow.ir import ArtifactRole, EvidenceScope, IRElement, LinkKind, TranslationType
from babelflow.text import FORMAT_SLOT
from source_benchmarks.protocol import ArtifactSpec, CodeLiteral
from source_benchmarks.registry import family_of


def general_of(text: CodeText) -> tuple:
    """The evidence table's address of a code text: where it is assigned, or its place in the function."""
    return (text.qualname, text.name or f"#{text.role}{text.occurrence}")


def _function_name(qualname: str) -> str | None:
    """`Class.method` or `function`: the name a task would call; None for a module or class constant."""
    last = qualname.rsplit(".", 1)[-1]
    return None if qualname == "<module>" or last[:1].isupper() else last


def code_differential(
    bench: Any,
    located: LocatedEvidence,
    code_texts: list[tuple[IRElement, CodeText, ArtifactSpec]],
    cached: Callable[[str, Callable[[], Any], str], Any],
    progress: Callable[[str], None],
) -> int:
    """Try every Preserve code text without evidence; returns how many were tried."""
    trials = family_of(bench.id).code_trials(bench)
    if trials is None or not located.available:
        return 0
    open_texts = [
        (e, t, s)
        for e, t, s in code_texts
        if e.translation_type is TranslationType.PRESERVE and not e.evidence and t.role != "docstring"
    ]
    if not open_texts:
        return 0
    ids = bench.task_ids(None)
    calls = {task_id: {name.split(":", 1)[-1] for name in trials.task_functions(task_id)} for task_id in ids}
    sample = [ids[index] for index in watched_indices(bench)]  # tasks that together run most tools
    replay_tasks: dict[str, list[str]] = {}
    conversation_keys: list[str] = []
    for element, text, spec in open_texts:
        if spec.role is ArtifactRole.TOOL_CODE:
            # the tasks that call the function holding the text; a helper's text: tasks running most tools
            function = _function_name(text.qualname)
            direct = [task_id for task_id, names in calls.items() if function in names][:MAX_TASKS] if function else []
            replay_tasks[element.id] = direct or sample
        else:
            conversation_keys.append(element.id)
    literals = [
        CodeLiteral(
            key=e.id, artifact=s.path, file=str(bench.artifact_path(s)), qualname=t.qualname, name=t.name, text=t.text
        )
        for e, t, s in code_texts
        if t.role != "docstring"
    ]
    progress(f"differential: {len(open_texts)} open code texts (scripted conversations, replays)")
    open_keys = [e.id for e, _, _ in open_texts]
    results = cached(
        "code-differential",
        lambda: trials.code_trials(literals, open_keys, conversation_keys, replay_tasks),
        # every input of the trials: the texts tried, their equal texts (link trials) and what reruns
        repr(
            ([literal.model_dump() for literal in literals], open_keys, conversation_keys, sorted(replay_tasks.items()))
        ),
    )
    by_key = {result.key: result for result in results}
    for element, text, _ in open_texts:
        result = by_key.get(element.id)
        if result is None or not result.found:
            continue
        if result.changed is None and result.shown:
            observed = Observed(
                EvidenceScope.DIFFERENTIAL,
                frozenset({LinkKind.TOOL_OUTPUT}),
                "perturbed in the running code: reaches a tool result the model reads, changes no outcome",
            )
        elif result.changed is None:
            observed = Observed(
                EvidenceScope.DIFFERENTIAL, frozenset(), "perturbed in the running code: changes no outcome"
            )
        else:
            link = (
                f"; with {', '.join(result.linked)} perturbed too, the outcome returns (link)" if result.linked else ""
            )
            if "raised KeyError" in result.changed and FORMAT_SLOT.search(text.text):
                link += (
                    "; what the run reads is its {slot} names (str.format): the rest of the template is kept by shape"
                )
            observed = Observed(
                EvidenceScope.DIFFERENTIAL,
                frozenset({LinkKind.PERTURBATION_CHANGES_OUTCOME}),
                f"perturbed in the running code: {result.changed}{link}",
            )
            element.evidence_type = (
                TranslationType.PRESERVE
            )  # the run alone types it: translated, it changes an outcome
        element.evidence = located.entry(element.artifact, general_of(text), observed)
    return len(open_texts)
