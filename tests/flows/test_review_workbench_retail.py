"""Issue 25's CLI acceptance on es retail (Apertium drafts), in one walk: read any unit, correct 3,
export (corrections with state="translated", drafts needs-review-translation), re-import the
unchanged file (no change), import an English target (a per-unit finding), sign (the sample is
recorded), and a glossary edit that reruns exactly the units that mention the term.

Slow (~2 min: the Apertium translation of retail and nine CLI calls of ~8 s each); the same
behaviour on tau2-mock is tests/flows/test_review_workbench.py (16 s)."""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson
import pytest
from lxml import etree

from babelflow.adapt_request import AdaptRequest
from babelflow.settings import BabelflowSettings

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("apertium") is None, reason="apertium is not installed (scripts/install.sh)"),
]

NS = "urn:oasis:names:tc:xliff:document:1.2"
BENCH = "tau2-retail"
REPO = Path(__file__).resolve().parents[2]


def _cli(*args: str):
    from typer.testing import CliRunner

    from flows.cli.app import app

    return CliRunner().invoke(app, list(args))


def _bench(root: Path):
    from flows.review.workbench import Workbench

    return Workbench.of_variant(BabelflowSettings(project_root=root), BENCH, "es")


def _with_codes(target) -> str:
    """An exported <target> as protected text: each <ph id="N"> as ⟦N⟧."""
    text = target.text or ""
    for child in target:
        text += f"⟦{child.get('id')}⟧" + (child.tail or "")
    return text


