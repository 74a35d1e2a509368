"""Variant replays stored once and reused by another language or a rerun when what they read is
unchanged (flows/pipeline/replay_memo.py); outcomes equal the variant's own fresh replays."""

from __future__ import annotations

import orjson

from babelflow.settings import BabelflowSettings
from babelflow.variant import CodeOverlay, CodeText
from flows.pipeline import replay_memo
from source_benchmarks.tau_common.adapter import Tau2Benchmark

IDS = ["46", "2", "0"]  # 46 fails with "Order not found", 2 with "Product not found", 0 with no error


def _variant(tag: str, order_not_found: str) -> Tau2Benchmark:
    texts = [
        CodeText(
            module="domains/retail/tools.py",
            qualname="RetailTools",
            role="error_message",
            occurrence=0,
            source="Order not found",
            target=order_not_found,
        ),
        CodeText(
            module="domains/retail/tools.py",
            qualname="RetailTools",
            role="error_message",
            occurrence=1,
            source="Product not found",
            target="[x] Product not found",
        ),
    ]
    return Tau2Benchmark("tau2-retail", overlay=CodeOverlay(language=tag, texts=texts))


def _dump(pairs: dict) -> dict:
    return {t: [o.model_dump(mode="json") for o in pair] for t, pair in pairs.items()}


def test_second_language_replays_only_what_its_catalog_changes(tmp_path):
    settings = BabelflowSettings(project_root=tmp_path)
    first = _variant("xx-A", "[A] Order not found")
    raw = {t["id"]: t for t in orjson.loads((first.root / first.spec.data_dir / "tasks.json").read_bytes())}
    pairs, replayed = replay_memo.variant_replays(settings, first, raw, IDS, "test")
    assert replayed == 3 and _dump(pairs) == _dump({g.task_id: (g, n) for g, n in first.replay_pairs(IDS)})

    replay_memo._MEMOS.clear()  # a new process: read back from the state folder
    again, replayed = replay_memo.variant_replays(settings, first, raw, IDS, "test")
    assert replayed == 0 and _dump(again) == _dump(pairs)

    second = _variant("xx-B", "[B] Order not found")
    pairs_b, replayed = replay_memo.variant_replays(settings, second, raw, IDS, "test")
    assert replayed == 1  # only task 46 looked up the text B renders differently
    assert _dump(pairs_b) == _dump({g.task_id: (g, n) for g, n in second.replay_pairs(IDS)})
    errors = lambda pair: [c.output for c in pair[0].tool_calls if c.error]  # noqa: E731
    assert (
        errors(pairs_b["46"]) == ["Error: [B] Order not found"] * 2
        and errors(pairs["46"]) == ["Error: [A] Order not found"] * 2
    )
