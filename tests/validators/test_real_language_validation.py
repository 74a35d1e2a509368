"""Validators on real model translations made by another project (SEATauBench retail: vi, th,
id, tl; slices under tests/data/seatau/, MIT, see README there).

The fast tests check the language-aware pieces on texts taken from those files; the slow ones
validate each whole variant and hold the issue's acceptance: findings that block (exit 1), at
most 150 groups, every defect kind the corpus README lists for the language reported with its
occurrences, and the seeded labelled sample at >= 90% precision. Expectations are about kinds,
never exact strings, so they hold for other languages too.
"""

from __future__ import annotations

import gzip
import json
import re
import shutil
from pathlib import Path

import pytest

from babelflow.language_data import language_data, numbers_in
from tests.data.seatau import corpus
from validators.findings import Layer, Severity, group_findings
from validators.probes.pair_checks import FieldPair, check_pair

DATA = Path(__file__).resolve().parents[1] / "data" / "seatau"

LANGUAGES = corpus.LANGUAGES


def _tasks(language: str) -> dict[str, dict]:
    return {t["id"]: t for t in json.loads(gzip.decompress((DATA / f"{language}.tasks.json.gz").read_bytes()))}


def _pair(source: str, target: str, tokens=()) -> FieldPair:
    return FieldPair(
        artifact="data/tasks.json", location="tasks.json[*].x", source=source, target=target, tokens=tuple(tokens)
    )


def _kinds(source: str, target: str, language: str, tokens=()) -> set[str]:
    return {
        f.kind
        for f in check_pair(
            "probes",
            _pair(source, target, tokens),
            language,
        )
    }


# ---- language data for any tag ---------------------------------------------------------------


@pytest.mark.parametrize("tag", ["vi", "th", "id", "tl", "zh-Hans", "ja", "sw", "fil", "yue-Hant-HK", "sr-Cyrl", "am"])
def test_every_bcp47_tag_gets_a_length_band_from_data(tag):
    data = language_data(tag)
    low, high = data.length_band
    assert 0 < low < 1 < high or (data.script in ("Hans", "Hant", "Jpan", "Kore") and 0 < low < high <= 1.5)
    assert data.length_source in ("language", "script", "fallback")


def test_cjk_translations_shorter_than_half_are_not_length_outliers():
    source = "You want to cancel the order because you ordered it by mistake."
    assert "length_ratio_outlier" not in _kinds(source, "你想取消订单，因为你下错了单。", "zh-Hans")  # ratio 0.23
    assert "length_ratio_outlier" in _kinds(source, "你想", "zh-Hans")  # a cut segment still is


def test_pseudo_locales_keep_their_band():
    assert language_data("en-XA").length_band == language_data("ar-XB").length_band
    assert language_data("en-XA").length_band[0] <= 0.5 and language_data("en-XA").length_band[1] >= 3.5


# ---- numbers and dates in CLDR forms ---------------------------------------------------------


def test_cldr_number_and_month_forms_are_the_same_numbers_on_real_pairs():
    en, vi = _tasks("en"), _tasks("vi")
    checked = 0
    for task_id, task in en.items():
        for source, target in zip(
            task["evaluation_criteria"].get("nl_assertions") or [],
            vi[task_id]["evaluation_criteria"].get("nl_assertions") or [],
        ):
            if "$" in source and "," in source:
                assert "number_changed" not in _kinds(source, target, "vi"), (source, target)  # $8,276.23 -> $8.276,23
                checked += 1
        reason = task["user_scenario"]["instructions"]["reason_for_call"] or ""
        if "April 2023" in reason:
            assert "number_changed" not in _kinds(
                reason, vi[task_id]["user_scenario"]["instructions"]["reason_for_call"], "vi"
            )
            checked += 1
    assert checked >= 3
    assert numbers_in("8.276,23 và 1.628", language_data("vi")) == ["8276.23", "1628"]


def test_a_changed_amount_is_still_a_changed_number():
    assert "number_changed" in _kinds(
        "Agent should tell the user the total refund amount is $8,276.23.",
        "Nhân viên nên thông báo tổng số tiền hoàn là $8.726,23.",
        "vi",
    )


