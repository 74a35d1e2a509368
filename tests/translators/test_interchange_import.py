"""Reading an edited XLIFF/PO (translators/interchange.py) and the swapped-code rule
(translators/code_order.py): bounds before parsing, states, headers, no entity expansion."""

from __future__ import annotations

import os
import time

import pytest

from babelflow.errors import BabelflowError
from translators.code_order import code_order_problems
from translators.interchange import ImportLimits, header_problems, read_exchange
from translators.placeholders import protect

NS = "urn:oasis:names:tc:xliff:document:1.2"


def _xliff(units: str, original: str = "tau2-mock", target_language: str = "en-XA", prolog: str = "") -> bytes:
    return (
        f'<?xml version="1.0" encoding="utf-8"?>{prolog}\n<xliff version="1.2" xmlns="{NS}">'
        f'<file original="{original}" source-language="en" target-language="{target_language}" datatype="plaintext">'
        f"<body>{units}</body></file></xliff>"
    ).encode()


def _unit(uid: str, target: str = "[Ĥéļļö]", state: str | None = None) -> str:
    attribute = f' state="{state}"' if state else ""
    return f'<trans-unit id="{uid}"><source>Hello</source><target{attribute}>{target}</target></trans-unit>'


@pytest.mark.parametrize(
    "state,final",
    [
        (None, True),
        ("translated", True),
        ("signed-off", True),
        ("final", True),
        ("new", False),
        ("needs-translation", False),
        ("needs-adaptation", False),
        ("needs-l10n", False),
        ("needs-review-translation", False),
        ("needs-review-l10n", False),
        ("x-machine-draft", False),
    ],
)
def test_xliff_states(tmp_path, state, final):
    path = tmp_path / "f.xlf"
    path.write_bytes(_xliff(_unit("u1", state=state)))
    (entry,) = read_exchange(path).entries
    assert entry.key == "u1" and entry.target == "[Ĥéļļö]" and entry.where == "line 2"
    assert (entry.not_final == "") is final
    if not final:
        assert state in entry.not_final


def test_po_fuzzy_obsolete_and_headers(tmp_path):
    path = tmp_path / "f.po"
    path.write_text(
        'msgid ""\nmsgstr ""\n"Language: es_ES\\n"\n"X-Babelflow-Benchmark: tau2-mock\\n"\n\n'
        'msgctxt "a"\nmsgid "Hello"\nmsgstr "Hola"\n\n'
        '#, fuzzy\nmsgctxt "b"\nmsgid "Bye"\nmsgstr "Adiós"\n\n'
        '#~ msgctxt "c"\n#~ msgid "Old"\n#~ msgstr "Viejo"\n',
        encoding="utf-8",
    )
    exchange = read_exchange(path)
    assert [(e.key, e.target, e.not_final) for e in exchange.entries] == [
        ("a", "Hola", ""),
        ("b", "Adiós", "#, fuzzy"),
        ("c", "Viejo", "obsolete #~ entry"),
    ]
    assert header_problems(exchange, "tau2-mock", "es-ES") == []  # es_ES is es-ES
    assert header_problems(exchange, "tau2-mock", "es") == ["the file's target language is 'es_ES', not 'es' (--lang)"]
    assert "benchmark 'tau2-mock'" in header_problems(exchange, "tau2-retail", "es-ES")[0]


def test_xliff_header_mismatch_and_missing_language(tmp_path):
    path = tmp_path / "f.xlf"
    path.write_bytes(_xliff(_unit("u1"), original="tau2-retail", target_language=""))
    problems = header_problems(read_exchange(path), "tau2-mock", "en-XA")
    assert any("'tau2-retail'" in p for p in problems) and any("target-language" in p for p in problems)


def test_size_is_checked_before_the_file_is_read(tmp_path, monkeypatch):
    path = tmp_path / "huge.xlf"
    with open(path, "wb") as handle:
        handle.truncate(200 * 2**20)  # sparse 200 MiB: took 2.2-2.4 GB of RSS to parse before
    opened = []
    monkeypatch.setattr(
        "builtins.open", lambda *a, **k: opened.append(a) or (_ for _ in ()).throw(AssertionError("read"))
    )
    started = time.perf_counter()
    with pytest.raises(BabelflowError, match="too large: 200.0 MiB") as caught:
        read_exchange(path)
    assert time.perf_counter() - started < 1 and not opened
    assert caught.value.file == str(path) and "BABELFLOW_IMPORT_MAX_BYTES" in (caught.value.fix or "")


def test_unit_count_is_checked_before_parsing(tmp_path, monkeypatch):
    path = tmp_path / "many.xlf"
    path.write_bytes(_xliff("".join(_unit(f"u{i}") for i in range(30))))
    monkeypatch.setattr("translate.storage.xliff.xlifffile.parsestring", lambda data: pytest.fail("parsed"))
    with pytest.raises(BabelflowError, match="more than 20 units"):
        read_exchange(path, ImportLimits(max_units=20))
    po_path = tmp_path / "many.po"
    po_path.write_text("".join(f'msgctxt "{i}"\nmsgid "a{i}"\nmsgstr "b"\n\n' for i in range(30)), encoding="utf-8")
    with pytest.raises(BabelflowError, match="more than 20 units"):
        read_exchange(po_path, ImportLimits(max_units=20))


def test_fifo_and_unknown_suffix_are_refused(tmp_path):
    fifo = tmp_path / "pipe.po"
    os.mkfifo(fifo)
    with pytest.raises(BabelflowError, match="not a regular file"):
        read_exchange(fifo)  # would block forever if it were opened
    with pytest.raises(BabelflowError, match="Unknown translation file type"):
        read_exchange(tmp_path / "notes.txt")


def test_entities_are_not_expanded(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET", encoding="utf-8")
    prolog = f'\n<!DOCTYPE xliff [<!ENTITY xxe SYSTEM "file://{secret}"><!ENTITY a "aaaaaaaaaa">]>'
    path = tmp_path / "xxe.xlf"
    path.write_bytes(_xliff(_unit("u1", target="&xxe;&a;&a;"), prolog=prolog))
    try:
        entries = read_exchange(path).entries
    except BabelflowError:
        return  # refusing the document is fine too
    assert all("TOP-SECRET" not in e.target and "aaaaaaaaaa" not in e.target for e in entries)


def test_swapped_codes_are_found_and_a_real_reorder_is_not():
    protected = protect(
        "Create a new task called 'Important Meeting' for user_1.", preserve_tokens=["Important Meeting"]
    )
    assert protected.text == "Create a new task called '⟦0⟧' for ⟦1⟧."
    swapped = "Cree una tarea llamada '⟦1⟧' para ⟦0⟧."
    assert "swapped" in code_order_problems(swapped, protected, keep_order=False)[0]
    # Japanese-like order: the user first, the quoted title second, quotes restyled: a legal reorder
    assert code_order_problems("⟦1⟧ のために「⟦0⟧」というタスクを作成", protected, keep_order=False) == []
    # a pseudo-locale renders word by word: any reorder is refused there
    assert "reordered" in code_order_problems("[⟦1⟧ ƒöŕ ⟦0⟧]", protected, keep_order=True)[0]
    assert code_order_problems("[Çŕéåţé '⟦0⟧' ƒöŕ ⟦1⟧]", protected, keep_order=True) == []
