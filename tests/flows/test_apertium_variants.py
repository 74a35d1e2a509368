"""Spanish variants made offline by Apertium (the default translator for `es`): every task keeps
its golden reward, do-nothing reward, tool-error sequence and final DB hash; the prose is Spanish
by a language identifier; ids, emails and status codes are untouched; the probes find nothing."""

from __future__ import annotations

import re
import shutil

import orjson
import pytest

from babelflow.adapt_request import AdaptRequest
from babelflow.canonical_map import load_canonical_map
from babelflow.ir import TranslationType
from babelflow.settings import BabelflowSettings
from babelflow.target_lexicon import target_lexicon
from babelflow.variant import CANONICAL_MAP_NAME, OVERLAY_NAME, load_overlay
from source_benchmarks import get_benchmark, open_variant
from source_benchmarks.message_catalog import MessageCatalog

pytestmark = pytest.mark.skipif(
    shutil.which("apertium") is None,
    reason="apertium is not installed (scripts/install.sh installs apertium-eng-spa as root; CI does)",
)

_TOKENS = re.compile(r"[\w.+-]+@[\w-]+\.[\w.]+|#W\d+|\b[a-z]+_[a-z]+_\d+\b|'(?:pending|delivered|processed|cancelled)'")


@pytest.fixture(scope="module")
def spanish(tmp_path_factory, analyzed):
    """spanish(benchmark) -> (AdaptResult, variant bench), adapted once per module with `auto`."""
    from flows.pipeline.adapt import adapt

    settings = BabelflowSettings(project_root=tmp_path_factory.mktemp("es"))
    cache: dict = {}

    def get(benchmark_id: str):
        if benchmark_id not in cache:
            result = adapt(AdaptRequest.of_options(benchmark_id, "es"), settings=settings, ir=analyzed(benchmark_id))
            cache[benchmark_id] = (result, open_variant(benchmark_id, result.paths.variant))
        return cache[benchmark_id]

    return get


def _check_behaviour(result, variant, expected) -> None:
    catalog = MessageCatalog.of_overlay(load_overlay(result.paths.variant / OVERLAY_NAME))
    from babelflow.gc_pause import gc_paused

    with gc_paused():  # as the behaviour layer replays: collections walking the session's IRs doubled replay time
        pairs = variant.replay_pairs(variant.task_ids(None))
    assert len(pairs) == len(expected)
    for golden, nothing in pairs:
        source_golden, source_nothing = expected[golden.task_id]
        assert golden.reward == source_golden.reward, golden.task_id
        assert nothing.reward == source_nothing.reward, golden.task_id
        assert [(c.name, c.error) for c in golden.tool_calls] == [
            (c.name, c.error) for c in source_golden.tool_calls
        ], golden.task_id
        for ours, theirs in zip(golden.tool_calls, source_golden.tool_calls):
            if theirs.error:
                assert ours.output == "Error: " + catalog.translate(theirs.output.removeprefix("Error: ")), (
                    golden.task_id
                )
        # entities are localized (issue 23): the variant's DB holds the map's renderings, so its hash differs
        # from the source's by design; the golden actions must change it in both or neither, and the
        # behaviour layer compares the contents through the map (validate_variant below, map_parity.py)
        changed = golden.final_db_sha256 != nothing.final_db_sha256
        assert changed == (source_golden.final_db_sha256 != source_nothing.final_db_sha256), golden.task_id
        assert golden.final_user_db_sha256 == source_golden.final_user_db_sha256, golden.task_id


def _check_language_and_tokens(result, variant) -> None:
    from babelflow.language_id import identify

    ir = result.ir
    policy = next(p for p in variant.artifacts() if p.path.endswith("policy.md"))
    paragraphs = [
        p
        for p in variant.artifact_path(policy).read_text(encoding="utf-8").split("\n\n")
        if len(re.findall(r"[^\W\d_]", p)) >= 40
    ]
    assert paragraphs and sum(identify(p, ("es", "en")) == "es" for p in paragraphs) >= 0.9 * len(paragraphs)
    prose = [
        e
        for e in ir.elements
        if e.translation_type is not TranslationType.PRESERVE and "user_scenario" in e.role and len(e.source_text) >= 60
    ]
    targets = result.outcome.targets
    spanish = [identify(targets[e.id], ("es", "en")) for e in prose if e.id in targets]
    assert prose and sum(tag == "es" for tag in spanish) >= 0.9 * len(prose)
    for element in prose:
        for token in _TOKENS.findall(element.source_text):
            assert token in targets[element.id], (element.id, token)


def test_mock_in_spanish_behaves_like_the_source(spanish, source_pairs):
    from validators.run import validate_variant, variant_context

    result, variant = spanish("tau2-mock")
    assert result.outcome.failures == [] and result.manifest.translator_id.startswith("apertium:eng-spa@")
    _check_behaviour(result, variant, source_pairs("tau2-mock"))
    failures = validate_variant(variant_context(get_benchmark("tau2-mock"), result.paths.variant, result.ir, "es"))
    # only English Apertium passed through for want of an entry: minor, words the Spanish analyser does not
    # know, among them the misspelling in τ²'s own user-simulator guidelines ('satisified')
    left = {f.evidence[0].detail["word"] for f in failures.findings if f.kind == "source_words_left"}
    assert {(f.kind, f.severity.value) for f in failures.findings} == {("source_words_left", "minor")}
    assert "satisified" in left and not target_lexicon("es").known(left)
    tasks = orjson.loads(next(result.paths.variant.rglob("tasks.json")).read_bytes())
    assert "Important Meeting" in orjson.dumps(tasks).decode() and "tarea" in orjson.dumps(tasks).decode()


@pytest.mark.slow
def test_retail_in_spanish_behaves_like_the_source_and_reads_spanish(spanish, source_pairs):
    result, variant = spanish("tau2-retail")
    assert result.outcome.failures == []
    _check_behaviour(result, variant, source_pairs("tau2-retail"))
    # the catalogue is Spanish in the DB, the tasks name it as the DB does, and the map travels in the variant
    cmap = load_canonical_map(result.paths.variant / CANONICAL_MAP_NAME, "tau2-retail", "es")
    assert cmap.target_of("product_name", "Water Bottle") not in (None, "Water Bottle")
    db = next(result.paths.variant.rglob("db.json")).read_text(encoding="utf-8")
    assert '"Water Bottle"' not in db and f'"{cmap.target_of("product_name", "Water Bottle")}"' in db
    _check_language_and_tokens(result, variant)
    policy = variant.build_environment().get_policy()
    assert "'pending'" in policy and "'delivered'" in policy and "reembolso" in policy
