"""Glossaries at scale (issue 28, item 12): one term index per glossary finds exactly what each
term's word-bounded, case-insensitive regex finds, without a regex per term and field; packs over
the limit are refused with the file and the field."""

from __future__ import annotations

import random
import re
import time
from pathlib import Path

import pytest

from babelflow.errors import BabelflowError
from babelflow.glossary import MAX_GLOSSARY_TERMS, TermMatcher, ignorecase_key
from babelflow.ir import DataValueLocator, IRDocument, IRElement, TranslationType, element_id
from babelflow.language_pack import load_pack, read_pack
from babelflow.text import ACCENT_TABLE
from translators.pack_checks import check_translations

REPO = Path(__file__).resolve().parents[2]


def _by_regex(sources: list[str], text: str) -> list[int]:
    """The rule before the index: each term's own regex."""
    return [i for i, source in enumerate(sources) if re.search(rf"(?<!\w){re.escape(source)}(?!\w)", text, re.I)]


TERMS = [
    "order",
    "Order ID",
    "refund",
    "e-mail",
    "user_id",
    "#W2",
    "$",
    "(note)",
    "İstanbul",
    "status",
    "KELVIN",
    "straße",
    "ß",
    "a",
    "gift card",
    "card",
    "x-ray",
    "naïve",
    "Ünïcode",
    "",
]
TEXTS = [
    "Your ORDER was refunded; the Order  ID stays, see order id #W2378156 or #W2.",
    "Send an E-MAIL to user_id 12 (note) for a $ refund, gift-card or gift card.",
    "istanbul and İSTANBUL, ſtatus, STATUS, kelvin with a Kelvin sign: \u212aelvin.",
    "Strasse vs straße vs STRASSE; ß and ss; naive vs NAÏVE; a, an, A.",
    "x-rays and x-ray; card-holder; cards; ünïcode; orders; reorder.",
    "",
]


@pytest.mark.parametrize("text", TEXTS)
def test_the_index_finds_what_each_terms_regex_finds(text: str) -> None:
    assert TermMatcher(TERMS).present(text) == _by_regex(TERMS, text)


def test_the_index_agrees_with_the_regexes_on_random_text() -> None:
    rng = random.Random(28)
    alphabet = "aAbBsSſkK\u212aıIİiß- _#$.()éÉ"
    words = ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 4))) for _ in range(200)]
    terms = sorted(set(words[:120])) + [f"{a} {b}" for a, b in zip(words[:20], words[20:40])]
    matcher = TermMatcher(terms)
    for _ in range(300):
        text = " ".join(rng.choice(words) for _ in range(rng.randint(0, 12)))
        assert matcher.present(text) == _by_regex(terms, text), text


def test_the_fold_puts_every_ignorecase_pair_together() -> None:
    """A candidate is selected by folded first words: two characters `re.IGNORECASE` matches must fold
    to one key, or a term would be missed."""
    for code in list(range(0x3000)) + [0x1E9E, 0x212A, 0x212B, 0x2126, 0xFB05, 0xFB06, 0x1FD3, 0x1FE3]:
        char = chr(code)
        for other in {char.lower(), char.upper(), char.title(), char.casefold(), char.swapcase()}:
            if len(other) == 1 and re.fullmatch(re.escape(char), other, re.I):
                assert ignorecase_key(char) == ignorecase_key(other), (char, other)


def test_a_large_glossary_compiles_only_the_candidates_it_meets() -> None:
    terms = [f"zq{index}word" for index in range(MAX_GLOSSARY_TERMS - 2)] + ["order", "refund"]
    matcher = TermMatcher(terms)
    started = time.perf_counter()
    for _ in range(1_000):
        assert matcher.present("Refund the order of user zq17word, then zq17words.") == [
            17,
            len(terms) - 2,
            len(terms) - 1,
        ]
    assert time.perf_counter() - started < 2.0  # was ~20,000 regex searches per text
    assert len(matcher._patterns) == 3  # zq17word, order, refund: nothing else was compiled


def _ir_with(texts: list[str]) -> IRDocument:
    elements = []
    for index, text in enumerate(texts):
        locator = DataValueLocator(path=("notes", index))
        elements.append(
            IRElement(
                id=element_id("notes.json", locator),
                artifact="notes.json",
                locator=locator,
                role="notes[*]",
                source_text=text,
                translation_type=TranslationType.TRANSLATE_FREE,
                typing_rule="test",
            )
        )
    return IRDocument(
        benchmark="tau2-mock",
        source_version="1",
        profile_sha256="0" * 64,
        artifacts=[],
        elements=elements,
        link_groups=[],
    )


def test_release_checks_with_20000_terms_still_catch_a_missing_rendering() -> None:
    from babelflow.language_pack import GlossaryTerm

    pack = load_pack("en-XA")
    words = [f"zq{index}word" for index in range(MAX_GLOSSARY_TERMS - 1)]
    glossary = [GlossaryTerm(benchmark="tau2-mock", source=w, target=w.translate(ACCENT_TABLE)) for w in words]
    glossary.append(GlossaryTerm(benchmark="tau2-mock", source="refund", target="ŕéƒûñð"))
    big = pack.model_copy(update={"glossary": glossary, "version": "9.9.9"})
    texts = [f"Refund order {index} and zq{index}word." for index in range(200)]
    ir = _ir_with(texts)
    good = {e.id: e.source_text.translate(ACCENT_TABLE) for e in ir.elements}
    started = time.perf_counter()
    assert check_translations(big, ir, good) == []
    elapsed = time.perf_counter() - started
    bad = dict(good)
    bad[ir.elements[3].id] = "Ŕéţûŕñ öŕðéŕ 3 åñð " + "zq3word".translate(ACCENT_TABLE)  # 'refund' rendered otherwise
    problems = check_translations(big, ir, bad)
    assert problems == ["notes.json notes[*]: glossary term 'refund' is not rendered as 'ŕéƒûñð'"]
    assert elapsed < 5.0  # 200 fields x 20,000 terms: was one regex search (and compile) per pair


def _pack_text(terms: int) -> str:
    base = (REPO / "language_packs" / "en-XA.toml").read_text(encoding="utf-8").split("[[glossary]]")[0]
    return base + "".join(
        f'\n[[glossary]]\nbenchmark = "*"\nsource = "zq{i}word"\ntarget = "žǫ{i}ŵöŕð"\n' for i in range(terms)
    )


def test_a_pack_at_the_limit_loads(tmp_path: Path) -> None:
    path = tmp_path / "en-XA.toml"
    path.write_text(_pack_text(MAX_GLOSSARY_TERMS), encoding="utf-8")
    assert len(read_pack(path).glossary) == MAX_GLOSSARY_TERMS


def test_a_pack_over_the_limit_names_the_file_and_the_field(tmp_path: Path) -> None:
    path = tmp_path / "en-XA.toml"
    path.write_text(_pack_text(MAX_GLOSSARY_TERMS + 1), encoding="utf-8")
    with pytest.raises(BabelflowError) as raised:
        read_pack(path)
    message = raised.value.render()
    assert "en-XA.toml" in message and "glossary" in message and "20,001" in message and "fix:" in message


def test_a_huge_pack_is_refused_before_it_is_parsed(tmp_path: Path) -> None:
    path = tmp_path / "en-XA.toml"
    path.write_text(_pack_text(0) + "# " + "x" * (9 * 2**20) + "\n", encoding="utf-8")
    started = time.perf_counter()
    with pytest.raises(BabelflowError, match="at most 8 MB") as raised:
        read_pack(path)
    assert time.perf_counter() - started < 1.0
    assert "en-XA.toml" in raised.value.render()
