"""The fixture-library benchmark: golden and do-nothing replays, source_dir overrides, fingerprints."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import ValidationError

from babelflow.errors import BabelflowError
from babelflow.ir import ArtifactFormat, ArtifactRole
from source_benchmarks import get_benchmark
from source_benchmarks.fixture.adapter import FIXTURE_ROOT, FixtureBenchmark
from source_benchmarks.protocol import SourceBenchmark, ToolCallRecord

ALL_TASKS = ["checkout_basic", "checkout_unavailable", "renew_loan", "refuse_overdue", "report_lost", "genre_inquiry"]
INTENDED_ERRORS = {"checkout_unavailable": ["checkout_book: Error: Book is not available"]}


@pytest.fixture(scope="module")
def bench() -> FixtureBenchmark:
    return FixtureBenchmark()


def _variant(tmp_path: Path, relative: str, edit) -> Path:
    """A source_dir holding one edited copy of a packaged file."""
    target = tmp_path / relative
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(edit((FIXTURE_ROOT / relative).read_text(encoding="utf-8")), encoding="utf-8")
    return tmp_path


def _edit_json(edit):
    def apply(text: str) -> str:
        value = json.loads(text)
        edit(value)
        return json.dumps(value, ensure_ascii=False, indent=2)

    return apply


def test_artifacts_and_splits(bench):
    specs = {spec.path: spec for spec in bench.artifacts()}
    assert list(specs) == [
        "data/db.json",
        "data/tasks.json",
        "data/split_tasks.json",
        "data/policy.md",
        "code/tools.py",
        "code/data_model.py",
    ]
    assert (specs["data/db.json"].role, specs["data/db.json"].format) == (ArtifactRole.DATABASE, ArtifactFormat.JSON)
    assert specs["data/split_tasks.json"].translatable is False
    assert specs["code/data_model.py"].role is ArtifactRole.DATA_MODEL_CODE
    assert all(bench.artifact_path(spec).is_file() for spec in specs.values())
    assert bench.source_version == "fixture-library==1"
    assert bench.task_ids() == ALL_TASKS == bench.task_ids("base")
    assert bench.task_ids("small") == ["checkout_unavailable", "refuse_overdue"]
    with pytest.raises(BabelflowError, match="Unknown split"):
        bench.task_ids("nope")
    assert bench.validate_artifacts() == []


def test_prose_carries_the_cases_the_pipeline_must_handle(bench):
    tasks_text = (FIXTURE_ROOT / "data/tasks.json").read_text(encoding="utf-8")
    assert '\\"available\\"' in tasks_text  # the status code, quoted in task prose
    assert "which ones are available right now" in tasks_text  # the same word as ordinary prose
    policy = (FIXTURE_ROOT / "data/policy.md").read_text(encoding="utf-8")
    for needle in ('"available"', '"on_loan"', "###STOP###", "`max_loans`", "| Late return", "\n## "):
        assert needle in policy
    tools = (FIXTURE_ROOT / "code/tools.py").read_text(encoding="utf-8")
    assert 'if book.status != "available":' in tools and "Args:" in tools and "Raises:" in tools


def test_golden_replay_scores_one_with_the_intended_tool_error(bench):
    seen: list[tuple[str, ToolCallRecord]] = []
    outcomes = bench.replay_golden(observer=lambda task_id, record: seen.append((task_id, record)))
    assert [o.task_id for o in outcomes] == ALL_TASKS
    for outcome in outcomes:
        assert outcome.evaluator_error is None, outcome
        assert outcome.reward == 1.0, outcome
        assert outcome.tool_error_sequence == INTENDED_ERRORS.get(outcome.task_id, [])
        assert outcome.final_db_sha256 and len(outcome.final_db_sha256) == 64
    assert len(seen) == sum(len(o.tool_calls) for o in outcomes)
    checkout = next(o for o in outcomes if o.task_id == "checkout_basic").tool_calls[-1]
    assert checkout.is_write and '"due_date": "2024-06-01"' in checkout.output
    assert not next(o for o in outcomes if o.task_id == "genre_inquiry").tool_calls[0].is_write


def test_do_nothing_scores_one_only_for_the_refusal_task(bench):
    rewards = {o.task_id: o.reward for o in bench.run_do_nothing()}
    assert rewards == {task_id: (1.0 if task_id == "refuse_overdue" else 0.0) for task_id in ALL_TASKS}


def test_get_benchmark_replays_through_the_protocol():
    bench = get_benchmark("fixture-library")
    assert isinstance(bench, FixtureBenchmark) and isinstance(bench, SourceBenchmark)
    outcomes = bench.replay_golden(bench.task_ids("small"))
    assert [(o.task_id, o.reward) for o in outcomes] == [("checkout_unavailable", 1.0), ("refuse_overdue", 1.0)]


def test_fingerprints_are_sha256_of_the_files(bench, tmp_path):
    for fp in bench.fingerprints():
        assert fp.sha256 == hashlib.sha256((FIXTURE_ROOT / fp.path).read_bytes()).hexdigest()
        assert fp.origin == "fixture"
    variant = _variant(tmp_path, "data/policy.md", lambda text: text + "\n")
    origins = {fp.path: (fp.origin, fp.sha256) for fp in FixtureBenchmark(source_dir=variant).fingerprints()}
    assert origins["data/policy.md"] == (
        "source_dir",
        hashlib.sha256((variant / "data/policy.md").read_bytes()).hexdigest(),
    )
    assert origins["data/db.json"][0] == "fixture"


def test_translated_status_code_is_rejected_naming_file_and_field(tmp_path):
    def translate(db):
        db["books"]["bk_1001"]["status"] = "disponible"

    variant = _variant(tmp_path, "data/db.json", _edit_json(translate))
    bench = FixtureBenchmark(source_dir=variant)
    with pytest.raises(BabelflowError) as caught:
        bench.validate_artifacts()
    assert caught.value.file == str(variant / "data/db.json")
    assert caught.value.field == "books.bk_1001.status"
    assert "db.json" in str(caught.value) and "books.bk_1001.status" in str(caught.value)
    with pytest.raises(BabelflowError, match="books.bk_1001.status"):
        bench.replay_golden(["checkout_basic"])


def test_data_model_rejects_a_translated_genre(bench):
    raw = json.loads((FIXTURE_ROOT / "data/db.json").read_text(encoding="utf-8"))
    raw["books"]["bk_1002"]["genre"] = "policier"
    with pytest.raises(ValidationError, match="genre"):
        bench.environment_factory.db_model.model_validate(raw)


def test_missing_source_dir_is_a_clear_error(tmp_path):
    with pytest.raises(BabelflowError, match="not a folder"):
        FixtureBenchmark(source_dir=tmp_path / "absent")


def test_consistently_translated_title_keeps_golden_reward(tmp_path):
    def db_edit(db):
        db["books"]["bk_1001"]["title"] = "O Porto Silencioso"

    def tasks_edit(tasks):
        for action in tasks[0]["evaluation_criteria"]["actions"]:
            if action["name"] == "find_book_by_title":
                action["arguments"]["title"] = "O Porto Silencioso"

    _variant(tmp_path, "data/db.json", _edit_json(db_edit))
    assert FixtureBenchmark(source_dir=tmp_path).replay_golden(["checkout_basic"])[0].tool_error_sequence == [
        "find_book_by_title: Error: Book not found"
    ]
    _variant(tmp_path, "data/tasks.json", _edit_json(tasks_edit))
    outcome = FixtureBenchmark(source_dir=tmp_path).replay_golden(["checkout_basic"])[0]
    assert (outcome.reward, outcome.tool_error_sequence) == (1.0, [])


def test_variant_tool_code_is_loaded_from_the_source_dir(bench, tmp_path):
    variant = _variant(
        tmp_path,
        "code/tools.py",
        lambda text: text.replace('"Book is not available"', '"Le livre n\'est pas disponible"'),
    )
    outcome = FixtureBenchmark(source_dir=variant).replay_golden(["checkout_unavailable"])[0]
    assert outcome.reward == 1.0
    assert outcome.tool_error_sequence == ["checkout_book: Error: Le livre n'est pas disponible"]
    assert (
        bench.replay_golden(["checkout_unavailable"])[0].tool_error_sequence == INTENDED_ERRORS["checkout_unavailable"]
    )


def test_tool_schemas_come_from_docstrings(bench):
    schemas = {s["function"]["name"]: s["function"] for s in bench.build_environment().tool_schemas()}
    assert "checkout_book" in schemas and "_get_book" not in schemas
    assert schemas["find_book_by_title"]["parameters"]["properties"]["title"]["description"].startswith(
        "The title of the book"
    )


def test_fixture_does_not_import_tau2():
    code = (
        "import sys; from source_benchmarks import get_benchmark; b = get_benchmark('fixture-library'); "
        "assert all(o.reward == 1.0 for o in b.replay_golden()); "
        "assert not [m for m in sys.modules if m == 'tau2' or m.startswith('tau2.')], 'tau2 imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(__file__).resolve().parents[2])