def test_es_retail_review_walk(tmp_path, monkeypatch, analyzed):
    from babelflow.glossary import term_matcher
    from babelflow.ir import save_ir
    from flows.pipeline.adapt import adapt
    from flows.review.signoff_sample import sign_sample
    from flows.review.store import ReviewStore
    from flows.written_targets import read_written_targets
    from translators.placeholders import restore
    from validators.findings import FailureSet

    monkeypatch.setenv("BABELFLOW_PROJECT_ROOT", str(tmp_path))
    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.chdir(tmp_path)
    settings = BabelflowSettings(project_root=tmp_path)
    save_ir(analyzed(BENCH), settings.layout.ir(BENCH))
    adapt(AdaptRequest.of_options(BENCH, "es"), settings=settings, ir=analyzed(BENCH))

    # read any unit
    bench = _bench(tmp_path)
    glossary = term_matcher(tuple(t.source for t in bench.run.pack.glossary_for(BENCH)))
    plain = [
        r
        for r in bench.records
        if r.kind == "free"
        and r.origin_class == "draft"
        and r.tasks
        and "user_scenario" in r.roles[0]
        and not any(c.isdigit() for c in r.source)
        and not bench.protected[r.key].placeholders
        and not glossary.present(r.source)
        and "payment method" not in r.source  # the glossary term added below: a human text without it would fail
    ]
    assert len(plain) >= 4
    shown = _cli("units", BENCH, "--lang", "es", "--id", plain[0].key)
    assert (
        shown.exit_code == 0 and plain[0].target[:30] in shown.output and f"tasks {plain[0].tasks[0]}" in shown.output
    )

    # correct 3 units
    texts = {
        r.key: f"Texto revisado por la revisora, número {'uno dos tres'.split()[i]}." for i, r in enumerate(plain[:3])
    }
    for key, text in texts.items():
        done = _cli("correct", BENCH, "--lang", "es", "--id", key, "--text", text, "--author", "ana")
        assert done.exit_code == 0, done.output
        assert "0 unit(s) sent to the translator" in done.output

    # export: the corrections with state="translated", the drafts needs-review-translation
    out = tmp_path / "retail-es.xlf"
    assert _cli("export", BENCH, "--lang", "es", "--out", str(out)).exit_code == 0
    units = {u.get("id"): u.find(f"{{{NS}}}target") for u in etree.parse(str(out)).iter(f"{{{NS}}}trans-unit")}
    assert len(units) == len(bench.records) == 1969
    for key, text in texts.items():
        assert units[key].text == text and units[key].get("state") == "translated"
    assert units[plain[3].key].get("state") == "needs-review-translation"
    # the export is the live text, unit for unit: what the variant's last rebuild wrote in each field
    written = read_written_targets(_bench(tmp_path).run)
    after = _bench(tmp_path)
    differ = [
        r.key
        for r in after.records
        if (units[r.key] is not None and restore(_with_codes(units[r.key]), after.protected[r.key]))
        != written.get(r.element_ids[0])
    ]
    assert differ == [], [(k, written.get(after.find(k).element_ids[0])) for k in differ[:3]]
    ac_adapter = next(r for r in after.records if r.kind == "canonical" and r.source == "AC adapter")
    exported = restore(_with_codes(units[ac_adapter.key]), after.protected[ac_adapter.key])
    assert exported == after.cmap.target_of(ac_adapter.canonical_group or "", "AC adapter") == ac_adapter.target
    assert units[ac_adapter.key].get("state") != "needs-translation"

    # re-import the unchanged file: no change
    reviewed = settings.layout.reviewed_translations(BENCH, "es")
    stored = reviewed.read_bytes()
    again = _cli("import", BENCH, str(out), "--lang", "es")
    assert again.exit_code == 0 and "0 changed (1969 unchanged" in again.output
    assert reviewed.read_bytes() == stored

    # an English target: a per-unit finding, nothing written
    tree = etree.parse(str(out))
    english = next(u for u in tree.iter(f"{{{NS}}}trans-unit") if u.get("id") == plain[3].key)
    english.find(f"{{{NS}}}target").text = plain[3].source
    tree.write(str(out), xml_declaration=True, encoding="utf-8")
    refused = _cli("import", BENCH, str(out), "--lang", "es")
    assert refused.exit_code == 2 and f"unit {plain[3].key}" in refused.output and reviewed.read_bytes() == stored

    # sign: the sample is recorded (lot 719 translated units -> ISO 2859-1 level II letter J -> 80)
    ReviewStore(settings.layout.review_dir(BENCH, "es")).save_queue(
        FailureSet(benchmark=BENCH, language="es", findings=[], validators=[])
    )
    sample = sign_sample(_bench(tmp_path))
    at_ac = [arg for u in sample.units[:5] for arg in ("--fail", f"{u.unit_key}=fluency:minor")]  # Ac 5 at AQL 2.5
    signed = _cli("review", BENCH, "--lang", "es", "--sign", "--reviewer", "ana", "--yes", *at_ac)
    assert signed.exit_code == 0, signed.output
    record = orjson.loads((settings.layout.variant(BENCH, "es") / "babelflow_signoff.json").read_bytes())
    assert record["tier"] == "mt" and record["sample"]["code_letter"] == "J"
    assert len(record["sample"]["units"]) == record["sample"]["sample_size"] == 80
    assert record["outcome"]["accepted"] and record["outcome"]["failing"] == 5

    # a glossary edit reruns exactly the units that mention the term (human texts stay)
    term = term_matcher(("payment method",))
    mentioning = [r for r in bench.records if r.kind == "free" and term.present(r.source)]
    drafts = [r for r in mentioning if r.origin_class == "draft"]
    packs = tmp_path / "language_packs"
    packs.mkdir()
    (packs / "es.toml").write_text(
        (REPO / "language_packs" / "es.toml").read_text(encoding="utf-8")
        + '\n[[glossary]]\nbenchmark = "tau2-retail"\nsource = "payment method"\ntarget = "método de pago"\n',
        encoding="utf-8",
    )
    pending = _cli("units", BENCH, "--lang", "es", "--origin", "pending", "--limit", "1")  # reads, translates nothing
    assert pending.exit_code == 0 and f"of {len(drafts)} matching" in pending.output
    result = adapt(AdaptRequest.of_options(BENCH, "es"), settings=BabelflowSettings(project_root=tmp_path))
    stats = result.outcome.stats  # units translated afresh (units with one protected text share a request)
    assert len(drafts) >= 20 and stats.units_by_origin[stats.translator_id] == len(drafts)
    assert all("método de pago" in result.outcome.targets[r.element_ids[0]].lower() for r in drafts)
    assert result.voided_signoff and "VOID" in result.voided_signoff

    # a careful reviewer fails 30% of the (new) sample: SignoffRejected, and those units are the work list
    sample = sign_sample(_bench(tmp_path))
    failing = sample.units[: -(-len(sample.units) * 3 // 10)]
    marked = [arg for u in failing for arg in ("--fail", f"{u.unit_key}=accuracy:major")]
    rejected = _cli("review", BENCH, "--lang", "es", "--sign", "--reviewer", "ana", "--yes", *marked)
    said = " ".join(rejected.output.split())
    assert rejected.exit_code == 1 and f"SIGN-OFF REJECTED by ana: {len(failing)} failing of 80" in said, said[-800:]
    assert not (settings.layout.variant(BENCH, "es") / "babelflow_signoff.json").exists()
    work = _cli("units", BENCH, "--lang", "es", "--failing", "--limit", "0")
    listed = [u.unit_key for u in failing if u.unit_key[:12] in work.output]  # units shows 12 of 24 hex digits
    kept = [r.key for r in _bench(tmp_path).records if r.origin_class == "kept"]
    assert len(listed) == len(failing) and kept and not [k for k in kept if k[:12] in work.output], work.output[-600:]
