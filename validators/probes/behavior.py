"""Layer 4, behavioural equivalence: source and target executed side by side under the same
controlled actions (each task's golden actions, and a do-nothing agent), compared on rewards,
tool results, error sequences, evaluator crashes and final state.

A reward of 1.0 alone is not equivalence: translating retail cancel reasons keeps 1.0 while a
do-nothing agent starts passing, which only the do-nothing comparison shows.

A family whose ground truth scores more than a reward (its `behaviour_scores` hook: AgentDojo's
utility, security and injectability) names its scores and the extra components to compare through
`family.behaviour_scores()`; everything else is compared the same way for every family.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from babelflow.gc_pause import gc_paused
from babelflow.ir import ArtifactRole, DataValueLocator, TranslationType
from babelflow.variant import MANIFEST_NAME
from source_benchmarks import family_of
from source_benchmarks.hooks import BehaviourScores
from source_benchmarks.message_catalog import MessageCatalog
from source_benchmarks.protocol import ReplayOutcome
from validators.checks import Scope, check
from validators.context import ReplayPairs, ValidationContext
from validators.finding_kinds import LOADS, FindingKind, Layer, Severity, declare_kinds
from validators.findings import Hit
from validators.map_parity import Renderings, map_targets, renderings_for
from validators.probes.replay_outputs import difference, escaped_text, same_output, same_state, with_messages, writes


def replay_pairs_of(bench: Any, task_ids: list[str], label: str) -> dict[str, tuple]:
    """task id -> (golden, do-nothing) outcome, from the benchmark's fastest way to get both."""
    with gc_paused():
        traced = family_of(bench.id).traced_replay(bench)
        if traced is not None:  # one execution per pair
            return {g.task_id: (g, n) for g, n in traced.replay_pairs(task_ids, label=label)}
        golden = bench.replay_golden(task_ids, label=label)
        nothing = bench.run_do_nothing(task_ids)
        return {g.task_id: (g, n) for g, n in zip(golden, nothing)}


def behaviour_scores(ctx: ValidationContext) -> BehaviourScores | None:
    return family_of(ctx.source.id).behaviour_scores()


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


HARNESS_CRASH, TOOL_OUTPUT_ESCAPED, TASK_MISSING, GOLDEN_REWARD_CHANGED, DO_NOTHING_REWARD_CHANGED = REPLAY_KINDS[:5]
TOOL_ERROR_SEQUENCE_CHANGED, TOOL_RESULT_CHANGED, FINAL_STATE_CHANGED, INITIAL_STATE_CHANGED = REPLAY_KINDS[5:9]
INJECTABILITY_CHANGED = REPLAY_KINDS[9]


@dataclass
class Replays:
    """The source's and the variant's golden and do-nothing replays of the compared tasks, run once per
    context (`task_ids` None: all; `source_pairs` / `target_pairs`: replays already run, reused)."""

    ctx: ValidationContext
    ids: list[str]
    expected: ReplayPairs
    observed: ReplayPairs
    crash: Exception | None = None

    @classmethod
    def of(cls, ctx: ValidationContext) -> Replays:
        variant = ctx.harness
        assert variant is not None  # the checks ask only once the variant loads
        ids = ctx.task_ids if ctx.task_ids is not None else ctx.source.task_ids(None)
        expected = ctx.source_pairs
        if expected is None:
            expected = replay_pairs_of(ctx.source, ids, "behaviour replays: source")
        if ctx.target_pairs is not None:  # exactly the tasks present in the variant: no need to parse them here
            return cls(ctx, ids, expected, ctx.target_pairs)
        present = set(variant.task_ids(None))
        try:
            observed = replay_pairs_of(
                variant, [t for t in ids if t in present], f"behaviour replays: {ctx.language} variant"
            )
        except Exception as exc:  # a variant that crashes the harness is the finding, not a validator bug
            return cls(ctx, ids, expected, {}, crash=exc)
        return cls(ctx, ids, expected, observed)

    @cached_property
    def tasks_artifact(self) -> str:
        # tasks in a data file (τ²), one file each (τ³ banking) or in code (AgentDojo: one module per kind of task)
        return next((s.path for s in self.ctx.specs if s.role is ArtifactRole.TASKS), "<tasks>")

    @cached_property
    def artifact_of(self) -> dict[str, str]:
        return task_artifacts(self.ctx, self.ids)

    @cached_property
    def scores(self) -> BehaviourScores | None:
        return behaviour_scores(self.ctx)

    @cached_property
    def catalog(self) -> MessageCatalog:
        return MessageCatalog.of_overlay(self.ctx.overlay) if self.ctx.overlay else MessageCatalog([])

    @cached_property
    def db_translated(self) -> bool:
        """Walks every IR element (telecom: 170k, ~0.5 s): asked only when a result or hash differs."""
        database = self.ctx.database_paths
        return any(
            e.translation_type is not TranslationType.PRESERVE for e in self.ctx.ir.elements if e.artifact in database
        )

    @cached_property
    def renderings(self) -> Renderings:
        """A DB whose values the variant renders its own way (localized entities, or kept values a variant
        made elsewhere renders) hashes differently by design: the consistency layer judges those values
        field by field, replays judge rewards, errors and results modulo the renderings. Built on first
        use only (the inferred policy: telecom ~2.5 s), not when every result matches."""
        return with_messages(renderings_for(self.ctx, functools.cache(self.ctx.policy.renderings_of)), self.catalog)

    @cached_property
    def mapped(self) -> bool:
        return bool(map_targets(self.ctx))

    def pairs(self) -> Iterator[tuple[str, ReplayOutcome, ReplayOutcome, ReplayOutcome, ReplayOutcome]]:
        """(task id, source golden, source do-nothing, variant golden, variant do-nothing) of the tasks present."""
        for task_id in self.ids:
            if task_id in self.observed:
                (sg, sn), (tg, tn) = self.expected[task_id], self.observed[task_id]
                yield task_id, sg, sn, tg, tn

    def hit(self, kind: str, task_id: str, message: str, source: str, target: str, **seen: Any) -> Hit:
        return Hit(
            kind=kind,
            artifact=self.artifact_of.get(task_id, self.tasks_artifact),
            location=f"task {task_id}",
            message=message,
            task_id=task_id,
            source=source,
            target=target,
            **seen,
        )

    def score(self, task_id: str) -> str:
        return self.scores.score_name(task_id) if self.scores is not None else "reward"


