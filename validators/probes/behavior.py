"""Layer 4, behavioural equivalence: source and target executed side by side under the same
controlled actions (each task's golden actions, and a do-nothing agent), compared on rewards,
tool results, error sequences, evaluator crashes and final state.

A reward of 1.0 alone is not equivalence: translating retail cancel reasons keeps 1.0 while a
do-nothing agent starts passing, which only the do-nothing comparison shows.

A family whose ground truth scores more than a reward (Capability.SCORED_BEHAVIOUR: AgentDojo's
utility, security and injectability) names its scores and the extra components to compare through
`family.behaviour_scores()`; everything else is compared the same way for every family.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Iterator
from typing import Any, Protocol

from babelflow.gc_pause import gc_paused
from babelflow.ir import ArtifactRole, DataValueLocator, TranslationType
from babelflow.variant import MANIFEST_NAME
from source_benchmarks import family_of
from source_benchmarks.family import Capability
from source_benchmarks.message_catalog import MessageCatalog
from source_benchmarks.protocol import ReplayOutcome
from validators.checks import Scope, check
from validators.context import ValidationContext
from validators.finding_kinds import LOADS, Layer, Severity, declare_kinds
from validators.findings import Hit
from validators.map_parity import (
    Renderings,
    equal_modulo,
    explain,
    holds_free_text,
    map_targets,
    parse_output,
    renderings_for,
)


def replay_pairs_of(bench: Any, task_ids: list[str], label: str) -> dict[str, tuple]:
    """task id -> (golden, do-nothing) outcome, from the benchmark's fastest way to get both."""
    with gc_paused():
        if hasattr(bench, "replay_pairs"):
            return {g.task_id: (g, n) for g, n in bench.replay_pairs(task_ids, label=label)}
        golden = bench.replay_golden(task_ids, label=label)
        nothing = bench.run_do_nothing(task_ids)
        return {g.task_id: (g, n) for g, n in zip(golden, nothing)}


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


def _same_output(
    source: str, target: str, catalog: MessageCatalog, renderings: Callable[[], Renderings], mapped: bool
) -> bool:
    """`_same_result`, else equal through the variant's renderings (built only when needed). With a
    canonical map, equal texts are not enough: a mapped value must appear in its rendering."""
    if not mapped and _same_result(source, target, catalog):
        return True
    if mapped and source != target and target == catalog.translate(source):
        return True  # a harness message the code overlay translates whole ('Preferred Network Mode set to: …')
    return _same_modulo(source, target, renderings())


class BehaviourScores(Protocol):
    """A family's ground-truth scores beyond the reward (family.behaviour_scores(), SCORED_BEHAVIOUR)."""

    compared: dict[str, str]  # reward-breakdown component -> finding kind

    def score_name(self, task_id: str) -> str: ...

    def describe(self, component: str, source: ReplayOutcome, target: ReplayOutcome) -> str: ...


def behaviour_scores(ctx: ValidationContext) -> BehaviourScores | None:
    family = family_of(ctx.source.id)
    return family.behaviour_scores() if Capability.SCORED_BEHAVIOUR in family.capabilities else None


def task_artifacts(ctx: ValidationContext, task_ids: list[str]) -> dict[str, str]:
    """task id -> the file that holds it, for tasks kept one per file (ArtifactSpec.holds_list False):
    the file whose top-level value is the task's id. Tasks in one list or in code are absent (their
    findings name the tasks artifact)."""
    per_file = {s.path for s in ctx.specs if s.role is ArtifactRole.TASKS and s.holds_list is False}
    if not per_file:
        return {}
    wanted = set(task_ids)
    return {
        e.source_text: e.artifact
        for e in ctx.ir.elements
        if e.artifact in per_file
        and isinstance(e.locator, DataValueLocator)
        and len(e.locator.path) == 1
        and e.source_text in wanted
    }


REPLAY_KINDS = declare_kinds(
    Layer.BEHAVIOR,
    LOADS,
    ("harness_crash", Severity.CRITICAL, "replaying the variant raised"),
    (
        "tool_output_escaped",
        Severity.MAJOR,
        "target-language text in tool results reaches the agent as \\u escapes, where the source reads as text",
    ),
    ("task_missing", Severity.CRITICAL, "a task is missing from the variant"),
    ("golden_reward_changed", Severity.CRITICAL, "the golden trajectory scores differently"),
    ("do_nothing_reward_changed", Severity.CRITICAL, "the do-nothing trajectory scores differently"),
    ("tool_error_sequence_changed", Severity.CRITICAL, "tool calls fail differently"),
    ("tool_result_changed", Severity.MAJOR, "a tool call returns something else"),
    ("final_state_changed", Severity.CRITICAL, "the final DB state differs"),
    ("initial_state_changed", Severity.CRITICAL, "the initial DB state differs"),
    # ground-truth scores beyond the reward, for the families that declare them (family.behaviour_scores())
    ("injectability_changed", Severity.CRITICAL, "a task's ground truth sees other injection vectors"),
)


