"""Language packs: typed data, CLDR conventions, release checks; a new language is data only."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from babelflow.adapt_request import AdaptRequest
from babelflow.errors import BabelflowError
from babelflow.ir import TranslationType
from babelflow.language_pack import available_packs, load_pack, read_pack
from babelflow.settings import BabelflowSettings
from translators.pack_checks import check_pack, check_translations

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("tag", ["en-XA", "ar-XB", "zh-Hans", "hi"])
def test_shipped_packs_pass_their_release_checks(tag):
    pack = load_pack(tag)
    assert check_pack(pack) == []
    conventions = pack.conventions()
    assert conventions["decimal_example"] and conventions["date_example"]
    assert pack.glossary and pack.agent_language_clause


def test_real_language_packs_carry_cldr_conventions_and_scripts():
    zh, hi = load_pack("zh-Hans"), load_pack("hi")
    assert zh.conventions()["date_example"] == "2024年5月15日" and zh.script == "Hans"
    assert hi.conventions()["decimal_example"] == "12,34,567.89" and hi.script == "Deva"
    assert {"en-XA", "ar-XB", "zh-Hans", "hi"} <= set(available_packs())


def test_pack_problems_are_found(tmp_path):
    bad = (
        (REPO / "language_packs" / "zh-Hans.toml")
        .read_text(encoding="utf-8")
        .replace('target = "订单"', 'target = "order"')
        .replace('script = "Hans"', 'script = "Latn"')
    )
    path = tmp_path / "zh-Hans.toml"
    path.write_text(bad, encoding="utf-8")
    problems = check_pack(read_pack(path))
    assert any("likely script Hans" in p for p in problems)
    (tmp_path / "de.toml").write_text('tag = "de"\nversion = "1"\n', encoding="utf-8")
    with pytest.raises(BabelflowError) as caught:
        read_pack(tmp_path / "de.toml")
    assert "de.toml" in caught.value.render() and "version" in caught.value.render()
    (tmp_path / "xx-!!.toml").write_text(bad.replace('tag = "zh-Hans"', 'tag = "xx-!!"'), encoding="utf-8")
    with pytest.raises(BabelflowError, match="BCP 47"):
        read_pack(tmp_path / "xx-!!.toml")


def test_translation_release_checks_catch_glossary_parity_persona_and_control_tokens(analyzed):
    from flows.pipeline.adapt import adapt

    ir = analyzed("tau2-mock")
    pack = load_pack("en-XA")
    result = adapt(
        AdaptRequest.of_options("tau2-mock", "en-XA", out=Path("/tmp/never-written/v")),
        settings=BabelflowSettings(project_root=Path("/tmp/never-written")),
        ir=ir,
    )
    targets = dict(result.outcome.targets)
    assert check_translations(pack, ir, targets) == []
    by_id = ir.by_id()
    instructions = next(
        i for i, t in targets.items() if "user_1" in by_id[i].source_text and "user_scenario" in by_id[i].role
    )
    persona = next(i for i in targets if by_id[i].role.endswith(".persona"))
    task_term = next(
        i for i, t in targets.items() if " task " in f" {by_id[i].source_text} " and i not in (instructions, persona)
    )
    guideline = next(i for i in targets if "###STOP###" in by_id[i].source_text)
    targets[instructions] = targets[instructions].replace("user_1", "usér_1")
    targets[persona] = by_id[persona].source_text + " (plain English)"
    targets[task_term] = targets[task_term].replace("ţåšķ", "çĥöŕé").replace("Ţåšķ", "Çĥöŕé")
    targets[guideline] = targets[guideline].replace("###STOP###", "###ŠŢÖÞ###")
    problems = "\n".join(check_translations(pack, ir, targets))
    assert "task parity broken" in problems and "'user_1'" in problems
    assert "persona is not in" in problems
    assert "glossary term 'task'" in problems
    assert "control tokens lost ['###STOP###']" in problems


def test_failing_release_check_writes_nothing(tmp_path, analyzed):
    from flows.pipeline.adapt import adapt

    packs = tmp_path / "language_packs"
    packs.mkdir()
    text = (REPO / "language_packs" / "en-XA.toml").read_text(encoding="utf-8")
    (packs / "en-XA.toml").write_text(
        text + '\n[[glossary]]\nbenchmark = "tau2-mock"\nsource = "meeting"\ntarget = "réünion"\n', encoding="utf-8"
    )
    with pytest.raises(BabelflowError, match="release check"):
        adapt(
            AdaptRequest.of_options("tau2-mock", "en-XA"),
            settings=BabelflowSettings(project_root=tmp_path),
            ir=analyzed("tau2-mock"),
        )
    assert not (tmp_path / "adapted").exists()


def test_a_language_added_as_data_only_adapts_tau2_mock(tmp_path, analyzed, monkeypatch):
    from flows.pipeline.adapt import adapt
    from source_benchmarks import get_benchmark
    from validators.run import validate_variant, variant_context

    packs = tmp_path / "language_packs"
    packs.mkdir()
    text = (REPO / "language_packs" / "en-XA.toml").read_text(encoding="utf-8")
    (packs / "en-XC.toml").write_text(
        text.replace('tag = "en-XA"', 'tag = "en-XC"').replace('version = "1.0.0"', 'version = "0.1.0"'),
        encoding="utf-8",
    )
    monkeypatch.setenv("BABELFLOW_PROJECT_ROOT", str(tmp_path))
    settings = BabelflowSettings(project_root=tmp_path)
    result = adapt(AdaptRequest.of_options("tau2-mock", "en-XC"), settings=settings, ir=analyzed("tau2-mock"))
    manifest = orjson.loads((result.paths.variant / "babelflow_manifest.json").read_bytes())
    assert manifest["language_pack_version"] == "en-XC@0.1.0" and manifest["domain_name"] == "mock_en-XC"
    assert result.outcome.stats.translator_id == "pseudo:en-XC:accented/v1"
    failures = validate_variant(variant_context(get_benchmark("tau2-mock"), result.paths.variant, result.ir, "en-XC"))
    assert failures.findings == []


def test_task_parity_keeps_a_quantitys_number_not_its_unit():
    """'$3-4k' pseudo-translates to '$3-4ķ' and reads '3-4 mil' in Spanish: the number stays, the
    unit is the language's (τ³ banking task_056 failed the en-XA release check on this); an id
    with letters around its digits is still kept whole."""
    from translators.pack_checks import _field_problems, term_matcher
    from translators.pseudo_locale import pseudo_translate_text

    pack = load_pack("en-XA")

    class Field:
        artifact, role = "tasks.json", "tasks[*].user_scenario.instructions"
        source_text = "We spend $3-4k a month, maybe 5k; my order is W2378156, the 10th."
        translation_type = TranslationType.TRANSLATE_FREE

    def problems(target: str) -> list[str]:
        return _field_problems(pack, [], term_matcher(()), [], Field, target)

    quantities = "We spend $3-4k a month, maybe 5k"  # (the flow hands ids to a translator as placeholders)
    assert problems(pseudo_translate_text(quantities, "en-XA") + "; my order is W2378156, the 10th.") == []
    assert problems("Gastamos 3-4 mil al mes, quizá 5 mil; mi pedido es W2378156, el 10.") == []
    lost_id = problems("Gastamos 3-4 mil al mes, quizá 5 mil; mi pedido es W2378, el 10.")
    assert len(lost_id) == 1 and "'W2378156'" in lost_id[0]
    lost_number = problems("Gastamos 3 mil al mes, quizá 5 mil; mi pedido es W2378156, el 10.")
    assert len(lost_number) == 1 and "'3-4'" in lost_number[0]