def _replays(ctx: ValidationContext, scope: Scope) -> Replays | None:
    """The replays, once the variant loads and nothing suppressed the behaviour layer; None when the
    harness crashed (harness_crash reports it, the other checks have nothing to compare)."""
    if any(s.layer is Layer.BEHAVIOR for s in scope.suppressed) or ctx.harness is None:
        return None
    replays = ctx.derived(Replays.of)
    return None if replays.crash is not None else replays


ReplayCheck = Callable[[Replays], Iterable[Hit]]


def replay_check(kind: FindingKind, *, also: tuple[FindingKind, ...] = ()) -> Callable[[ReplayCheck], ReplayCheck]:
    """A behaviour check that compares the replays (`Replays`): it does not run when the harness crashed
    or the layer is suppressed (see _replays). Registered in definition order, like the checks."""

    def register(compare: ReplayCheck) -> ReplayCheck:
        def run(ctx: ValidationContext, scope: Scope) -> Iterable[Hit]:
            replays = _replays(ctx, scope)
            return () if replays is None else compare(replays)

        signature = inspect.signature(run)  # a check's, not the comparison's that wraps() would show
        functools.wraps(compare)(run)
        run.__signature__ = signature  # type: ignore[attr-defined]
        check(kind, also=also)(run)
        return compare

    return register


@check(HARNESS_CRASH)
def harness_crash(ctx: ValidationContext, scope: Scope) -> Iterator[Hit]:
    if any(s.layer is Layer.BEHAVIOR for s in scope.suppressed) or ctx.harness is None:
        return
    replays = ctx.derived(Replays.of)
    if replays.crash is not None:
        exc = replays.crash
        yield Hit(
            artifact=replays.tasks_artifact,
            location="<replay>",
            message=f"replaying the variant raised {type(exc).__name__}: {exc}",
        )


@replay_check(TASK_MISSING)
def task_missing(replays: Replays) -> Iterator[Hit]:
    for task_id in replays.ids:
        if task_id not in replays.observed:
            yield replays.hit("task_missing", task_id, "task is missing from the variant", task_id, "")


@replay_check(GOLDEN_REWARD_CHANGED, also=(INJECTABILITY_CHANGED,))
def golden_reward_changed(replays: Replays) -> Iterator[Hit]:
    """The golden replay's reward, and the ground-truth scores beyond it a family compares
    (`family.behaviour_scores()`: AgentDojo's injectability)."""
    scores = replays.scores
    for task_id, sg, _, tg, _ in replays.pairs():
        if sg.reward != tg.reward:
            what = f"ground-truth {replays.score(task_id)}" if scores is not None else "golden replay reward"
            message = f"{what} {sg.reward} -> {tg.reward}"
            yield replays.hit(
                "golden_reward_changed", task_id, message, str(sg.reward_breakdown), str(tg.reward_breakdown)
            )
        compared = scores.compared.items() if scores is not None else ()
        for component, kind in compared:
            before, after = sg.reward_breakdown.get(component), tg.reward_breakdown.get(component)
            if before != after and scores is not None:
                yield replays.hit(kind, task_id, scores.describe(component, sg, tg), str(before), str(after))