@check(REPLAY_KINDS[0], also=REPLAY_KINDS[1:])
def replays_differ(ctx: ValidationContext, scope: Scope) -> Iterator[Hit]:
    """The source's and the variant's golden and do-nothing replays side by side, in the benchmark's
    own harness: one pass tells the kinds apart. Inputs beyond the variant come from the context:
    `task_ids` (None: all), `source_pairs` and `target_pairs` (task id -> (golden, do-nothing)) to
    reuse replays already run."""
    variant = ctx.harness
    if any(s.layer is Layer.BEHAVIOR for s in scope.suppressed) or variant is None:
        return
    source_pairs, target_pairs = ctx.source_pairs, ctx.target_pairs
    ids = ctx.task_ids if ctx.task_ids is not None else ctx.source.task_ids(None)
    # tasks in a data file (τ²), one file each (τ³ banking) or in code (AgentDojo: one module per kind of task)
    tasks_artifact = next((s.path for s in ctx.specs if s.role is ArtifactRole.TASKS), "<tasks>")
    artifact_of = task_artifacts(ctx, ids)
    scores = behaviour_scores(ctx)
    expected = (
        source_pairs if source_pairs is not None else replay_pairs_of(ctx.source, ids, "behaviour replays: source")
    )
    # given `target_pairs` hold exactly the tasks present in the variant: no need to parse them all here
    present = set(variant.task_ids(None)) if target_pairs is None else set()
    try:
        observed = (
            target_pairs
            if target_pairs is not None
            else replay_pairs_of(
                variant, [t for t in ids if t in present], f"behaviour replays: {ctx.language} variant"
            )
        )
    except Exception as exc:  # a variant that crashes the harness is the finding, not a validator bug
        yield Hit(
            kind="harness_crash",
            artifact=tasks_artifact,
            location="<replay>",
            message=f"replaying the variant raised {type(exc).__name__}: {exc}",
        )
        return
    catalog = MessageCatalog(ctx.overlay.message_pairs()) if ctx.overlay else MessageCatalog([])
    database = {s.path for s in ctx.specs if s.role is ArtifactRole.DATABASE}

    @functools.cache
    def db_translated() -> bool:  # walks every IR element (telecom: 170k, ~0.5 s): only when a result or hash differs
        return any(
            e.translation_type is not TranslationType.PRESERVE for e in ctx.ir.elements if e.artifact in database
        )

    # a DB whose values the variant renders its own way (localized entities, or kept values a
    # variant made elsewhere renders) hashes differently by design: the consistency layer judges
    # those values field by field, replays judge rewards, errors and results modulo the renderings.
    # Built on first use only (the inferred policy: telecom ~2.5 s), not when every result matches.
    inferred = functools.cache(lambda: ctx.policy.renderings_of())
    renderings = functools.cache(lambda: _with_messages(renderings_for(ctx, inferred), catalog))
    mapped = bool(map_targets(ctx))
    findings: list[Hit] = []
    initial_changed: list[str] = []

    def add(
        kind: str,
        task_id: str,
        message: str,
        source: str,
        target: str,
        severity: Severity = Severity.CRITICAL,
        detail: dict[str, str] | None = None,
    ) -> None:
        findings.append(
            Hit(
                kind=kind,
                severity=severity,
                artifact=artifact_of.get(task_id, tasks_artifact),
                location=f"task {task_id}",
                message=message,
                task_id=task_id,
                source=source,
                target=target,
                detail=detail or {},
            )
        )

    escaped: dict[str, list[str]] = {}  # task id -> escaped outputs of its replays
    # the harness check is for variants babelflow registers (their harness shows text); a variant made
    # elsewhere runs in the stock harness, whose encoding is no defect of its files
    registered_here = (ctx.variant_root / MANIFEST_NAME).is_file()
    for task_id in ids:
        if task_id not in observed:
            add("task_missing", task_id, "task is missing from the variant", task_id, "")
            continue
        (sg, sn), (tg, tn) = expected[task_id], observed[task_id]
        outputs = [c.output for c in tg.tool_calls + tn.tool_calls if registered_here and escaped_text(c.output)]
        if outputs:
            escaped[task_id] = outputs
        score = scores.score_name(task_id) if scores is not None else "reward"
        if sg.reward != tg.reward:
            what = f"ground-truth {score}" if scores is not None else "golden replay reward"
            add(
                "golden_reward_changed",
                task_id,
                f"{what} {sg.reward} -> {tg.reward}",
                str(sg.reward_breakdown),
                str(tg.reward_breakdown),
            )
        for component, kind in scores.compared.items() if scores is not None else ():
            if sg.reward_breakdown.get(component) != tg.reward_breakdown.get(component):
                message = scores.describe(component, sg, tg) if scores is not None else component
                before, after = sg.reward_breakdown.get(component), tg.reward_breakdown.get(component)
                add(kind, task_id, message, str(before), str(after))
        if sn.reward != tn.reward or (sn.evaluator_error is None) != (tn.evaluator_error is None):
            add(
                "do_nothing_reward_changed",
                task_id,
                f"do-nothing {score} {sn.reward} -> {tn.reward}",
                str(sn.evaluator_error or sn.reward_breakdown),
                str(tn.evaluator_error or tn.reward_breakdown),
            )
        calls_s = [(c.name, c.error) for c in sg.tool_calls]
        calls_t = [(c.name, c.error) for c in tg.tool_calls]
        if calls_s != calls_t:
            add(
                "tool_error_sequence_changed",
                task_id,
                "tool calls fail differently",
                " ".join(f"{n}{'!' if e else ''}" for n, e in calls_s),
                " ".join(f"{n}{'!' if e else ''}" for n, e in calls_t),
            )
        else:
            for index, (a, b) in enumerate(zip(sg.tool_calls, tg.tool_calls)):
                if a.error:
                    same = b.output == "Error: " + catalog.translate(a.output.removeprefix("Error: "))
                else:
                    same = _same_output(a.output, b.output, catalog, renderings, mapped)
                if not same:
                    add(
                        "tool_result_changed",
                        task_id,
                        f"call {index} ({a.name}) returns something else"
                        + (" through the canonical map" if mapped or db_translated() else ""),
                        a.output,
                        b.output,
                        Severity.MAJOR,
                        _difference(a.output, b.output, renderings()),
                    )
                    break
        same_start = (sn.final_db_sha256, sn.final_user_db_sha256) == (tn.final_db_sha256, tn.final_user_db_sha256)
        same_end = (sg.final_db_sha256, sg.final_user_db_sha256) == (tg.final_db_sha256, tg.final_user_db_sha256)
        if not same_start:
            initial_changed.append(task_id)
        if same_start and same_end:
            continue
        if not (db_translated() or renderings()):
            if same_start:
                add(
                    "final_state_changed",
                    task_id,
                    "final DB state after the golden actions differs",
                    str(sg.final_db_sha256),
                    str(tg.final_db_sha256),
                )
        elif _writes(sg, sn) != _writes(tg, tn):
            # a rendered DB hashes differently by design; whether the golden actions change it must
            # not (what they write is compared above, as the write tools' results, through the map)
            changes = _writes(sg, sn)
            add(
                "final_state_changed",
                task_id,
                f"the golden actions {'change' if changes else 'leave'} the DB in the source "
                f"but {'leave' if changes else 'change'} it in the variant",
                f"golden changes the DB: {changes}",
                f"golden changes the DB: {not changes}",
            )
    if escaped:
        findings.append(escaped_output(tasks_artifact, escaped))
    # a rendered DB differs from the source's at the start by design: its values are judged field by
    # field by the consistency layer (through the map); otherwise one changed value shows in every task
    if initial_changed and not (db_translated() or renderings()):
        db_artifact = next((s.path for s in ctx.specs if s.role.value == "database"), tasks_artifact)
        findings.append(
            Hit(
                kind="initial_state_changed",
                artifact=db_artifact,
                location="<initial DB state>",
                message=f"the DB a task starts from differs from the source's in {len(initial_changed)} task(s)",
                source=", ".join(initial_changed[:5]),
            )
        )
    yield from findings


