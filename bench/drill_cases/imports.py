"""Bad-input drill cases: imports and canonical maps (issue 28, items 5, 6, 7 and 12's file sizes).

Every import file starts as a real `babelflow export` of the drill's good project (tau2-mock en-XA)
and is then edited the way a translator's tool or a careless user would. Each case must exit 2,
name the unit or file, print a fix, and leave .babelflow/, adapted/ and canonical_maps/ byte-identical.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from lxml import etree

from bench.drill_cases import Case, Check, write_file

WATCH = (".babelflow", "adapted", "canonical_maps")
NS = "urn:oasis:names:tc:xliff:document:1.2"
# unit keys of tau2-mock's export (hashes of their text): stable while tau2's mock domain is
SWAP_KEY = "d142712f94e61e0cddbc6575"  # "Create a new task called '⟦0⟧' for ⟦1⟧."
PLAIN_KEY = "0bb89ac8908191608ec3c809"  # "Basic task creation test with a simple title"
KEPT_KEY = "b5f89b49f9c7a9bfb140210d"  # "Test User": kept by the entity policy, exported as translated (no fuzzy)
PERSONA_KEY = "f80640f7248cef76dbd2692b"  # "Professional and direct communicator…": no glossary term


def export(project: Path, fmt: str, lang: str = "en-XA") -> Path:
    """A real export of the good project (in-process, like the case itself)."""
    from typer.testing import CliRunner

    from flows.cli.app import app

    out = project / f"mock-{lang}.{'xlf' if fmt == 'xliff' else 'po'}"
    result = CliRunner().invoke(
        app,
        ["export", "tau2-mock", "--lang", lang, "--format", fmt, "--out", str(out)],
        env={"BABELFLOW_PROJECT_ROOT": str(project)},
    )
    if result.exit_code != 0:
        raise RuntimeError(f"export for the drill failed: {result.output}")
    return out


def _import(path: Path, lang: str = "en-XA", *extra: str) -> list[str]:
    return ["import", "tau2-mock", str(path), "--lang", lang, *extra]


def _xliff_unit(root, key: str):
    unit = root.find(f".//{{{NS}}}trans-unit[@id='{key}']")
    if unit is None:
        raise RuntimeError(f"tau2-mock's export has no unit {key}: update the drill's unit keys")
    return unit


def edited_xliff(
    edit: Callable[[etree._Element], None], lang: str = "en-XA", *extra: str
) -> Callable[[Path], list[str]]:
    def prepare(project: Path) -> list[str]:
        path = export(project, "xliff")
        tree = etree.parse(str(path))
        edit(tree.getroot())
        tree.write(str(path), xml_declaration=True, encoding="utf-8")
        return _import(path, lang, *extra)

    return prepare


def edited_po(edit: Callable[[str], str], lang: str = "en-XA") -> Callable[[Path], list[str]]:
    def prepare(project: Path) -> list[str]:
        path = export(project, "po")
        text = path.read_text(encoding="utf-8")
        edited = edit(text)
        if edited == text:
            raise RuntimeError("the drill's PO edit changed nothing: the export's layout changed")
        path.write_text(edited, encoding="utf-8")
        return _import(path, lang)

    return prepare


def _po_entry(text: str, key: str) -> tuple[int, int]:
    """(start, end) of the entry whose msgctxt is `key` (comments included, blank line excluded)."""
    match = re.search(rf'(?:^#.*\n)*^msgctxt "{key}"\n(?:^(?:msgid|msgstr|").*\n?)+', text, re.M)
    if match is None:
        raise RuntimeError(f"tau2-mock's PO export has no entry {key}")
    return match.start(), match.end()


def _fuzzy(text: str) -> str:
    """A finished text (exported without the flag) marked fuzzy: the translator is not done with it.
    (A draft keeps the fuzzy flag the export wrote: an edit to it is the translator's word.)"""
    start, end = _po_entry(text, KEPT_KEY)
    entry = text[start:end]
    if "#, fuzzy" in entry:
        raise RuntimeError("the drill's kept unit is exported fuzzy: the export's states changed")
    entry = entry.replace(f'msgctxt "{KEPT_KEY}"', f'#, fuzzy\nmsgctxt "{KEPT_KEY}"')
    return text[:start] + entry.replace('msgstr "Test User"', 'msgstr "Test User (check)"') + text[end:]


def _obsolete(text: str) -> str:
    start, end = _po_entry(text, PLAIN_KEY)
    lines = text[start:end].splitlines()
    kept = [line for line in lines if line.startswith("#")]
    return (
        text[:start]
        + "\n".join(kept + [f"#~ {line}" for line in lines if not line.startswith("#")])
        + "\n"
        + text[end:]
    )


def _language_header(text: str) -> str:
    return text.replace('"Language: en-XA\\n"', '"Language: ar-XB\\n"')


def _needs_translation(root) -> None:
    _xliff_unit(root, PLAIN_KEY).find(f"{{{NS}}}target").set("state", "needs-translation")


def _duplicate(root) -> None:
    unit = _xliff_unit(root, PLAIN_KEY)
    copy = etree.fromstring(etree.tostring(unit))
    copy.find(f"{{{NS}}}target").text = "[Ɓåšîç ţåšķ — a second, different translation]"
    unit.addnext(copy)


def _other_benchmark(root) -> None:
    root.find(f"{{{NS}}}file").set("original", "tau2-retail")


def _relabelled_es(root) -> None:
    root.find(f"{{{NS}}}file").set("target-language", "es")


def _swap_codes(root) -> None:
    target = _xliff_unit(root, SWAP_KEY).find(f"{{{NS}}}target")
    first, second = target.findall(f"{{{NS}}}ph")
    first.set("id", "1")
    second.set("id", "0")
    first.text, second.text = second.text, first.text


def _drop_code(root) -> None:
    target = _xliff_unit(root, SWAP_KEY).find(f"{{{NS}}}target")
    code = target.findall(f"{{{NS}}}ph")[1]
    previous = code.getprevious()
    previous.tail = (previous.tail or "") + "someone" + (code.tail or "")
    target.remove(code)


def _sparse_oversized(project: Path) -> list[str]:
    """A 60 MiB file made in no time and no disk space: a real export's bytes, then a sparse tail."""
    path = export(project, "xliff")
    huge = project / "huge.xlf"
    huge.write_bytes(path.read_bytes())
    with open(huge, "r+b") as handle:
        handle.truncate(60 * 2**20)
    return _import(huge)


def _blank_target(root) -> None:
    """A zero-width space is not an empty target (left to the translator): it emptied the field."""
    target = _xliff_unit(root, PERSONA_KEY).find(f"{{{NS}}}target")
    target.text = "\u200b"


def _markup_id(root) -> None:
    """A unit id that Rich would read as markup: '[/]' was a MarkupError traceback (exit 1)."""
    _xliff_unit(root, PLAIN_KEY).set("id", "[/]")


def _tabbed_keywords(text: str) -> str:
    """translate-toolkit parses `msgid<TAB>"…"` too: the unit count must see those entries."""
    return re.sub(r'^(msgctxt|msgid|msgstr) "', lambda m: m.group(1) + '\t"', text, flags=re.M)


def _tiny_elements(root) -> None:
    """6,000 empty elements (a few bytes each): 48 MiB of them took 3.1 GB of RSS to parse."""
    group = etree.SubElement(root.find(f".//{{{NS}}}body"), f"{{{NS}}}group")
    for _ in range(6_000):
        etree.SubElement(group, "a")


def _map(entries: str) -> bytes:
    return (
        '{"schema_version": "babelflow.canonical_map/1", "benchmark": "tau2-mock", "language": "en-XA", "entries": ['
        + entries
        + "]}"
    ).encode()


EMPTY_TARGET = _map('{"group": "task_title", "source": "Important Meeting", "target": " ", "origin": "reviewer"}')
COLLISION = _map(
    '{"group": "task_title", "source": "Important Meeting", "target": "Ïɱþöŕţåñţ Ɱééţîñĝ", "origin": "reviewer"},'
    ' {"group": "task_title", "source": "Team Sync", "target": "Ïɱþöŕţåñţ Ɱééţîñĝ", "origin": "translator"}'
)

# the same title once read: composed and decomposed accents, full-width letters (unicodedata NFKC)
LOOKALIKES = _map(
    '{"group": "task_title", "source": "Important Meeting", "target": "Ïɱþöŕţåñţ Ɱééţîñĝ", "origin": "reviewer"},'
    ' {"group": "task_title", "source": "Team Sync", "target": "I\u0308ɱþöŕţåñţ Ɱe\u0301e\u0301ţîñĝ",'
    ' "origin": "translator"}'
)

# issue 44: a target that draws nothing (a braille blank, a lone combining accent), and two targets in
# different characters that look the same (Cyrillic а and е for the Latin letters)
INVISIBLE_TARGET = _map(
    '{"group": "task_title", "source": "Important Meeting", "target": "\u2800\u0301", "origin": "reviewer"}'
)
HOMOGLYPHS = _map(
    '{"group": "task_title", "source": "Important Meeting", "target": "Team Update", "origin": "reviewer"},'
    ' {"group": "task_title", "source": "Team Sync", "target": "T\u0435\u0430m Updat\u0435", "origin": "translator"}'
)


def _map_then_import(data: bytes) -> Callable[[Path], list[str]]:
    def prepare(project: Path) -> list[str]:
        path = export(project, "xliff")  # exported while the map was good, imported after it was damaged
        (project / "canonical_maps" / "tau2-mock" / "en-XA.json").write_bytes(data)
        return _import(path)

    return prepare


def _po_tabs_over_limit(project: Path) -> list[str]:
    path = export(project, "po")
    path.write_text(_tabbed_keywords(path.read_text(encoding="utf-8")), encoding="utf-8")
    return _import(path, "en-XA", "--max-units", "60")  # 79 units


CASES: list[Case] = [
    Case("import: en-XA file imported as es", edited_xliff(lambda root: None, "es"), "'en-XA', not 'es'", WATCH),
    Case("import: en-XA texts relabelled target-language=es", edited_xliff(_relabelled_es, "es"), PLAIN_KEY, WATCH),
    Case("import: PO entry marked #, fuzzy", edited_po(_fuzzy), KEPT_KEY, WATCH),
    Case("import: PO obsolete #~ entry", edited_po(_obsolete), PLAIN_KEY, WATCH),
    Case("import: PO Language header of another language", edited_po(_language_header), "'ar-XB'", WATCH),
    Case("import: XLIFF target state=needs-translation", edited_xliff(_needs_translation), PLAIN_KEY, WATCH),
    Case("import: duplicate unit ids", edited_xliff(_duplicate), PLAIN_KEY, WATCH),
    Case("import: file of another benchmark (<file original>)", edited_xliff(_other_benchmark), "tau2-retail", WATCH),
    Case("import: target swapping two inline codes", edited_xliff(_swap_codes), SWAP_KEY, WATCH),
    Case("import: one target drops an inline code (all or nothing)", edited_xliff(_drop_code), SWAP_KEY, WATCH),
    Case("import: oversized XLIFF (sparse 60 MiB)", _sparse_oversized, "huge.xlf", WATCH),
    Case(
        "import: more units than --max-units",
        edited_xliff(lambda root: None, "en-XA", "--max-units", "50"),
        "units",
        WATCH,
    ),
    Case("import: target of only a zero-width space", edited_xliff(_blank_target), PERSONA_KEY, WATCH),
    Case("import: a unit id that reads as Rich markup is printed as text", edited_xliff(_markup_id), "unit [/]", WATCH),
    Case("import: PO keywords followed by tabs, over --max-units", _po_tabs_over_limit, "units", WATCH),
    Case(
        "import: XLIFF of tiny elements over the node bound",
        edited_xliff(_tiny_elements, "en-XA", "--max-units", "100"),
        "XML nodes",
        WATCH,
    ),
    # the map is refused wherever it is loaded (adapt, validate, export, import: tests/babelflow/test_canonical_map.py);
    # export and import show it without adapt's output lock file, which a copied project creates anew
    Case(
        "canonical map with an empty target",
        write_file(
            "canonical_maps/tau2-mock/en-XA.json",
            EMPTY_TARGET,
            ["export", "tau2-mock", "--lang", "en-XA", "--out", "{p}/x.xlf"],
        ),
        "Important Meeting",
        WATCH,
    ),
    Case("canonical map with two sources on one target", _map_then_import(COLLISION), "Team Sync", WATCH),
    Case(
        "canonical map with two targets that differ only in Unicode form",
        _map_then_import(LOOKALIKES),
        "Team Sync",
        WATCH,
    ),
    Case(
        "canonical map target of a braille blank and a lone accent",
        _map_then_import(INVISIBLE_TARGET),
        "Important Meeting",
        WATCH,
    ),
    Case(
        "canonical map with targets that look the same (Cyrillic letters)",
        _map_then_import(HOMOGLYPHS),
        "look the same",
        WATCH,
    ),
    # issue 44: messages that said "type '(none)'" or "a directory" for an empty path or a folder
    Case(
        "import: an empty path", lambda p: ["import", "tau2-mock", "", "--lang", "en-XA"], "No translation file", WATCH
    ),
    Case("import: a folder", lambda p: ["import", "tau2-mock", str(p), "--lang", "en-XA"], "is a folder", WATCH),
    Case(
        "export --out ''",
        lambda p: ["export", "tau2-mock", "--lang", "en-XA", "--out", ""],
        "Output path is empty",
        WATCH,
    ),
]
CHECKS: list[Check] = []
