"""The terms review in the Prefect flow (issue 41), on the fixture library in Spanish (Apertium): an attended run
with doubtful renderings pauses as AwaitingTermReview with the doubtful entries as a table artifact and a
decisions-only form; the answers are logged with the reviewer's name and the prose is built on them. With
`--terms approve-all` nothing waits, and the approvals are logged as unread, never as a review."""

from __future__ import annotations

import html
import shutil
import threading
import time

import orjson
import pytest

from babelflow.adapt_request import AdaptRequest, ReviewPolicy
from babelflow.settings import BabelflowSettings

pytestmark = [
    pytest.mark.slow,  # the Prefect flow through a test server
    pytest.mark.skipif(shutil.which("apertium") is None, reason="apertium is not installed (scripts/install.sh)"),
]
BENCH, LANG = "fixture-library", "es"


@pytest.fixture(scope="module")
def prefect_env(tmp_path_factory, prefect_harness):
    home = tmp_path_factory.mktemp("prefect")
    with pytest.MonkeyPatch.context() as env:
        env.setenv("PREFECT_LOCAL_STORAGE_PATH", str(home / "storage"))
        with prefect_harness():
            yield home


def _log(root) -> list[dict]:
    path = root / "canonical_maps" / BENCH / f"{LANG}.terms-log.jsonl"
    return [orjson.loads(line) for line in path.read_bytes().splitlines()] if path.exists() else []


def _paused(run_ids: list[str], deadline: float):
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterName

    with get_client(sync_client=True) as client:
        while time.time() < deadline:
            runs = client.read_flow_runs(
                flow_run_filter=FlowRunFilter(name=FlowRunFilterName(any_=[f"{BENCH} · {LANG}"]))
            )
            for run in runs:
                if str(run.id) not in run_ids and run.state is not None and run.state.is_paused():
                    return run
            time.sleep(0.5)
    raise AssertionError("flow never paused")


def test_doubtful_terms_pause_the_run_and_the_answers_build_the_prose(prefect_env, tmp_path):
    from prefect.client.orchestration import get_client
    from prefect.flow_runs import resume_flow_run
    from prefect.states import Cancelled

    from flows.pipeline.prefect_flows import adapt_language, outcome
    from flows.review.terms_review import in_form_order
    from translators.terms.term_base import load_term_base

    request = AdaptRequest(benchmark=BENCH, language=LANG, project_root=tmp_path, review=ReviewPolicy(timeout=120))

    def run() -> None:
        try:
            outcome(adapt_language(request, return_state=True))
        except BaseException:  # noqa: BLE001 - cancelled at the end on purpose
            pass

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    paused = _paused([], time.time() + 180)
    assert paused.state.name == "AwaitingTermReview"
    settings = BabelflowSettings(project_root=tmp_path)
    doubtful = in_form_order(load_term_base(settings.layout.term_base(BENCH, LANG)).doubtful())
    assert doubtful
    from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterKey
    from prefect.client.schemas.sorting import ArtifactSort

    with get_client(sync_client=True) as client:  # the session's server holds other tests' artifacts too
        by_key = ArtifactFilter(key=ArtifactFilterKey(any_=[f"{BENCH}-{LANG}-terms"]))
        found = client.read_artifacts(artifact_filter=by_key, sort=ArtifactSort.CREATED_DESC, limit=1)
    material = found[0].data
    assert f"{len(doubtful)} doubtful renderings" in material
    numbered = [f"{n}. {html.escape(e.source)}" for n, e in enumerate(doubtful, start=1)]
    assert all(number in material for number in numbered)  # numbered as the form numbers them
    answer = {"reviewer": "ana", "term_1": "correct", "term_1_rendering": "Título corregido"}
    if len(doubtful) > 1:
        answer |= {"term_2": "approve"}
    resume_flow_run(str(paused.id), run_input=answer)
    deadline = time.time() + 180
    with get_client(sync_client=True) as client:
        while time.time() < deadline:  # on to the findings review or the sign-off form
            state = client.read_flow_run(paused.id).state
            if state is not None and state.is_paused() and state.name != "AwaitingTermReview":
                break
            time.sleep(0.5)
        assert state is not None and state.name in ("AwaitingReview", "AwaitingSignoff"), state
        logged = [(d["source"], d["action"], d["author"]) for d in _log(tmp_path)]
        assert logged[0] == (doubtful[0].source, "correct", "ana") and len(logged) == min(2, len(doubtful))
        db = (settings.layout.variant(BENCH, LANG) / "data" / "db.json").read_text(encoding="utf-8")
        assert "Título corregido" in db  # the DB and the prose were built on the answer
        skipped = orjson.loads((settings.layout.review_dir(BENCH, LANG) / "terms_skipped.json").read_bytes())
        assert sorted(map(tuple, skipped["skipped"])) == sorted((e.group, e.source, e.rendering) for e in doubtful[2:])
        client.set_flow_run_state(paused.id, state=Cancelled(), force=True)  # nothing else to see here
    thread.join(60)


def test_approve_all_waits_for_nothing_and_is_logged_as_unread(prefect_env, tmp_path):
    from flows.pipeline.prefect_flows import adapt_language, outcome
    from translators.terms.review import UNREAD

    policy = ReviewPolicy(timeout=0, terms="approve-all")
    result = outcome(
        adapt_language(
            AdaptRequest(benchmark=BENCH, language=LANG, project_root=tmp_path, review=policy), return_state=True
        )
    )
    decisions = _log(tmp_path)
    assert decisions and {d["author"] for d in decisions} == {"--terms approve-all"}
    assert {d["action"] for d in decisions} == {"approve-all"}
    assert result.rounds[0].term_decisions == len(decisions)
    # approved unread: the entries stay the translator's, in the drafts file, never in the reviewed map
    drafts = orjson.loads((tmp_path / "canonical_maps" / BENCH / f"{LANG}.drafts.json").read_bytes())["entries"]
    approved = [e for e in drafts if UNREAD in e["origin_detail"]]
    assert len(approved) == len(decisions) and {e["origin"] for e in approved} <= {"translator", "kept"}
    assert not (tmp_path / "canonical_maps" / BENCH / f"{LANG}.json").exists()
