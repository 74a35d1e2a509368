"""Validation stage: clean variants validate empty, injected defects are caught by a finding that
names the broken field, reports merge per (field, layer, kind), a precondition failure suppresses
dependent layers, and validator agents review through the ask/raise protocol in isolation.

Everything runs on tau2-mock and fixture-library (seconds); the whole catalogue on the slow
domains is exercised by bench/inject_defects.py.
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import orjson
import pytest

from babelflow.adapt_request import AdaptRequest
from babelflow.canonical_map import load_canonical_map
from babelflow.ir import TranslationType
from babelflow.settings import BabelflowSettings
from bench.defects import CATALOGUE, InjectedDefect, caught_by, inject_defect
from source_benchmarks import benchmark_ids, get_benchmark, open_variant
from tests.validators.findings_by_hand import a_finding
from validators.agent_exchange import ReviewAction, ReviewReply, ReviewRequest
from validators.agents import ValidatorAgent
from validators.context import ValidationContext
from validators.findings import Layer, Severity, excerpt, merge
from validators.probes.behavior import replay_pairs_of
from validators.run import PROBES, validate_variant, variant_context

FAST = ("tau2-mock", "fixture-library")


class Built:
    def __init__(self, benchmark_id: str, language: str, root: Path, ir):
        from flows.pipeline.adapt import adapt

        result = adapt(
            AdaptRequest.of_options(benchmark_id, language), settings=BabelflowSettings(project_root=root), ir=ir
        )
        self.benchmark_id, self.language, self.ir, self.variant = (
            benchmark_id,
            language,
            result.ir,
            result.paths.variant,
        )
        self.canonical_map = load_canonical_map(result.paths.canonical_map, benchmark_id, language)
        self.source = get_benchmark(benchmark_id)
        self.source_pairs = replay_pairs_of(self.source, self.source.task_ids(None), "source replays")

    def target_text(self, element) -> str | None:
        return ValidationContext(self.source, self.variant, self.ir, self.language).target_text(element)

    def copy(self, to: Path) -> Path:
        shutil.copytree(self.variant, to)
        return to

    def validate(self, variant_dir: Path, agents=None):
        return validate_variant(
            variant_context(
                self.source,
                variant_dir,
                self.ir,
                self.language,
                canonical_map=self.canonical_map,
                source_pairs=self.source_pairs,
            ),
            agents=agents,
        )


@pytest.fixture(scope="module")
def built(tmp_path_factory, analyzed):
    """built(benchmark, language) -> a clean variant (built once per module) and how to validate it."""
    root = tmp_path_factory.mktemp("validation-project")
    cache: dict[tuple[str, str], Built] = {}

    def get(benchmark_id: str, language: str = "en-XA") -> Built:
        if (benchmark_id, language) not in cache:
            cache[(benchmark_id, language)] = Built(benchmark_id, language, root, analyzed(benchmark_id))
        return cache[(benchmark_id, language)]

    return get


def _defective(built_variant: Built, kind: str, tmp_path: Path, seed: int = 0) -> tuple[Path, InjectedDefect]:
    work = built_variant.copy(tmp_path / f"{kind}-variant")
    return work, inject_defect(kind, work, built_variant.ir, random.Random(seed))


# ---- (a) clean variants ------------------------------------------------------------------------


@pytest.mark.parametrize("benchmark_id", FAST)
@pytest.mark.parametrize("language", ["en-XA", "ar-XB"])
def test_clean_variant_validates_to_an_empty_failure_set(benchmark_id, language, built):
    variant = built(benchmark_id, language)
    failures = variant.validate(variant.variant)
    assert [(f.layer.value, f.kind, f.artifact, f.location, f.message) for f in failures.findings] == []
    assert failures.empty and failures.suppressed == []
    assert failures.validators == [PROBES, "validator-1", "validator-2", "validator-3"]


# ---- (b) injected defects are caught, naming the field -----------------------------------------

# kind, benchmark, layer and finding kind of the finding that must name the injected field
CAUGHT = [
    ("db_enum_code_translated", "tau2-mock", Layer.CONSISTENCY, "preserved_value_changed"),
    ("gold_arg_id_translated", "tau2-mock", Layer.CONSISTENCY, "preserved_value_changed"),
    ("canonical_entity_two_renderings", "fixture-library", Layer.CONSISTENCY, "canonical_inconsistent"),
    ("db_value_changed_not_task", "fixture-library", Layer.CONSISTENCY, "preserved_value_changed"),
    ("inline_token_dropped", "tau2-mock", Layer.CONSISTENCY, "reference_lost"),
    ("guideline_control_token_translated", "tau2-mock", Layer.CONSISTENCY, "reference_lost"),
    ("preserved_code_literal_translated", "fixture-library", Layer.CONSISTENCY, "preserved_code_text_translated"),
    ("inline_token_duplicated", "tau2-mock", Layer.FIDELITY, "token_duplicated"),
    ("segment_truncated", "fixture-library", Layer.FIDELITY, "truncated"),
    ("paragraph_untranslated", "fixture-library", Layer.FIDELITY, "untranslated"),
    ("wrong_target_language", "tau2-mock", Layer.FIDELITY, "wrong_language"),
    ("placeholder_left", "fixture-library", Layer.FIDELITY, "placeholder_left"),
    ("answered_not_translated", "fixture-library", Layer.FIDELITY, "answered_not_translated"),
    ("commentary_added", "tau2-mock", Layer.FIDELITY, "added_commentary"),
    ("prose_number_changed", "fixture-library", Layer.FIDELITY, "number_changed"),
    ("docstring_header_translated", "tau2-mock", Layer.INTEGRITY, "tool_schema_changed"),
    ("file_missing", "fixture-library", Layer.INTEGRITY, "artifact_missing"),
    ("json_type_changed", "fixture-library", Layer.INTEGRITY, "type_changed"),
    ("key_added", "tau2-mock", Layer.INTEGRITY, "key_added"),
    ("heading_marker_lost", "fixture-library", Layer.INTEGRITY, "markdown_structure_changed"),
    ("gold_actions_reordered", "fixture-library", Layer.BEHAVIOR, "tool_error_sequence_changed"),
]


def test_the_catalogue_is_large_and_every_kind_applies_somewhere():
    assert len(CATALOGUE) >= 28
    assert all(kind.benchmarks and set(kind.benchmarks) <= set(benchmark_ids()) for kind in CATALOGUE.values())
    assert {layer for _, _, layer, _ in CAUGHT} == set(Layer) and len({kind for kind, *_ in CAUGHT}) >= 12


@pytest.mark.parametrize("kind,benchmark_id,layer,finding_kind", CAUGHT, ids=[c[0] for c in CAUGHT])
def test_injected_defect_is_caught_by_a_finding_naming_the_field(
    kind, benchmark_id, layer, finding_kind, built, tmp_path
):
    variant = built(benchmark_id)
    work, defect = _defective(variant, kind, tmp_path)
    assert defect.kind == kind and defect.expected_layers
    failures = variant.validate(work)
    naming = [
        f
        for f in failures.findings
        if f.layer is layer
        and f.kind == finding_kind
        and (
            f.element_id == defect.element_id
            if defect.element_id
            else f.artifact == defect.artifact
            and (f.location == defect.location or (defect.task_id is not None and f.task_id == defect.task_id))
        )
    ]
    assert naming, (
        f"{kind}: no {layer.value}/{finding_kind} finding names {defect.element_id or defect.location}; "
        f"got {[(f.layer.value, f.kind, f.artifact, f.location, f.element_id) for f in failures.findings]}"
    )
    assert caught_by(failures, defect)
    finding = naming[0]
    assert finding.validators == [PROBES] and finding.evidence and finding.severity in set(Severity)
    if defect.element_id and layer in (
        Layer.CONSISTENCY,
        Layer.FIDELITY,
    ):  # side by side: the source text and the broken target
        element = variant.ir.by_id()[defect.element_id]
        assert finding.evidence[0].source == excerpt(element.source_text)
        broken = ValidationContext(variant.source, work, variant.ir, variant.language).target_text(element)
        assert finding.evidence[0].target == excerpt(broken) and broken != variant.target_text(element)


def test_element_defect_records_the_exact_field_it_broke(built, tmp_path):
    variant = built("tau2-mock")
    work, defect = _defective(variant, "gold_arg_id_translated", tmp_path)
    element = variant.ir.by_id()[defect.element_id]
    assert element.translation_type is TranslationType.PRESERVE and element.artifact == defect.artifact
    before = orjson.loads((variant.variant / element.artifact).read_bytes())
    after = orjson.loads((work / element.artifact).read_bytes())
    node_before, node_after = before, after
    for segment in element.locator.path:
        node_before, node_after = node_before[segment], node_after[segment]
    assert node_before == element.source_text and node_after != element.source_text
    # nothing else changed: restoring the one field gives back the clean document
    parent = after
    for segment in element.locator.path[:-1]:
        parent = parent[segment]
    parent[element.locator.path[-1]] = element.source_text
    assert after == before
    # a behaviour finding names the task the broken argument belongs to
    failures = variant.validate(work)
    assert any(f.layer is Layer.BEHAVIOR and f.task_id == defect.task_id for f in failures.findings)


def test_injection_is_deterministic_for_a_seed(built, tmp_path):
    variant = built("fixture-library")
    first = _defective(variant, "inline_token_dropped", tmp_path / "a", seed=7)[1]
    second = _defective(variant, "inline_token_dropped", tmp_path / "b", seed=7)[1]
    assert first == second


# ---- (c) the merge ------------------------------------------------------------------------------


def test_same_field_layer_and_kind_from_two_validators_merge_into_one_finding():
    common = dict(
        artifact="data/tasks.json",
        location="tasks.json[*].ticket @ $[0]['ticket']",
        element_id="e1",
        source="Ship it to 1628 Main St",
        target="[Šĥîþ îţ ţö 1.628 Ṁåîñ Šţ]",
    )
    first = a_finding(
        "validator-1",
        Layer.FIDELITY,
        "number_changed",
        Severity.MAJOR,
        message="numbers differ",
        reasoning="1628 became 1.628",
        **common,
    )
    second = a_finding(
        "validator-2",
        Layer.FIDELITY,
        "number_changed",
        Severity.CRITICAL,
        message="house number changed",
        reasoning="the house number is a thousand times larger",
        **common,
    )
    other_kind = a_finding(
        "validator-2", Layer.FIDELITY, "wrong_language", Severity.MAJOR, message="not en-XA", **common
    )
    assert first.id == second.id  # ids are stable per (field, layer, kind)
    failures = merge("tau2-mock", "en-XA", [[first], [second, other_kind]], ["validator-1", "validator-2"], [], [])
    assert len(failures.findings) == 2
    merged = next(f for f in failures.findings if f.kind == "number_changed")
    assert merged.validators == ["validator-1", "validator-2"]
    assert [(e.validator_id, e.reasoning) for e in merged.evidence] == [
        ("validator-1", "1628 became 1.628"),
        ("validator-2", "the house number is a thousand times larger"),
    ]
    assert merged.severity is Severity.CRITICAL  # the most severe view wins
    assert first.validators == ["validator-1"] and len(first.evidence) == 1  # inputs are not mutated


# ---- (d) precondition failure suppresses dependent layers ---------------------------------------


@pytest.mark.parametrize("benchmark_id", FAST)
def test_malformed_json_is_one_unparseable_finding_and_suppresses_dependent_layers(benchmark_id, built, tmp_path):
    variant = built(benchmark_id)
    work, defect = _defective(variant, "json_malformed", tmp_path)
    failures = variant.validate(work)
    on_artifact = [f for f in failures.findings if f.artifact == defect.artifact]
    assert [(f.layer, f.kind, f.location) for f in on_artifact if f.kind == "artifact_unparseable"] == [
        (Layer.INTEGRITY, "artifact_unparseable", "<file>")
    ]
    assert len(on_artifact) < 5
    suppressed = {(s.layer, s.artifact) for s in failures.suppressed}
    assert {
        (Layer.CONSISTENCY, defect.artifact),
        (Layer.FIDELITY, defect.artifact),
        (Layer.BEHAVIOR, defect.artifact),
    } <= suppressed
    assert not any(f.layer is Layer.BEHAVIOR for f in failures.findings)
    assert len(failures.findings) < 5


def test_a_list_changed_in_one_task_leaves_the_other_tasks_checked(built, tmp_path):
    """The skeleton differs under one task's golden actions only: that subtree is not paired (its fields
    would be read against their neighbours'), the rest of the file is, so a field left in English in
    another task is still found."""
    variant = built("tau2-mock")
    work = variant.copy(tmp_path / "variant")
    tasks_file = work / "data/tau2/domains/mock/tasks.json"
    tasks = orjson.loads(tasks_file.read_bytes())
    actions = tasks[0]["evaluation_criteria"]["actions"]
    actions.append(dict(actions[0]))
    english = next(
        e for e in variant.ir.elements if e.role.endswith("user_scenario.instructions") and e.locator.path[0] == 3
    )
    tasks[3]["user_scenario"]["instructions"] = english.source_text
    tasks_file.write_bytes(orjson.dumps(tasks))
    failures = variant.validate(work)
    changed = [f for f in failures.findings if f.kind == "list_length_changed"]
    assert [f.location for f in changed] == ["$[0]['evaluation_criteria']['actions']"]
    paired = {(s.layer, tuple(map(tuple, s.paths))) for s in failures.suppressed if s.artifact.endswith("tasks.json")}
    assert paired == {
        (layer, ((0, "evaluation_criteria", "actions"),)) for layer in (Layer.CONSISTENCY, Layer.FIDELITY)
    }
    assert any(f.element_id == english.id and f.layer is Layer.FIDELITY for f in failures.findings)


# ---- (e) a scripted review model ----------------------------------------------------------------


class ScriptedModel:
    """A fake ReviewModel: replays one scripted reply per turn (a reply may be a function of the request)."""

    def __init__(self, model_id: str, turns: list):
        self.model_id = model_id
        self.turns = turns
        self.requests: list[ReviewRequest] = []

    def review(self, request: ReviewRequest) -> ReviewReply:
        self.requests.append(request.model_copy(deep=True))
        step = self.turns[min(request.turn, len(self.turns)) - 1]
        return step(request) if callable(step) else step


def _prose_element(variant: Built, work: Path, exclude: set[str]):
    """A translated task-prose element of the variant, with its target text."""
    tasks = next(a.path for a in variant.ir.artifacts if a.role.value == "tasks")
    document = orjson.loads((work / tasks).read_bytes())
    for element in variant.ir.elements:
        if (
            element.artifact == tasks
            and element.translation_type is TranslationType.TRANSLATE_FREE
            and element.locator.kind == "data_value"
            and element.id not in exclude
        ):
            node = document
            for segment in element.locator.path:
                node = node[segment]
            return element, node
    raise AssertionError("no translated prose element")


def test_scripted_agent_asks_upholds_and_raises(built, tmp_path):
    variant = built("tau2-mock")
    work, defect = _defective(variant, "gold_arg_id_translated", tmp_path)
    element = variant.ir.by_id()[defect.element_id]
    prose, prose_target = _prose_element(variant, work, {defect.element_id})
    reasoning = "the translation drops the instruction's condition; the user would act differently"

    def turn_two(request: ReviewRequest) -> ReviewReply:
        upheld = next(f for f in request.probe_findings if f.element_id == defect.element_id)
        return ReviewReply(
            actions=[
                ReviewAction(
                    kind="uphold",
                    finding_id=upheld.id,
                    reasoning="the id no longer resolves: the golden action cannot find the task",
                ),
                ReviewAction(
                    kind="raise_finding",
                    element_id=prose.id,
                    layer=Layer.FIDELITY,
                    finding_kind="meaning_changed",
                    severity=Severity.MAJOR,
                    reasoning=reasoning,
                ),
                ReviewAction(kind="done"),
            ]
        )

    model = ScriptedModel(
        "scripted-1",
        [
            ReviewReply(
                actions=[
                    ReviewAction(kind="ask_field_pair", element_id=defect.element_id),
                    ReviewAction(kind="ask_task_replay", task_id=defect.task_id),
                ]
            ),
            turn_two,
        ],
    )
    # the probe-review protocol alone (reading the translation itself: tests/validators/test_agent_review.py)
    failures = variant.validate(work, agents=[ValidatorAgent("validator-llm", model=model, read_content=False)])

    assert [r.turn for r in model.requests] == [1, 2]
    assert model.requests[0].answers == []
    field_answer, replay_answer = model.requests[1].answers
    target = orjson.loads((work / element.artifact).read_bytes())
    for segment in element.locator.path:
        target = target[segment]
    assert field_answer.question.kind == "ask_field_pair"
    assert (
        field_answer.content["source"] == element.source_text
        and field_answer.content["target"] == target != element.source_text
    )
    assert field_answer.content["artifact"] == element.artifact and field_answer.content["type"] == "preserve"
    (source_golden, source_nothing) = variant.source_pairs[defect.task_id]
    (target_golden, target_nothing) = replay_pairs_of(
        open_variant(variant.benchmark_id, work), [defect.task_id], "replay"
    )[defect.task_id]
    assert replay_answer.question.kind == "ask_task_replay"
    assert replay_answer.content["source_golden_reward"] == str(source_golden.reward)
    assert replay_answer.content["target_golden_reward"] == str(target_golden.reward)
    assert replay_answer.content["source_do_nothing_reward"] == str(source_nothing.reward)
    assert replay_answer.content["target_do_nothing_reward"] == str(target_nothing.reward)
    assert (
        replay_answer.content["source_do_nothing_reward"] != replay_answer.content["target_do_nothing_reward"]
    )  # the broken id changes scoring

    upheld = next(
        f for f in failures.findings if f.element_id == defect.element_id and f.kind == "preserved_value_changed"
    )
    assert upheld.validators == [PROBES, "validator-llm"]
    assert {e.validator_id for e in upheld.evidence} == {PROBES, "validator-llm"}
    assert any(e.validator_id == "validator-llm" and "no longer resolves" in e.reasoning for e in upheld.evidence)
    raised = next(f for f in failures.findings if f.kind == "meaning_changed")
    assert (raised.layer, raised.element_id, raised.validators, raised.severity) == (
        Layer.FIDELITY,
        prose.id,
        ["validator-llm"],
        Severity.MAJOR,
    )
    assert raised.evidence[0].reasoning == reasoning
    assert (raised.evidence[0].source, raised.evidence[0].target) == (excerpt(prose.source_text), excerpt(prose_target))
    assert failures.validators == [PROBES, "validator-llm"]


# ---- (f) agents are isolated ---------------------------------------------------------------------


def test_two_agents_see_only_probe_findings_never_each_other(built, tmp_path):
    variant = built("fixture-library")
    work, defect = _defective(variant, "inline_token_dropped", tmp_path)
    first_prose, _ = _prose_element(variant, work, {defect.element_id})
    second_prose, _ = _prose_element(variant, work, {defect.element_id, first_prose.id})

    def uphold_all(request: ReviewRequest) -> ReviewReply:
        return ReviewReply(
            actions=[
                ReviewAction(kind="uphold", finding_id=f.id, reasoning="agent A agrees") for f in request.probe_findings
            ]
        )

    model_a = ScriptedModel(
        "model-a",
        [
            ReviewReply(
                actions=[
                    ReviewAction(
                        kind="raise_finding",
                        element_id=first_prose.id,
                        layer=Layer.FIDELITY,
                        finding_kind="tone_shift",
                        reasoning="A: too informal",
                    )
                ]
            ),
            uphold_all,
            ReviewReply(actions=[ReviewAction(kind="done")]),
        ],
    )
    model_b = ScriptedModel(
        "model-b",
        [
            ReviewReply(actions=[ReviewAction(kind="ask_field_pair", element_id=first_prose.id)]),
            ReviewReply(
                actions=[
                    ReviewAction(
                        kind="raise_finding",
                        element_id=second_prose.id,
                        layer=Layer.FIDELITY,
                        finding_kind="omission",
                        reasoning="B: a clause is missing",
                    ),
                    ReviewAction(kind="done"),
                ]
            ),
        ],
    )
    agents = [
        ValidatorAgent("validator-a", model=model_a, read_content=False),
        ValidatorAgent("validator-b", model=model_b, read_content=False),
    ]
    failures = variant.validate(work, agents=agents)

    probe_ids = {f.id for f in failures.findings if PROBES in f.validators}
    assert probe_ids, "the defect gives the agents probe findings to review"
    for model, other_kind in ((model_a, "omission"), (model_b, "tone_shift")):
        assert model.requests
        for request in model.requests:
            assert {f.id for f in request.probe_findings} == probe_ids
            assert all(
                f.validators == [PROBES] and {e.validator_id for e in f.evidence} == {PROBES}
                for f in request.probe_findings
            )
            assert not any(f.pattern in ("tone_shift", "omission") for f in request.probe_findings)
            assert not any(other_kind in str(answer.content) for answer in request.answers)
    assert [r.turn for r in model_a.requests] == [1, 2, 3] and [r.turn for r in model_b.requests] == [1, 2]

    tone = next(f for f in failures.findings if f.pattern == "tone_shift")
    omission = next(f for f in failures.findings if f.pattern == "omission")
    # kinds a model names that nobody declared stay the pattern of a reviewer_judgement, not a new category
    assert tone.kind == omission.kind == "reviewer_judgement"
    assert tone.validators == ["validator-a"] and tone.element_id == first_prose.id
    assert omission.validators == ["validator-b"] and omission.element_id == second_prose.id
    for finding in failures.findings:
        if finding.id in probe_ids:  # upheld by A only; B did not uphold
            assert finding.validators == [PROBES, "validator-a"]
    assert failures.validators == [PROBES, "validator-a", "validator-b"]