# ---- whole variants (slow) -------------------------------------------------------------------


@pytest.fixture(scope="module")
def seatau(tmp_path_factory):
    """(source benchmark, corpus root, IR of the English source): the corpus rebuilt once per module."""
    from flows.components import analyze_or_reuse
    from source_benchmarks import get_benchmark

    root = corpus.rebuild(tmp_path_factory.mktemp("seatau"))
    bench = get_benchmark("tau2-retail", source_dir=root / "en")
    return bench, root, analyze_or_reuse(bench, None, tmp_path_factory.mktemp("ir") / "ir.json", lambda m: None)


@pytest.fixture(scope="module")
def validated(seatau):
    """language -> (failure set, groups): each SEATau variant validated once against its source,
    held out: with the checks' calibration computed on the other three languages."""
    from validators.calibration import calibrate
    from validators.calibration_measure import measure
    from validators.context import ValidationContext
    from validators.probes.behavior import replay_pairs_of
    from validators.run import validate_variant, variant_context

    bench, root, ir = seatau
    cache: dict[str, tuple] = {}
    lengths: dict = {}
    source_pairs: dict = {}  # the one English source's replays, run once for the four variants

    def get(language: str):
        if language not in cache:
            if not source_pairs:
                source_pairs.update(replay_pairs_of(bench, bench.task_ids(None), "behaviour replays: source"))
            if not lengths:
                lengths.update({lang: measure(ValidationContext(bench, root / lang, ir, lang)) for lang in LANGUAGES})
            held_out = calibrate([m for other, m in lengths.items() if other != language], excluded=[language])
            assert language not in held_out.languages
            failures = validate_variant(
                variant_context(bench, root / language, ir, language, source_pairs=source_pairs, calibration=held_out),
                agents=[],
            )
            cache[language] = (failures, group_findings(failures.findings), root)
        return cache[language]

    return get


def _groups_of(groups, kind: str):
    return [g for g in groups if g.kind == kind]


@pytest.mark.slow
@pytest.mark.parametrize("language", LANGUAGES)
def test_real_variant_blocks_with_at_most_150_groups_and_behaves_like_its_source(language, validated):
    failures, groups, _ = validated(language)
    assert failures.summary is not None and failures.summary.blocking  # `babelflow validate` exits 1
    assert failures.summary.groups == len(groups) <= 150
    # τ²'s own replays agree on every task, tool results compared modulo the variant's renderings
    # (a rendering two values share, 'Ấm đun nước siêu tốc' for two kettles in vi, included)
    assert not [f for f in failures.findings if f.layer is Layer.BEHAVIOR]