@replay_check(DO_NOTHING_REWARD_CHANGED)
def do_nothing_reward_changed(replays: Replays) -> Iterator[Hit]:
    for task_id, _, sn, _, tn in replays.pairs():
        if sn.reward != tn.reward or (sn.evaluator_error is None) != (tn.evaluator_error is None):
            yield replays.hit(
                "do_nothing_reward_changed",
                task_id,
                f"do-nothing {replays.score(task_id)} {sn.reward} -> {tn.reward}",
                str(sn.evaluator_error or sn.reward_breakdown),
                str(tn.evaluator_error or tn.reward_breakdown),
            )


@replay_check(TOOL_ERROR_SEQUENCE_CHANGED, also=(TOOL_RESULT_CHANGED,))
def tool_calls_changed(replays: Replays) -> Iterator[Hit]:
    """The golden replay's tool calls: the same ones failing, then each returning the same (through the
    canonical map and the harness's message catalog); the first result that differs is reported."""
    for task_id, sg, _, tg, _ in replays.pairs():
        calls_s = [(c.name, c.error) for c in sg.tool_calls]
        calls_t = [(c.name, c.error) for c in tg.tool_calls]
        if calls_s != calls_t:
            yield replays.hit(
                "tool_error_sequence_changed",
                task_id,
                "tool calls fail differently",
                " ".join(f"{n}{'!' if e else ''}" for n, e in calls_s),
                " ".join(f"{n}{'!' if e else ''}" for n, e in calls_t),
            )
            continue
        for index, (a, b) in enumerate(zip(sg.tool_calls, tg.tool_calls)):
            if a.error:
                same = b.output == "Error: " + replays.catalog.translate(a.output.removeprefix("Error: "))
            else:
                same = same_output(a.output, b.output, replays.catalog, lambda: replays.renderings, replays.mapped)
            if not same:
                yield replays.hit(
                    "tool_result_changed",
                    task_id,
                    f"call {index} ({a.name}) returns something else"
                    + (" through the canonical map" if replays.mapped or replays.db_translated else ""),
                    a.output,
                    b.output,
                    severity=Severity.MAJOR,
                    detail=difference(a.output, b.output, replays.renderings) or {},
                )
                break


@replay_check(FINAL_STATE_CHANGED)
def final_state_changed(replays: Replays) -> Iterator[Hit]:
    for task_id, sg, sn, tg, tn in replays.pairs():
        same_start, same_end = same_state(sn, tn), same_state(sg, tg)
        if same_start and same_end:
            continue
        if not (replays.db_translated or replays.renderings):
            if same_start:
                message = "final DB state after the golden actions differs"
                yield replays.hit(
                    "final_state_changed", task_id, message, str(sg.final_db_sha256), str(tg.final_db_sha256)
                )
        elif writes(sg, sn) != writes(tg, tn):
            # a rendered DB hashes differently by design; whether the golden actions change it must
            # not (what they write is compared above, as the write tools' results, through the map)
            changes = writes(sg, sn)
            yield replays.hit(
                "final_state_changed",
                task_id,
                f"the golden actions {'change' if changes else 'leave'} the DB in the source "
                f"but {'leave' if changes else 'change'} it in the variant",
                f"golden changes the DB: {changes}",
                f"golden changes the DB: {not changes}",
            )


@replay_check(TOOL_OUTPUT_ESCAPED)
def tool_output_escaped(replays: Replays) -> Iterator[Hit]:
    """The harness check is for variants babelflow registers (their harness shows text); a variant made
    elsewhere runs in the stock harness, whose encoding is no defect of its files."""
    if not (replays.ctx.variant_root / MANIFEST_NAME).is_file():
        return
    escaped: dict[str, list[str]] = {}  # task id -> escaped outputs of its replays
    for task_id, _, _, tg, tn in replays.pairs():
        outputs = [c.output for c in tg.tool_calls + tn.tool_calls if escaped_text(c.output)]
        if outputs:
            escaped[task_id] = outputs
    if escaped:
        yield escaped_output(replays.tasks_artifact, escaped)


@replay_check(INITIAL_STATE_CHANGED)
def initial_state_changed(replays: Replays) -> Iterator[Hit]:
    """A rendered DB differs from the source's at the start by design: its values are judged field by
    field by the consistency layer (through the map); otherwise one changed value shows in every task."""
    changed = [t for t, _, sn, _, tn in replays.pairs() if not same_state(sn, tn)]
    if not changed or replays.db_translated or replays.renderings:
        return
    yield Hit(
        artifact=next((s.path for s in replays.ctx.specs if s.role.value == "database"), replays.tasks_artifact),
        location="<initial DB state>",
        message=f"the DB a task starts from differs from the source's in {len(changed)} task(s)",
        source=", ".join(changed[:5]),
    )


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
