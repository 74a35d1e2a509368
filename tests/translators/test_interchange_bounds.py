"""Import bounds that a file cannot slip past (translators/import_bounds.py): the unit count sees every
entry translate-toolkit would parse, and what the parser would hold besides units (XML nodes, PO
lines, entity references) is bounded before parsing too. Each file here passed the count before and
was parsed in full: 48 MiB of `<a/>` took 3.1 GB of RSS, a PO with tabs after its keywords 4.1 GB."""

from __future__ import annotations

import pytest

from babelflow.errors import BabelflowError
from translators.interchange import ImportLimits, read_exchange

NS = "urn:oasis:names:tc:xliff:document:1.2"
LIMITS = ImportLimits(max_units=20)  # 1,000 XML nodes or PO lines
HEADER = 'msgid ""\nmsgstr ""\n"Language: en-XA\\n"\n"X-Babelflow-Benchmark: tau2-mock\\n"\n\n'


def _xliff(body: str, root_ns: str = NS) -> bytes:
    return (
        f'<?xml version="1.0" encoding="utf-8"?>\n<xliff version="1.2" xmlns="{root_ns}">'
        f'<file original="tau2-mock" source-language="en" target-language="en-XA" datatype="plaintext">'
        f"<body>{body}</body></file></xliff>"
    ).encode()


def _unit(uid: str) -> str:
    return f'<trans-unit id="{uid}"><source>Hello</source><target>[Ĥéļļö]</target></trans-unit>'


@pytest.fixture
def not_parsed(monkeypatch):
    monkeypatch.setattr("translate.storage.xliff.xlifffile.parsestring", lambda data: pytest.fail("parsed"))
    monkeypatch.setattr("translate.storage.po.pofile.parsestring", lambda data: pytest.fail("parsed"))


@pytest.mark.parametrize(
    "entry",
    [
        'msgctxt\t"{i}"\nmsgid\t"a{i}"\nmsgstr\t"b"\n\n',  # a tab after the keyword
        'msgctxt "{i}"\nmsgid"a{i}"\nmsgstr "b"\n\n',  # nothing after it
        '#~\tmsgctxt "{i}"\n#~\tmsgid "a{i}"\n#~\tmsgstr "b"\n\n',  # obsolete, tab-indented
    ],
)
def test_po_entries_are_counted_as_the_parser_reads_them(tmp_path, not_parsed, entry):
    path = tmp_path / "many.po"
    path.write_text(HEADER + "".join(entry.format(i=i) for i in range(30)), encoding="utf-8")
    with pytest.raises(BabelflowError, match="more than 20 units"):
        read_exchange(path, LIMITS)


def test_po_lines_are_decoded_as_the_parser_decodes_them(tmp_path, not_parsed):
    # a line that is not UTF-8 is read as Latin-1, where 0xA0 is a no-break space that lstrip() drops
    path = tmp_path / "latin1.po"
    body = b"".join(b'#~\xa0msgctxt "%d"\n#~\xa0msgid "a"\n#~\xa0msgstr "b"\n\n' % i for i in range(30))
    path.write_bytes(HEADER.encode() + body)
    with pytest.raises(BabelflowError, match="more than 20 units"):
        read_exchange(path, LIMITS)


def test_po_lines_are_bounded(tmp_path, not_parsed):
    path = tmp_path / "comments.po"
    path.write_text(HEADER + "#a\n" * 1_000 + 'msgctxt "k"\nmsgid "a"\nmsgstr "b"\n', encoding="utf-8")
    with pytest.raises(BabelflowError, match="more than 1,000 lines") as caught:
        read_exchange(path, LIMITS)
    assert caught.value.field == "units" and "--max-units" in (caught.value.fix or "")


def test_xliff_units_in_another_namespace_are_counted(tmp_path, not_parsed):
    path = tmp_path / "other-ns.xlf"
    units = "".join(_unit(f"u{i}") for i in range(30))
    path.write_bytes(_xliff(units, root_ns="urn:oasis:names:tc:xliff:document:1.1"))
    with pytest.raises(BabelflowError, match="more than 20 units"):
        read_exchange(path, LIMITS)


@pytest.mark.parametrize(
    "body",
    [
        _unit("u1") + "<group>" + "<a/>" * 1_000 + "</group>",
        _unit("u1").replace("<source>", "<source " + " ".join(f'a{i}=""' for i in range(1_000)) + ">"),
        _unit("u1") + "<!---->" * 1_000,
    ],
    ids=["elements", "attributes", "comments"],
)
def test_xliff_nodes_are_bounded(tmp_path, not_parsed, body):
    path = tmp_path / "nodes.xlf"
    path.write_bytes(_xliff(body))
    with pytest.raises(BabelflowError, match="more than 1,000 XML nodes"):
        read_exchange(path, LIMITS)


def test_xliff_with_an_internal_dtd_is_refused(tmp_path, not_parsed):
    # each &e; would be an uncounted node of the parsed tree (entities are never expanded)
    path = tmp_path / "dtd.xlf"
    data = _xliff(_unit("u1").replace("[Ĥéļļö]", "&e;" * 100))
    path.write_bytes(data.replace(b"<xliff", b'<!DOCTYPE xliff [<!ENTITY e "x">]>\n<xliff', 1))
    with pytest.raises(BabelflowError, match="declares its own DTD") as caught:
        read_exchange(path, LIMITS)
    assert caught.value.field == "DOCTYPE"


def test_files_within_the_bounds_are_read(tmp_path):
    xliff = tmp_path / "ok.xlf"
    xliff.write_bytes(_xliff("".join(_unit(f"u{i}") for i in range(20))))
    assert len(read_exchange(xliff, LIMITS).entries) == 20
    po = tmp_path / "ok.po"
    po.write_text(HEADER + "".join(f'#. note\nmsgctxt "{i}"\nmsgid "a"\nmsgstr "b"\n\n' for i in range(20)))
    assert len(read_exchange(po, LIMITS).entries) == 20
