"""The review workbench on tau2-mock es (Apertium drafts): read every unit, correct units in place
(checked, logged, applied, rebuilding only what they touch), XLIFF states and provenance through the
round trip, per-unit import checks, the sign-off sample, a stale sign-off voided, and an import that
meets a paused run's lock. The es retail walk-through is tests/flows/test_review_workbench_retail.py."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import orjson
import pytest
from lxml import etree

from babelflow.adapt_request import AdaptRequest
from babelflow.settings import BabelflowSettings

pytestmark = pytest.mark.skipif(
    shutil.which("apertium") is None,
    reason="apertium is not installed (scripts/install.sh installs apertium-eng-spa as root; CI does)",
)

NS = "urn:oasis:names:tc:xliff:document:1.2"
BENCH = "tau2-mock"


@pytest.fixture(scope="module")
def built(tmp_path_factory, analyzed) -> Path:
    """tau2-mock adapted into es once; each test works on its own copy."""
    from babelflow.ir import save_ir
    from flows.pipeline.adapt import adapt

    root = tmp_path_factory.mktemp("mock-es")
    settings = BabelflowSettings(project_root=root)
    save_ir(analyzed(BENCH), settings.layout.ir(BENCH))
    adapt(AdaptRequest.of_options(BENCH, "es"), settings=settings, ir=analyzed(BENCH))
    return root


@pytest.fixture
def project(built, tmp_path, monkeypatch) -> Path:
    root = tmp_path / "project"
    shutil.copytree(built, root, symlinks=True, ignore=shutil.ignore_patterns("locks"))
    monkeypatch.setenv("BABELFLOW_PROJECT_ROOT", str(root))
    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.chdir(root)
    return root


def _cli(*args: str, input: str | None = None):
    from typer.testing import CliRunner

    from flows.cli.app import app

    return CliRunner().invoke(app, list(args), input=input)


def _bench(root: Path):
    from flows.review.workbench import Workbench

    return Workbench.of_variant(BabelflowSettings(project_root=root), BENCH, "es")


def _variant_text(root: Path) -> str:
    base = root / "adapted" / BENCH / "es"
    return "".join(p.read_text(encoding="utf-8", errors="replace") for p in sorted(base.rglob("*")) if p.is_file())


def _review(root: Path) -> Path:
    return root / ".babelflow" / "review" / BENCH / "es"


def _free_draft(bench, *, with_digits: bool = False):
    return next(
        r
        for r in bench.records
        if r.kind == "free"
        and r.origin_class == "draft"
        and len(r.source) > 25
        and not any("description" in role for role in r.roles)  # task metadata no model reads: English is minor
        and not bench.protected[r.key].placeholders
        and any(c.isdigit() for c in r.source) == with_digits
    )


def test_units_reads_source_and_target_with_context_provenance_and_checks(project):
    bench = _bench(project)
    record = next(r for r in bench.records if r.kind == "free" and r.tasks and r.origin_class == "draft")
    result = _cli("units", BENCH, "--lang", "es", "--task", record.tasks[0], "--limit", "0")
    assert result.exit_code == 0, result.output
    assert record.key[:12] in result.output and "apertium" in result.output and "pass (language" in result.output
    whole = _cli("units", BENCH, "--lang", "es", "--id", record.key[:8])
    assert whole.exit_code == 0, whole.output
    for part in (record.source[:20], record.target[:20], f"tasks {record.tasks[0]}", record.roles[0], "made by"):
        assert part in whole.output, part
    assert _cli("units", BENCH, "--lang", "es", "--origin", "corrected").output.count("0 of 0") == 1
    unknown = _cli("units", BENCH, "--lang", "es", "--id", "ffffffffff")
    assert unknown.exit_code == 2 and "fix:" in unknown.output


def test_a_correction_is_checked_logged_and_rebuilds_only_its_fields(project):
    bench = _bench(project)
    record = _free_draft(bench)
    before = _variant_text(project)
    english = _cli("correct", BENCH, "--lang", "es", "--id", record.key, "--text", record.source, "--author", "ana")
    assert english.exit_code == 2 and "untranslated" in english.output and "--force" in english.output
    assert not (_review(project) / "corrections.jsonl").exists() and _variant_text(project) == before

    text = "Texto corregido por la revisora con cuidado."
    done = _cli("correct", BENCH, "--lang", "es", "--id", record.key, "--text", text, "--author", "ana")
    assert done.exit_code == 0, done.output
    fields = len(record.element_ids)
    assert (
        f"{fields} field(s) changed by this; 1 file(s) rewritten" in done.output
        and "0 unit(s) sent to the translator" in done.output
    )
    assert text in _variant_text(project) and record.target not in _variant_text(project).replace(text, "")
    logged = [orjson.loads(line) for line in (_review(project) / "corrections.jsonl").read_bytes().splitlines()]
    assert [(c["author"], c["previous"], c["text"], c["via"]) for c in logged] == [
        ("ana", record.target, text, "correction")
    ]

    again = _cli("correct", BENCH, "--lang", "es", "--id", record.key, "--text", text + " Bien.", "--author", "luis")
    assert again.exit_code == 0, again.output
    after = _bench(project)
    corrected = after.find(record.key)
    assert corrected.origin_class == "corrected" and corrected.human.author == "luis" and corrected.corrections == 2
    assert corrected.human.previous == text  # the first correction is kept as the second one's previous text
    assert sum(r.origin_class == "corrected" for r in after.records) == 1  # only this unit is a human's


def test_export_carries_corrections_states_and_context_and_reimport_changes_nothing(project):
    bench = _bench(project)
    record = _free_draft(bench)
    text = "Una traducción revisada y corregida."
    assert _cli("correct", BENCH, "--lang", "es", "--id", record.key, "--text", text, "--author", "ana").exit_code == 0
    out = project / "mock-es.xlf"
    exported = _cli("export", BENCH, "--lang", "es", "--out", str(out))
    assert exported.exit_code == 0, exported.output
    units = {u.get("id"): u for u in etree.parse(str(out)).iter(f"{{{NS}}}trans-unit")}
    corrected = units[record.key].find(f"{{{NS}}}target")
    assert corrected.text == text and corrected.get("state") == "translated"
    states = {u.find(f"{{{NS}}}target").get("state") for k, u in units.items() if k != record.key}
    assert "needs-review-translation" in states and "translated" in states  # drafts; kept entity values
    notes = [n.text for u in units.values() for n in u.iter(f"{{{NS}}}note")]
    assert any(n.startswith("tasks: ") for n in notes) and any("corrected by ana" in n for n in notes)

    reviewed = project / ".babelflow" / "runs" / BENCH / "es" / "reviewed_translations.json"
    stored, variant = reviewed.read_bytes(), _variant_text(project)
    again = _cli("import", BENCH, str(out), "--lang", "es")
    assert again.exit_code == 0, again.output
    assert "0 changed" in again.output and "nothing was written" in again.output
    assert reviewed.read_bytes() == stored and _variant_text(project) == variant


def test_an_import_with_one_edit_makes_one_unit_imported(project):
    out = project / "mock-es.xlf"
    assert _cli("export", BENCH, "--lang", "es", "--out", str(out)).exit_code == 0
    bench = _bench(project)
    record = _free_draft(bench)
    tree = etree.parse(str(out))
    unit = next(u for u in tree.iter(f"{{{NS}}}trans-unit") if u.get("id") == record.key)
    unit.find(f"{{{NS}}}target").text = "Texto que la traductora ha revisado."  # state left as exported
    tree.write(str(out), xml_declaration=True, encoding="utf-8")
    result = _cli("import", BENCH, str(out), "--lang", "es")
    assert result.exit_code == 0, result.output
    assert re.search(r"1 changed \(\d+ unchanged", result.output)
    after = _bench(project)
    origins = {r.key: r.origin_class for r in after.records}
    assert origins[record.key] == "imported" and list(origins.values()).count("imported") == 1
    assert after.find(record.key).human.detail == "mock-es.xlf"


def test_an_english_target_is_a_per_unit_finding_and_needs_force(project):
    out = project / "mock-es.xlf"
    assert _cli("export", BENCH, "--lang", "es", "--out", str(out)).exit_code == 0
    bench = _bench(project)
    record = _free_draft(bench)
    tree = etree.parse(str(out))
    unit = next(u for u in tree.iter(f"{{{NS}}}trans-unit") if u.get("id") == record.key)
    target = unit.find(f"{{{NS}}}target")
    target.text, target.attrib["state"] = record.source, "translated"  # left in English
    tree.write(str(out), xml_declaration=True, encoding="utf-8")
    refused = _cli("import", BENCH, str(out), "--lang", "es")
    assert refused.exit_code == 2 and f"unit {record.key}" in refused.output and "untranslated" in refused.output
    assert "--force" in refused.output and not (_review(project) / "corrections.jsonl").exists()
    forced = _cli("import", BENCH, str(out), "--lang", "es", "--force")
    assert forced.exit_code == 0, forced.output
    assert _bench(project).find(record.key).human.forced == ["untranslated"]


def test_an_english_sentence_is_refused_by_correct_and_import_with_the_fix(project):
    english = "Please check every detail with the user before you change anything in the account."
    record = _free_draft(_bench(project))
    refused = _cli("correct", BENCH, "--lang", "es", "--id", record.key, "--text", english)
    assert refused.exit_code == 2 and "English left in place" in refused.output, refused.output
    assert "--force" in refused.output and not (_review(project) / "corrections.jsonl").exists()
    out = project / "mock-es.xlf"
    assert _cli("export", BENCH, "--lang", "es", "--out", str(out)).exit_code == 0
    tree = etree.parse(str(out))
    unit = next(u for u in tree.iter(f"{{{NS}}}trans-unit") if u.get("id") == record.key)
    target = unit.find(f"{{{NS}}}target")
    target.text, target.attrib["state"] = english, "translated"
    tree.write(str(out), xml_declaration=True, encoding="utf-8")
    imported = _cli("import", BENCH, str(out), "--lang", "es")
    assert imported.exit_code == 2 and "wrong_language" in imported.output and "English" in imported.output
    forced = _cli("correct", BENCH, "--lang", "es", "--id", record.key, "--text", english, "--force")
    assert forced.exit_code == 0, forced.output
    assert _bench(project).find(record.key).human.forced == ["wrong_language"]  # --force is recorded


def test_a_confirmed_finding_is_fixed_by_a_replacement_text(project):
    from flows.review.store import ReviewStore
    from tests.validators.findings_by_hand import a_finding
    from validators.findings import FailureSet, Layer, Severity

    bench = _bench(project)
    record = _free_draft(bench)
    finding = a_finding(
        "probe", Layer.FIDELITY, "wrong_language", Severity.MAJOR, record.artifacts[0], record.roles[0], "odd",
        element_id=record.element_ids[0], source=record.source, target=record.target,
    )  # fmt: skip
    store = ReviewStore(_review(project))
    store.save_queue(FailureSet(benchmark=BENCH, language="es", findings=[finding], validators=["probe"]))
    text = "Una frase que la revisora corrigió."
    result = _cli("correct", BENCH, "--lang", "es", "--finding", finding.id, "--text", text, "--author", "eva")
    assert result.exit_code == 0, result.output
    assert f"finding {finding.id} -> unit {record.key}" in result.output
    decision = store.decisions()[-1]
    assert (decision.finding_id, decision.decision, decision.replacement) == (finding.id, "confirm", text)
    assert _bench(project).find(record.key).human.via == "finding"


def test_sample_size_follows_iso_2859_level_ii():
    from flows.review.signoff import allocate, sample_size, translator_tier

    # at AQL 2.5 Table II-A's arrows move letters A and E to the plans below (n = 5, n = 20)
    assert [sample_size(n) for n in (1, 8, 25, 79, 502, 1969, 10_000)] == [
        ("A", 1), ("C", 5), ("C", 5), ("F", 20), ("J", 80), ("K", 125), ("L", 200),
    ]  # fmt: skip
    assert sample_size(79, 1.0) == ("E", 13) and sample_size(502, 0.15) == ("J", 80)
    quota = allocate({"task": 60, "policy": 30, "tool": 9, "db": 1}, 13)
    assert sum(quota.values()) == 13 and quota["db"] == 1 and quota["task"] > quota["policy"] > quota["tool"]
    assert [translator_tier(t) for t in ("pseudo:en-XA/v1", "apertium:eng-spa@x/v3", "openai:gpt-4o/v2")] == [
        "pseudo", "mt", "model",
    ]  # fmt: skip


def _sample(project):
    from flows.review.signoff_sample import sign_sample

    return sign_sample(_bench(project))


def test_sign_shows_the_sample_and_plan_and_accepts_at_most_ac_failures_and_a_rebuild_voids_it(project):
    from flows.review.store import ReviewStore
    from validators.findings import FailureSet

    ReviewStore(_review(project)).save_queue(FailureSet(benchmark=BENCH, language="es", findings=[], validators=[]))
    sample = _sample(project)
    plan = sample.plan
    assert plan is not None and plan.aql == 2.5 and (plan.code_letter, plan.sample_size) == ("F", 20)
    assert (plan.accept, plan.reject) == (1, 2)
    # asked unit by unit: every unit passes but one, a minor fluency slip: 1 <= Ac 1
    first = sample.units[0]
    answers = "fail\nfluency\nminor\nrun-on sentence\n" + "pass\n" * (len(sample.units) - 1)
    signed = _cli("review", BENCH, "--lang", "es", "--sign", "--reviewer", "ana", input=answers)
    assert signed.exit_code == 0, signed.output
    said = " ".join(signed.output.split())
    assert "tier mt" in said and "needs post-editing" in said and "ISO 2859-1" in said
    assert "at most 1 failing of 20 (Ac), rejected from 2 (Re)" in said and "1 failing of 20 ≤ Ac 1: accepted" in said
    variant = project / "adapted" / BENCH / "es"
    record = orjson.loads((variant / "babelflow_signoff.json").read_bytes())
    assert record["tier"] == "mt" and record["outcome"]["accepted"] and record["outcome"]["failing"] == 1
    assert [v["unit_key"] for v in record["verdicts"] if v["verdict"] == "fail"] == [first.unit_key]
    assert len(record["verdicts"]) == len(record["sample"]["units"]) == 20 and len(record["sample"]["strata"]) >= 2
    assert record["spot_checked_tasks"] and sample.units[0].target[:15] in signed.output
    log = [orjson.loads(line) for line in (_review(project) / "signoff_log.jsonl").read_bytes().splitlines()]
    assert [(e["decision"], e["reviewer"]) for e in log] == [("signed", "ana")]

    bench = _bench(project)
    record = _free_draft(bench)
    result = _cli(
        "correct", BENCH, "--lang", "es", "--id", record.key, "--text", "Otra frase ya revisada.", "--author", "ana"
    )
    assert result.exit_code == 0 and "VOID" in result.output
    assert not (variant / "babelflow_signoff.json").exists() and list(_review(project).glob("signoff-void-*.json"))


def test_a_sample_with_re_failures_is_rejected_and_its_failing_units_are_queued_until_corrected(project):
    from flows.review.signoff_log import SignoffLog, rejected_unit_findings
    from flows.review.store import ReviewStore
    from validators.findings import FailureSet

    store = ReviewStore(_review(project))
    store.save_queue(FailureSet(benchmark=BENCH, language="es", findings=[], validators=[]))
    sample = _sample(project)
    failing = sample.units[:2]  # Re 2
    verdicts = project / "verdicts.json"
    verdicts.write_bytes(
        orjson.dumps(
            [{"unit_key": failing[0].unit_key, "verdict": "fail", "category": "accuracy", "severity": "major"}]
        )
    )
    given = ["--verdicts", str(verdicts), "--fail", f"{failing[1].unit_key[:8]}=terminology:minor:not the map's term"]
    result = _cli("review", BENCH, "--lang", "es", "--sign", "--reviewer", "ana", "--yes", *given)
    said = " ".join(result.output.split())
    assert result.exit_code == 1, result.output
    assert "SIGN-OFF REJECTED by ana: 2 failing of 20 ≥ Re 2: rejected" in said and "queued for review" in said
    assert not (project / "adapted" / BENCH / "es" / "babelflow_signoff.json").exists()
    rejection = SignoffLog(_review(project)).last_rejection()
    assert rejection is not None and [u.unit_key for u in rejection.rejected_units] == [u.unit_key for u in failing]
    assert {step.stratum for step in rejection.plan} == {u.stratum for u in failing}
    queue = store.queue()
    assert queue is not None
    queued = [f for f in queue.findings if f.kind == "sample_unit_failed"]
    assert [(f.severity.value, f.evidence[0].detail["unit"]) for f in queued] == [
        ("major", failing[0].unit_key), ("minor", failing[1].unit_key),
    ]  # fmt: skip
    # the work list puts them first (MQM severity weighs) and lists nothing kept by policy
    from flows.review.work_list import work_list

    listed = work_list(_bench(project))
    assert [record.key for record, _, _ in listed[:2]] == [failing[0].unit_key, failing[1].unit_key]
    assert all(record.origin_class != "kept" for record, _, _ in listed)
    assert any(r.origin_class == "kept" for r in _bench(project).records)  # there are kept units to leave out
    shown = _cli("units", BENCH, "--lang", "es", "--failing", "--limit", "0")
    assert shown.exit_code == 0 and f"of {len(listed)} matching" in shown.output
    # signing again is refused while they are open; a correction takes its unit off the list
    again = _cli("review", BENCH, "--lang", "es", "--sign", "--yes")
    assert again.exit_code == 2 and "still open" in again.output
    text = failing[0].target + " (revisado)"
    fixed = _cli("correct", BENCH, "--lang", "es", "--id", failing[0].unit_key, "--text", text, "--force")
    assert fixed.exit_code == 0, fixed.output
    left = rejected_unit_findings(_bench(project), rejection)
    assert [f.evidence[0].detail["unit"] for f in left] == [failing[1].unit_key]


def test_bad_verdicts_are_refused_with_the_field_and_the_fix(project):
    from flows.review.store import ReviewStore
    from validators.findings import FailureSet

    ReviewStore(_review(project)).save_queue(FailureSet(benchmark=BENCH, language="es", findings=[], validators=[]))
    bad = _cli("review", BENCH, "--lang", "es", "--sign", "--fail", "abcdef=accuracy:huge")
    assert bad.exit_code == 2 and "--fail" in bad.output and "critical" in bad.output
    unknown = _cli("review", BENCH, "--lang", "es", "--sign", "--yes", "--fail", "zzzzzzzz=style:minor")
    assert unknown.exit_code == 2 and "not in the sign-off sample" in unknown.output
    assert not (_review(project) / "signoff_log.jsonl").exists()


def test_an_import_during_a_paused_run_writes_nothing_and_names_the_run(project):
    from babelflow.run_lock import run_lock

    out = project / "mock-es.xlf"
    assert _cli("export", BENCH, "--lang", "es", "--out", str(out)).exit_code == 0
    record = _free_draft(_bench(project))
    tree = etree.parse(str(out))
    unit = next(u for u in tree.iter(f"{{{NS}}}trans-unit") if u.get("id") == record.key)
    unit.find(f"{{{NS}}}target").text = "Texto revisado durante la pausa."
    tree.write(str(out), xml_declaration=True, encoding="utf-8")
    run_id = "0b7e5b6a-3f8e-4c1e-9a53-5f0d2b0c9e11"
    reviewed = project / ".babelflow" / "runs" / BENCH / "es" / "reviewed_translations.json"
    with run_lock(project / ".babelflow" / "locks", BENCH, "es", holder=run_id):
        result = _cli("import", BENCH, str(out), "--lang", "es")
    said = " ".join(result.output.split())  # the console wraps long lines
    assert result.exit_code == 2 and run_id in said and "paused for review" in said
    assert "nothing was written" in said and f"prefect flow-run cancel {run_id}" in said
    assert not reviewed.exists() and not (_review(project) / "corrections.jsonl").exists()


def test_a_glossary_edit_retranslates_exactly_the_units_that_mention_the_term(project):
    from flows.pipeline.adapt import adapt
    from translators.units import extract_units

    repo_pack = Path(__file__).resolve().parents[2] / "language_packs" / "es.toml"
    packs = project / "language_packs"
    packs.mkdir(exist_ok=True)
    term = "title"
    (packs / "es.toml").write_text(
        repo_pack.read_text(encoding="utf-8")
        + f'\n[[glossary]]\nbenchmark = "{BENCH}"\nsource = "{term}"\ntarget = "título"\n',
        encoding="utf-8",
    )
    pending = _cli("units", BENCH, "--lang", "es", "--origin", "pending", "--limit", "0")  # reading translates nothing
    assert pending.exit_code == 0, pending.output
    settings = BabelflowSettings(project_root=project)
    result = adapt(AdaptRequest.of_options(BENCH, "es"), settings=settings)
    canonical, free = extract_units(result.ir)
    mentioning = [u for u in free if re.search(rf"(?<!\w){term}s?(?!\w)", u.text, re.I)]
    stats = result.outcome.stats  # units translated afresh (units with one protected text share a request)
    assert mentioning and stats.units_by_origin[stats.translator_id] == len(mentioning)
    assert f"{len(mentioning)} of {len(mentioning)} matching" in pending.output
    assert all("título" in result.outcome.targets[u.element_ids[0]].lower() for u in mentioning)


def test_a_glossary_edit_that_human_texts_break_sets_them_aside_named_and_they_are_fixed_one_by_one(project):
    from flows.pipeline.adapt import adapt

    bench = _bench(project)
    record = _free_draft(bench)
    word = max(re.findall(r"[a-z]{5,}", record.source), key=len)
    pair = [record] + [
        r
        for r in bench.records
        if r.key != record.key
        and r.kind == "free"
        and r.origin_class == "draft"
        and not bench.protected[r.key].placeholders
        and not any(c.isdigit() for c in r.source)
        and re.search(rf"\b{word}\b", r.source)
    ][:1]
    if len(pair) < 2:
        pytest.skip(f"no second unit mentions {word!r}")
    for number, unit in enumerate(pair):
        text = f"Frase revisada {'AB'[number]} sin el término."
        assert (
            _cli("correct", BENCH, "--lang", "es", "--id", unit.key, "--text", text, "--author", "ana").exit_code == 0
        )
    packs = project / "language_packs"
    packs.mkdir(exist_ok=True)
    repo_pack = Path(__file__).resolve().parents[2] / "language_packs" / "es.toml"
    (packs / "es.toml").write_text(
        repo_pack.read_text(encoding="utf-8")
        + f'\n[[glossary]]\nbenchmark = "{BENCH}"\nsource = "{word}"\ntarget = "términoX"\n',
        encoding="utf-8",
    )
    # the stored human texts the new glossary fails do not stop the rebuild: set aside, named, machine text kept
    result = adapt(AdaptRequest.of_options(BENCH, "es"), settings=BabelflowSettings(project_root=project))
    aside = {u.unit_key: u for u in result.outcome.set_aside}
    assert set(aside) == {u.key for u in pair}
    assert all(aside[u.key].human_text.startswith("Frase revisada") for u in pair)
    assert all("términoX" in aside[u.key].problems[0] or word in aside[u.key].problems[0] for u in pair)
    text = _variant_text(project)
    assert "Frase revisada" not in text and "términoX" in text
    first = _cli(
        "correct", BENCH, "--lang", "es", "--id", pair[0].key, "--text", "Frase con términoX.", "--author", "ana"
    )
    assert first.exit_code == 0 and "rebuilt" in first.output, first.output
    second = _cli(
        "correct", BENCH, "--lang", "es", "--id", pair[1].key, "--text", "Otra con términoX.", "--author", "ana"
    )
    assert second.exit_code == 0 and "rebuilt" in second.output, second.output
    text = _variant_text(project)
    assert "Frase con términoX." in text and "Otra con términoX." in text


def test_po_marks_drafts_fuzzy_and_round_trips_without_change(project):
    from translate.storage import po

    out = project / "mock-es.po"
    assert _cli("export", BENCH, "--lang", "es", "--format", "po", "--out", str(out)).exit_code == 0
    store = po.pofile.parsestring(out.read_bytes())
    drafts = [u for u in store.units if not u.isheader() and u.isfuzzy()]
    assert drafts and all(u.target for u in drafts)
    again = _cli("import", BENCH, str(out), "--lang", "es")
    assert again.exit_code == 0 and "0 changed" in again.output
    record = _free_draft(_bench(project))
    unit = next(u for u in store.units if u.getcontext() == record.key)
    unit.target = "Texto revisado en el archivo PO."  # the fuzzy flag the export wrote is left as it was
    out.write_bytes(bytes(store))
    result = _cli("import", BENCH, str(out), "--lang", "es")
    assert result.exit_code == 0 and "1 changed" in result.output, result.output
    assert _bench(project).find(record.key).origin_class == "imported"


def test_a_confirmed_finding_on_an_imported_text_sends_the_unit_back_to_the_translator(project):
    from flows.pipeline.stages import translate_ir
    from flows.run_setup import resolve_run
    from translators.spec import make_translator

    bench = _bench(project)
    record = _free_draft(bench)
    settings = BabelflowSettings(project_root=project)
    run = resolve_run(settings, AdaptRequest.of_options(BENCH, "es"))
    reviewed = dict.fromkeys(record.element_ids, "Un texto importado que la revisión rechazó.")
    run.paths.reviewed.parent.mkdir(parents=True, exist_ok=True)
    run.paths.reviewed.write_bytes(orjson.dumps(reviewed))
    translator = make_translator(run.request.translator, run.language, run.pack)
    outcome, _ = translate_ir(run, translator, bench.ir, reviewed, [record.element_ids[0]], None)
    assert outcome.unit_origins[record.key] == translator.translator_id  # drafted again, not 'reviewed'
    assert outcome.targets[record.element_ids[0]] == record.target
    assert orjson.loads(run.paths.reviewed.read_bytes()) == {}


def test_a_form_replacement_changes_every_file_of_its_unit_as_the_reviewers_correction(project):
    from flows.pipeline.adapt import adapt
    from flows.review.replacements import apply_replacements
    from flows.review.store import ReviewDecision

    bench = _bench(project)
    record = next(
        r
        for r in bench.records
        if r.kind == "free"
        and len({bench.elements[e].artifact for e in r.element_ids}) > 1
        and len(r.source) > 40
        and not bench.protected[r.key].placeholders
        and not any(c.isdigit() for c in r.source)
    )
    artifacts = sorted({bench.elements[e].artifact for e in record.element_ids})
    text = "Texto revisado por la revisora para todas las guías donde aparece esta unidad."
    decision = ReviewDecision(
        finding_id="F-form", decision="confirm", reviewer="ana", replacement=text, element_id=record.element_ids[-1]
    )
    done = apply_replacements(bench.run, [decision])
    assert not done.refused and [c.unit_key for c in done.corrections] == [record.key]
    adapt(AdaptRequest.of_options(BENCH, "es"), settings=BabelflowSettings(project_root=project))
    base = project / "adapted" / BENCH / "es"
    assert all(text in (base / artifact).read_text(encoding="utf-8") for artifact in artifacts), artifacts
    after = _bench(project).find(record.key)
    assert after.origin_class == "corrected" and after.target == text
    [entry] = [orjson.loads(line) for line in (_review(project) / "corrections.jsonl").read_bytes().splitlines()]
    assert (entry["author"], entry["via"], entry["detail"]) == ("ana", "finding", "F-form")
    assert set(entry["element_ids"]) == set(record.element_ids)

    # an English replacement is refused by the same checks as `correct`: nothing stored, a finding's text instead
    reviewed = (project / ".babelflow").rglob("reviewed_translations.json")
    before = {p: p.read_bytes() for p in reviewed}
    english = decision.model_copy(
        update={"finding_id": "F-en", "replacement": "Check every detail with the user before you change the order."}
    )
    [refused] = apply_replacements(bench.run, [english]).refused
    assert refused.unit_key == record.key and refused.human_text == english.replacement
    assert "wrong_language" in refused.problems[0] and "English" in refused.problems[0], refused.problems
    assert {p: p.read_bytes() for p in before} == before