@pytest.mark.slow
@pytest.mark.parametrize("language", LANGUAGES)
def test_every_defect_kind_of_the_corpus_is_reported_with_its_occurrences(language, validated):
    failures, groups, root = validated(language)
    by_id = {f.id: f for f in failures.findings}
    # the deliberate canonical policy: one note per entity class, carrying the inferred map
    (policy,) = [g for g in groups if g.kind == "canonical_rendering_inferred"]
    assert policy.severity is Severity.NOTE and json.loads(by_id[policy.finding_ids[0]].evidence[0].detail["map"])
    # the guideline files the harness takes from the source: notes, not criticals
    missing = _groups_of(groups, "artifact_missing")
    assert missing and all(g.severity is Severity.NOTE for g in missing)
    # protected English literals left inside target sentences: one group (one cause), every word and occurrence;
    # in a variant that writes English words of its own accord (Tagalog's Taglish register) they are
    # one note naming that evidence, for a native reviewer to decide (labelled false 7 of 8 times)
    leaks = _groups_of(groups, "source_words_left")
    assert leaks and max(len(g.finding_ids) for g in leaks) >= 20
    assert all((by_id[i].cause or by_id[i].pattern) == g.pattern for g in leaks for i in g.finding_ids)
    words = {by_id[i].evidence[0].detail["word"] for g in leaks for i in g.finding_ids}
    assert {"user", "available"} <= words  # each word named in its findings
    mixed = [g for g in leaks if "mixes in English" in g.pattern]
    if language == "tl":
        assert (
            mixed
            and all(g.severity is Severity.NOTE for g in mixed)
            and "where its source has none" in mixed[0].example
        )
        assert {by_id[i].evidence[0].detail["word"] for i in mixed[0].finding_ids} >= {"user", "available"}
    else:
        # a stray word ('user' in a Vietnamese sentence) costs the reading: minor, above the notes
        assert not mixed and any(g.severity is Severity.MINOR for g in leaks)
    # a product the task names by a synonym the catalogue does not hold is a note; by another
    # product's rendering, critical and naming it
    for group in _groups_of(groups, "entity_rendering_unknown"):
        assert group.severity in (Severity.NOTE, Severity.CRITICAL)
        if group.severity is Severity.CRITICAL:
            assert all(by_id[i].evidence[0].detail["other"] for i in group.finding_ids)
    # a status rendering forced into prose where the source means the ordinary verb (task 17)
    in_prose = _groups_of(groups, "status_rendering_in_prose")
    if language in ("vi", "th", "tl"):
        assert any(
            by_id[i].task_id in (None, "17") and "Suite 641" in (by_id[i].evidence[0].source or "")
            for g in in_prose
            for i in g.finding_ids
        )
    if language == "id":  # 'dibatalkan', 'terkirim': the ordinary passives, one word each, read naturally
        assert not in_prose
    if language == "th":
        # city names translated in the task text while the DB keeps them: one note listing them
        # (the agent reads and writes the address from the DB; a reviewer labelled them no defect)
        db = json.loads((root / "th" / corpus.RETAIL / "db.json").read_text(encoding="utf-8"))
        cities = {u["address"]["city"] for u in db["users"].values()}
        lost = [by_id[i] for g in _groups_of(groups, "reference_lost") for i in g.finding_ids]
        city_findings = [f for f in lost if f.evidence[0].detail.get("token") in cities]
        assert city_findings and all(f.severity is Severity.NOTE for f in city_findings)
        # stray spaces around the terms a pipeline inserted (learned by script: refund, payment, gift card ...)
        spacing = _groups_of(groups, "spacing_artifact")
        spaced_terms = {by_id[i].pattern for g in spacing for i in g.finding_ids}
        assert len(spaced_terms) >= 5 and sum(len(g.finding_ids) for g in spacing) >= 60
        # a product named in the task with a rendering neither the catalogue nor the orders hold
        assert _groups_of(groups, "entity_rendering_unknown")
    # a product rendered several ways: only the occurrences that differ from the catalogue's rendering
    for group in _groups_of(groups, "preserved_value_changed"):
        for finding in (by_id[i] for i in group.finding_ids):
            detail = finding.evidence[0].detail
            assert "reference" not in detail or finding.evidence[0].target != detail["reference"]
            if "reference" in detail and finding.evidence[0].target.casefold() == detail["reference"].casefold():
                assert finding.severity is Severity.NOTE  # 'Thảm tập Yoga' / 'Thảm tập yoga': one name


@pytest.mark.slow
def test_spaces_planted_around_an_inserted_term_are_reported(seatau, tmp_path):
    """Recall on a planted defect: in a Thai task sentence that writes 'บัตรของขวัญ' (gift card) joined to
    its neighbours, spaces put around it are reported, naming the term (one more field reported)."""
    from validators.checks import Scope
    from validators.context import ValidationContext
    from validators.probes.language_checks import source_words_left

    bench, root, ir = seatau
    term = "บัตรของขวัญ"
    variant = tmp_path / "th"
    shutil.copytree(root / "th", variant)
    tasks_path = variant / corpus.RETAIL / "tasks.json"
    tasks = json.loads(tasks_path.read_text(encoding="utf-8"))

    def spaced() -> int:
        """Fields reported for spaces around the term (at most one finding per field and term)."""
        hits = source_words_left(ValidationContext(bench, variant, ir, "th"), Scope(Layer.FIDELITY, frozenset(), []))
        return sum(h.kind == "spacing_artifact" and h.detail["term"] == term for h in hits)

    joined = re.compile(rf"(?<=[\u0e00-\u0e7f]){term}(?=[\u0e00-\u0e7f])")

    def plant(node) -> bool:
        """Space out the first joined occurrence in a string of the task that has no spaced one."""
        items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        for key, value in items:
            if isinstance(value, str) and joined.search(value) and f" {term} " not in value:
                node[key] = joined.sub(f" {term} ", value, count=1)
                return True
            if isinstance(value, (dict, list)) and plant(value):
                return True
        return False

    planted = next((str(task["id"]) for task in tasks if plant(task.get("user_scenario"))), None)
    assert planted, "no Thai task text writes the term joined to its neighbours"
    before = spaced()
    tasks_path.write_text(json.dumps(tasks, ensure_ascii=False, indent=2), encoding="utf-8")
    assert spaced() == before + 1  # the planted field, which had no spaced occurrence before