ESCAPE = re.compile(r"\\u([0-9a-fA-F]{4})")


def escaped_text(output: str) -> str:
    """The non-ASCII text an output carries as \\uXXXX escapes ('' if none): what an agent would
    have to read through, where the source's English arrives as text."""
    return "".join(chr(int(code, 16)) for code in ESCAPE.findall(output) if int(code, 16) >= 0x80)


def escaped_output(artifact: str, escaped: dict[str, list[str]]) -> Hit:
    """One finding for the variant: the cause is the harness's output encoding, not a task."""
    calls = sum(len(outputs) for outputs in escaped.values())
    example = next(iter(escaped.values()))[0]
    return Hit(
        kind="tool_output_escaped",
        artifact=artifact,
        location="<tool output>",
        message=f"{calls} tool result(s) in {len(escaped)} task(s) reach the agent with their target-language text as "
        f"\\u escapes (e.g. {escaped_text(example)[:40]!r}); the variant's harness must show it as text",
        source=", ".join(list(escaped)[:5]),
        target=example[:300],
    )


def _writes(golden: ReplayOutcome, nothing: ReplayOutcome) -> bool:
    """Do the golden actions leave another DB (or user DB) than doing nothing?"""
    return (golden.final_db_sha256, golden.final_user_db_sha256) != (
        nothing.final_db_sha256,
        nothing.final_user_db_sha256,
    )


def _with_messages(renderings: Renderings, catalog: MessageCatalog) -> Renderings:
    renderings.messages = catalog.translate  # harness messages the code overlay translates
    return renderings


def _difference(source: str, target: str, renderings: Renderings) -> dict[str, str] | None:
    """deepdiff's account of a structured result's difference once the source went through the map."""
    parsed_source, parsed_target = parse_output(source), parse_output(target)
    if parsed_source is None or parsed_target is None:
        return None
    return {"difference_through_map": explain(parsed_source, parsed_target, renderings)}
