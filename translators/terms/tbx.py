"""The term base as TBX (ISO 30042, the TBX-Basic subset terminology tools read), out and back in, so a
terminologist can review it in their own tool.

Each term is a `termEntry`: its class as `descrip type="subjectField"`, the English term, and the
rendering with its status (`preferredTerm-admn-sts` once approved, `admittedTerm-admn-sts` while
proposed), who approved it and when (`transacGrp`), and why babelflow doubts it (`note`).

Import turns the file into term decisions: a rendering that changed is a correction, a status raised to
preferred an approval, by the author the file names. The file is refused whole (exit 2, nothing written)
when a term is empty, when one term has two renderings, when it names a term, class or language the term
base does not have, or when two terms of a class would share a rendering.
"""

from __future__ import annotations

import hashlib
import io
from pathlib import Path

from lxml import etree

from babelflow.errors import BabelflowError
from translators.terms.review import TermAction, TermDecision, now
from translators.terms.term_base import TermBase, TermEntry

PREFERRED = "preferredTerm-admn-sts"
ADMITTED = "admittedTerm-admn-sts"
MAX_BYTES = 20 * 2**20  # retail's term base is ~60 KB
XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"


def entry_id(entry: TermEntry) -> str:
    return "t" + hashlib.blake2b(f"{entry.group}\0{entry.source}".encode(), digest_size=8).hexdigest()


def export_tbx(base: TermBase, decisions: list[TermDecision]) -> bytes:
    """The term base as TBX-Basic; the last decision on each term gives its approver and date."""
    last = {(d.group, d.source): d for d in decisions}
    root = etree.Element("martif", {"type": "TBX-Basic", XML_LANG: "en"})
    header = etree.SubElement(etree.SubElement(root, "martifHeader"), "fileDesc")
    source_desc = etree.SubElement(etree.SubElement(header, "sourceDesc"), "p")
    source_desc.text = f"babelflow term base: {base.benchmark} en -> {base.language}"
    body = etree.SubElement(etree.SubElement(root, "text"), "body")
    for entry in base.entries:
        term_entry = etree.SubElement(body, "termEntry", id=entry_id(entry))
        subject = etree.SubElement(term_entry, "descrip", type="subjectField")
        subject.text = entry.group
        for record in entry.context.records[:1] + entry.context.examples[:1]:
            context = etree.SubElement(term_entry, "descrip", type="context")
            context.text = record
        english = etree.SubElement(etree.SubElement(term_entry, "langSet", {XML_LANG: "en"}), "tig")
        etree.SubElement(english, "term").text = entry.source
        tig = etree.SubElement(etree.SubElement(term_entry, "langSet", {XML_LANG: base.language}), "tig")
        etree.SubElement(tig, "term").text = entry.rendering
        status = etree.SubElement(tig, "termNote", type="administrativeStatus")
        status.text = PREFERRED if entry.state == "approved" else ADMITTED
        decided = last.get((entry.group, entry.source))
        if entry.state == "approved":  # who approved it: the decision log, else the map entry's own record
            transaction = etree.SubElement(tig, "transacGrp")
            etree.SubElement(transaction, "transac", type="transactionType").text = "approval"
            who = decided.author if decided is not None else entry.origin_detail or entry.origin
            etree.SubElement(transaction, "transacNote", type="responsibility").text = who
            if decided is not None:
                etree.SubElement(transaction, "date").text = decided.at
        if entry.signals:
            note = etree.SubElement(tig, "note")
            shown = "; ".join(f"{s.kind.value}: {s.evidence}" for s in entry.signals)
            note.text = f"babelflow doubts it ({round(100 * (1 - entry.chance_wrong))}% sure): {shown}"
    return etree.tostring(root, xml_declaration=True, encoding="UTF-8", pretty_print=True)


def _refused(path: Path, message: str, field: str = "termEntry") -> BabelflowError:
    return BabelflowError(
        f"TBX file refused, nothing was imported: {message}",
        file=path,
        field=field,
        fix="correct the file (or export it again with `babelflow terms … --export-tbx`) and import it whole",
    )


def _parse(path: Path) -> etree._Element:
    data = path.read_bytes()
    if len(data) > MAX_BYTES:
        raise _refused(path, f"{len(data):,} bytes, more than {MAX_BYTES:,}", "size")
    parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False, load_dtd=False)
    try:
        root = etree.parse(io.BytesIO(data), parser).getroot()
    except etree.XMLSyntaxError as exc:
        raise _refused(path, f"not XML: {exc}", "file") from exc
    if root.getroottree().docinfo.internalDTD is not None:
        raise _refused(path, "it declares its own DTD (entities are not read)", "DOCTYPE")
    if etree.QName(root).localname not in ("martif", "tbx"):
        raise _refused(path, f"the root element is <{etree.QName(root).localname}>, not <martif> or <tbx>", "root")
    return root


def _local(element: etree._Element) -> str:
    return etree.QName(element).localname if isinstance(element.tag, str) else ""


def _children(element: etree._Element, name: str) -> list[etree._Element]:
    return [child for child in element.iter() if _local(child) == name]


def import_tbx(path: Path, base: TermBase, author: str) -> list[TermDecision]:
    """The decisions a TBX file holds against `base`; refused whole on any bad entry. `author`: for an
    approval or change the file does not attribute."""
    root = _parse(path)
    by_key = {(e.group, e.source): e for e in base.entries}
    seen: dict[tuple[str, str], str] = {}
    decisions = []
    at = now()
    for number, term_entry in enumerate(_children(root, "termEntry"), start=1):
        where = f"termEntry {number} ({term_entry.get('id', 'no id')})"
        subject = [d for d in _children(term_entry, "descrip") if d.get("type") == "subjectField"]
        group = (subject[0].text or "").strip() if subject else ""
        sets = {lang_set.get(XML_LANG, ""): lang_set for lang_set in _children(term_entry, "langSet")}
        unknown = sorted(set(sets) - {"en", base.language})
        if unknown:
            raise _refused(path, f"{where}: a language the term base does not have ({', '.join(unknown)})", "langSet")
        source = _term(sets.get("en"))
        target_set = sets.get(base.language)
        rendering = _term(target_set)
        if not source or not rendering:
            raise _refused(path, f"{where}: an empty term ({'English' if not source else base.language})", "term")
        entry = by_key.get((group, source))
        if entry is None:
            raise _refused(path, f"{where}: no term {source!r} in class {group!r} of the term base", "term")
        if (group, source) in seen and seen[(group, source)] != rendering:
            raise _refused(
                path, f"{where}: {source!r} ({group}) has two renderings: {seen[(group, source)]!r} and {rendering!r}"
            )
        seen[(group, source)] = rendering
        status = next(
            (n.text or "" for n in _children(target_set, "termNote") if n.get("type") == "administrativeStatus"), ""
        )
        approver = next(
            (n.text or "" for n in _children(target_set, "transacNote") if n.get("type") == "responsibility"), ""
        ).strip()
        action: TermAction
        if rendering != entry.rendering:
            action = "correct"
        elif status.strip() == PREFERRED and entry.state == "proposed":
            action = "approve"
        else:
            continue  # as the term base has it: an approval already recorded keeps its author
        decisions.append(
            TermDecision(
                at=at,
                author=approver or author,
                action=action,
                group=group,
                source=source,
                rendering=rendering,
                previous=entry.rendering,
                note=f"TBX import: {path.name}",
            )
        )
    return decisions


def _term(lang_set: etree._Element | None) -> str:
    if lang_set is None:
        return ""
    terms = [(t.text or "").strip() for t in _children(lang_set, "term")]
    return terms[0] if terms else ""