# Held-out precision as measured by labeller 2 (given only docs/labelling_guideline.md and the
# samples; a new labeller each round); round 4 (issue 40, groups by cause, seed 40): docs/BENCHMARKS.md.
# The target is the floor: a change that drops the samples below it must be relabelled.
HELD_OUT_FLOOR = 0.90


@pytest.mark.slow
@pytest.mark.parametrize("language", LANGUAGES)
def test_both_labellers_label_every_sampled_group_of_the_held_out_run(language, validated):
    """The committed samples are this run's (same groups), both labellers labelled all of them,
    and held-out precision by the second labeller does not fall below what was measured."""
    _, groups, _ = validated(language)
    sampled = [g.id for g in corpus.sample(groups, language)]
    assert sampled == [row["group"] for row in json.loads(corpus.sample_path(language).read_text())["groups"]]
    assert len(sampled) == min(corpus.SAMPLE_SIZE, len([g for g in groups if g.severity is not Severity.NOTE]))
    for labeller in corpus.LABELLERS:
        share, labelled, unlabelled = corpus.precision(groups, language, labeller)
        assert not unlabelled, (
            f"sampled but not labelled in {corpus.labels_path(language, labeller).name}: {unlabelled}"
        )
        assert labelled == len(sampled)


@pytest.mark.slow
def test_held_out_precision_of_the_second_labeller_holds_over_the_four_languages(validated):
    """One group per cause leaves 4-5 groups above note per language: a language's precision moves by 20
    points per group, so the floor holds for the four samples together (each language's is in BENCHMARKS)."""
    true = labelled = 0
    for language in LANGUAGES:
        _, groups, _ = validated(language)
        share, count, _ = corpus.precision(groups, language, "labels2")
        true, labelled = true + round(share * count), labelled + count
    assert labelled and true / labelled >= HELD_OUT_FLOOR


@pytest.mark.slow
def test_inferred_policy_saves_as_a_canonical_map(validated, tmp_path):
    from babelflow.canonical_map import load_canonical_map
    from validators.probes.policy import save_inferred_map

    failures, _, _ = validated("vi")
    count = save_inferred_map(failures, tmp_path / "vi.json")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["vi.json"]  # the file asked for, whole (no drafts file)
    cmap = load_canonical_map(tmp_path / "vi.json", "tau2-retail", "vi")
    assert count == len(cmap.entries) > 10 and all(e.review_state == "unreviewed" for e in cmap.entries)


# ---- severity from impact, scope, calibration (fast) -----------------------------------------


def _number_severity(source: str, target: str, language: str = "vi"):
    found = [
        f
        for f in check_pair(
            "probes",
            _pair(source, target),
            language,
        )
        if f.kind == "number_changed"
    ]
    return found[0].severity if found else None


def test_a_paraphrased_percentage_is_not_a_critical_number_change():
    assert (
        _number_severity("You are not 100% sure which one you want.", "你不确定要哪一个。", "zh-Hans") is Severity.MAJOR
    )
    assert _number_severity("Order #W2378156 has 3 items.", "Đơn hàng #W2378157 có 3 mặt hàng.") is Severity.CRITICAL
    assert _number_severity("You want to buy 2 shirts.", "Bạn muốn mua 3 áo.") is Severity.CRITICAL


