"""A language's spelling dictionary (babelflow/spelling_dictionary.py): which file a tag picks, and what
Debian's Spanish dictionary accepts, on the words labelled in bench/data/english_left/ by helpers who did
not write the check."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from babelflow.spelling_dictionary import dictionary_path, spelling_dictionary

LABELS = Path(__file__).resolve().parents[2] / "bench" / "data" / "english_left"


def _install(folder: Path, *names: str) -> None:
    for name in names:
        (folder / f"{name}.dic").write_text("1\nx\n", encoding="utf-8")
        (folder / f"{name}.aff").write_text("SET UTF-8\n", encoding="utf-8")


def test_a_tag_picks_its_region_then_the_language_own_dictionary(tmp_path):
    _install(tmp_path, "es_AR", "es_ES", "es_MX", "ca")
    (tmp_path / "gl_ES.dic").write_text("1\nx\n", encoding="utf-8")  # no .aff: not a dictionary
    assert dictionary_path("es-MX", [tmp_path]) == tmp_path / "es_MX"
    assert dictionary_path("es", [tmp_path]) == tmp_path / "es_ES"
    assert dictionary_path("es-419", [tmp_path]) == tmp_path / "es_ES"  # no 419 file: the language's own
    assert dictionary_path("ca", [tmp_path]) == tmp_path / "ca"
    assert dictionary_path("gl", [tmp_path]) is None
    assert dictionary_path("eu", [tmp_path]) is None


def test_a_language_with_only_regional_dictionaries_takes_the_first(tmp_path):
    _install(tmp_path, "en_US", "en_AU")
    assert dictionary_path("en", [tmp_path]) == tmp_path / "en_AU"
    assert dictionary_path("en-US", [tmp_path]) == tmp_path / "en_US"


def _spanish():
    spanish = spelling_dictionary("es")
    if not spanish.available:
        pytest.skip(
            "no Spanish spelling dictionary (Debian's hunspell and hunspell-es; "
            "scripts/install.sh installs them as root, CI does)"
        )
    return spanish


def test_spanish_lists_its_loanwords_and_no_english_words():
    spanish = _spanish()
    loanwords = ["golf", "suite", "suites", "retro", "karaoke", "canción"]
    assert spanish.headwords(loanwords) == set(loanwords)
    # unknown, a form of a Spanish verb ('rebate' of rebatir, 'resume' of resumir), or a compound
    assert spanish.headwords(["upcoming", "salon", "rebate", "resume", "refine", "anti-wrinkle"]) == set()
    assert spanish.headwords(["", " golf", "a\nb"]) == set()  # never a line hunspell would split


def test_the_speller_takes_out_more_false_alarms_than_english_words():
    """Over every word labelled (the variants seen while building and those held out), the speller lists
    loanwords Spanish writes and, of the words labelled English, at most 'peer' and 'memo(s)': English
    words that are Spanish headwords too (peer, to fart; memo, silly)."""
    spanish = _spanish()
    samples = [
        sample
        for name in ("dev_es", "heldout_es", "titles_es", "names_es")
        for sample in json.loads((LABELS / f"{name}.json").read_text(encoding="utf-8"))["samples"]
    ]
    english = {s["word"] for s in samples if s["label"] == "true"}
    loanwords = {s["word"] for s in samples if s["label"] == "false"} - english
    assert len(english) > 300
    assert spanish.headwords(english) <= {"peer", "memo", "memos"}
    assert {"golf", "suite", "suites", "retro", "viral", "karaoke"} <= spanish.headwords(loanwords)