def test_strings_made_of_ids_emails_and_option_dicts_are_not_length_outliers():
    source = "Exchange {'color': 'blue', 'size': 'M', 'material': 'cotton'} for item 1234567890 (john_doe@example.com)."
    target = "Đổi {'color': 'blue', 'size': 'M', 'material': 'cotton'} lấy 1234567890 (john_doe@example.com)."
    assert "length_ratio_outlier" not in _kinds(source, target, "vi")
    assert "length_ratio_outlier" in _kinds("You want to cancel the order because it is late.", "Hủy.", "vi")


def test_held_out_calibration_leaves_the_measured_language_out_and_follows_the_variants_median():
    from validators.calibration import LanguageMeasure, calibrate

    measured = [
        LanguageMeasure(language=lang, ratios=[m * (0.9 + i / 100) for i in range(21)])
        for lang, m in (("vi", 1.0), ("th", 0.95), ("id", 1.12))
    ]
    held = calibrate([m for m in measured if m.language != "th"])
    assert held.languages == ["id", "vi"]
    low, high = held.band(0.3)  # a Chinese variant's own median: the same spread, around it
    assert low < 0.3 * 0.9 and 0.3 * 1.1 < high < 1.0


def test_a_group_of_renderings_reads_as_one_cause_with_its_occurrences():
    from tests.validators.findings_by_hand import a_finding

    findings = [
        a_finding(
            "probes",
            Layer.CONSISTENCY,
            "preserved_value_changed",
            Severity.MAJOR,
            "data/db.json",
            f"db.json.orders.*.items[*].name @ $['orders']['#W{i}']",
            "changed",
            element_id=f"e{i}",
            source="Water Bottle",
            target="Bình đựng nước",
            pattern="'Water Bottle' rendered 2 ways",
            detail={
                "reference": "Bình nước",
                "reference_role": "db.json.products.*.name",
                "holder_role": "db.json.orders.*.items[*].name",
            },
        )
        for i in range(3)
    ]
    (group,) = group_findings(findings)
    assert group.example.startswith("'Water Bottle' rendered 2 ways: 3 field(s) differ from the dominant rendering")
    assert "'Bình nước'" in group.example and "3 in db.json.orders.*.items[*].name" in group.example


def test_inserted_terms_are_learned_by_script_not_language():
    from types import SimpleNamespace

    from babelflow.language_data import language_data
    from validators.probes.spacing import inserted_terms

    pairs = [
        ("You want to pay with your gift card.", "你想使用 礼品卡 付款。"),
        ("Refund it to the gift card.", "退款到 礼品卡 里。"),
        ("The gift card balance is low.", "这张 礼品卡 余额不足。"),
        ("You also want to know the price.", "另外 你还想知道价格。"),
        ("Also, cancel the order.", "另外 取消订单。"),
        ("Also check the status.", "另外 查看状态。"),
    ]
    elements = [SimpleNamespace(id=str(i), source_text=s) for i, (s, _) in enumerate(pairs)]
    targets = {str(i): t for i, (_, t) in enumerate(pairs)}
    vocabulary = frozenset({"gift", "card", "status", "order", "price"})
    for tag in ("zh-Hans", "ja"):  # Han and Japanese: written without spaces
        assert inserted_terms(elements, targets, vocabulary, language_data(tag)) == {"礼品卡"}  # not 另外 ('also')
    assert inserted_terms(elements, targets, vocabulary, language_data("vi")) == set()  # spaces are words there


def test_a_count_written_as_a_word_is_the_same_number():
    """The target writes '3' as a word of its language (from num2words' rules): no changed number; a count
    that changes stays one; a script without word spaces is not searched ('สาม' begins 'สามารถ', 'can')."""
    source = "You want to return 3 items from the order."
    assert _number_severity(source, "Bạn muốn trả lại ba món hàng trong đơn hàng.") is None
    assert _number_severity(source, "Anda ingin mengembalikan tiga barang dari pesanan.", "id") is None
    assert _number_severity(source, "Anda ingin mengembalikan empat barang dari pesanan.", "id") is not None
    assert _number_severity(source, "คุณสามารถคืนสินค้าจากคำสั่งซื้อ", "th") is not None
