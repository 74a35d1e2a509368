"""Hand edits of a variant's files: brought into review as human corrections, never rebuilt over.

A file of adapted/<benchmark>/<lang>/ whose hash is not the one its manifest records was edited
after the pipeline wrote it. Before a rebuild (`babelflow adapt`, a flow round) each edited field is
read back at its IR locator and compared with the text the pipeline wrote there (the last round's
targets). A changed translated field becomes a correction of its unit (via "hand_edit", author, time,
the previous text and the checks that fail on it), stored like any correction: the rebuild then
writes it through the same checks, the validators judge it and the reviewer sees it in
`babelflow units --origin corrected`. What cannot be read back as a field's text (a kept value, a
changed structure, code) stops the run before anything is written, naming the file and field.
"""

from __future__ import annotations

import getpass
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from babelflow.adaptation_run import AdaptationRun
from babelflow.errors import BabelflowError
from babelflow.ir import IRDocument, Record, TranslationType
from babelflow.variant import output_drift
from flows.review.importing import Written, put_back, write_plan_locked
from flows.review.unit_records import Correction, CorrectionLog, now, plan_entry
from flows.review.workbench import Workbench
from flows.written_targets import read_written_targets
from source_benchmarks import get_benchmark
from translators.interchange import ImportPlan
from validators.context import ValidationContext


class HandEdit(Record):
    artifact: str
    element_id: str
    unit_key: str
    before: str
    after: str


def edited_files(variant: Path) -> list[str]:
    """Outputs the manifest lists whose file exists with another hash (a missing file is rewritten)."""
    try:
        return output_drift(variant).edited
    except BabelflowError:  # no variant yet, or none of ours: nothing edited
        return []


def _written_targets(run: AdaptationRun, bench: Workbench) -> dict[str, str]:
    """What the last rebuild wrote per field (else what the next round writes: the same unless an
    input changed since)."""
    written = read_written_targets(run)
    return written if written is not None else bench.targets


def find_hand_edits(run: AdaptationRun, bench: Workbench, ir: IRDocument, files: list[str]) -> list[HandEdit]:
    """The changed translated fields of the edited files; refuses (nothing written) what is not one."""
    edits, problems = read_hand_edits(run, bench, ir, files)
    if problems:
        raise BabelflowError(
            f"{run.paths.variant} was edited by hand in ways the pipeline cannot take as corrections; nothing was"
            " written:\n  " + "\n  ".join(problems[:20]),
            file=run.paths.variant / (files[0] if files else ""),
            fix=f"correct texts with `babelflow correct {run.benchmark} --lang {run.language} --id UNIT --text ...`"
            " (or edit only translated texts in the variant), put the other changes back, then run again;"
            " a kept value is changed by retyping its field (`babelflow review`, route analysis)",
        )
    return edits


def read_hand_edits(
    run: AdaptationRun, bench: Workbench, ir: IRDocument, files: list[str]
) -> tuple[list[HandEdit], list[str]]:
    """(changed translated fields, what cannot be taken as a correction) in the given variant files."""
    variant = run.paths.variant
    ctx = ValidationContext(
        get_benchmark(run.benchmark, source_dir=run.source_dir), variant, ir, run.language, canonical_map=bench.cmap
    )
    written = _written_targets(run, bench)
    edits: list[HandEdit] = []
    problems: list[str] = []
    for artifact in files:
        found = 0
        elements = ctx.elements_of(artifact)
        if elements:
            ctx.target_text(elements[0])  # reads the file once; a link out of the variant is refused unread
        if artifact in ctx.parse_errors:
            problems.append(f"{artifact}: {ctx.parse_errors[artifact]}")
            continue
        for element in elements:
            before = written.get(element.id) or element.source_text
            after = ctx.target_text(element)
            if after is None or after == before:
                continue
            found += 1
            if element.translation_type is TranslationType.PRESERVE:
                why = element.preserve_reason.value if element.preserve_reason else "kept"
                problems.append(f"{artifact} {element.id}: a kept field (Preserve: {why}) was changed to {after!r}")
                continue
            unit = bench.unit_of_element(element.id)
            edits.append(
                HandEdit(artifact=artifact, element_id=element.id, unit_key=unit.key, before=before, after=after)
            )
        if not found:
            problems.append(
                f"{artifact}: differs from what the pipeline wrote, but no translated text in it changed"
                " (formatting, structure or code)"
            )
    texts: dict[str, set[str]] = defaultdict(set)
    for edit in edits:
        texts[edit.unit_key].add(edit.after)
    problems += [
        f"unit {key}: its fields were edited to {len(after)} different texts ({' / '.join(map(repr, sorted(after)))})"
        for key, after in texts.items()
        if len(after) > 1
    ]
    return edits, problems


@dataclass
class AdoptedHandEdits:
    """What adopting the hand edits wrote, so that a run refused afterwards can take it back."""

    lines: list[str] = field(default_factory=list)  # one per adopted unit, empty when nothing was edited
    written: list[Written] = field(default_factory=list)
    log: Path | None = None
    log_size: int | None = None  # the correction log's size before (None: there was none)

    def undo(self) -> None:
        """Put the reviewed texts, the map and the correction log back (the caller holds the run lock)."""
        put_back(self.written)
        if self.log is None or not self.log.exists():
            return
        if self.log_size is None:
            self.log.unlink()
        elif self.log.stat().st_size > self.log_size:
            with self.log.open("r+b") as handle:  # append-only: only our own lines, from this run, go
                handle.truncate(self.log_size)


def adopt_hand_edits(
    run: AdaptationRun,
    ir: IRDocument | None = None,
    *,
    author: str | None = None,
    superseded: frozenset[str] = frozenset(),
) -> AdoptedHandEdits:
    """Store the variant's hand edits as corrections (the caller holds the run lock). `superseded`:
    units a correction or import being applied right now replaces (the later human text wins)."""
    files = edited_files(run.paths.variant)
    if not files:
        return AdoptedHandEdits()
    bench = Workbench.load(run)
    edits = find_hand_edits(run, bench, ir or bench.ir, files)  # the workbench has read the saved IR already
    author = author or getpass.getuser()
    entries, corrections, lines = [], [], []
    seen: set[str] = set()
    for edit in edits:
        if edit.unit_key in seen:
            continue
        seen.add(edit.unit_key)
        if edit.unit_key in superseded:
            lines.append(f"hand edit in {edit.artifact}: unit {edit.unit_key} replaced by the text applied now")
            continue
        record = bench.find(edit.unit_key)
        if edit.after == record.target:  # already the unit's text (a reviewed text not yet rebuilt)
            continue
        failing = [c.kind for c in bench.checks(record, edit.after) if c.refusing]
        entries.append(plan_entry(record, edit.after, f"{edit.artifact} (hand edit)"))
        corrections.append(
            Correction(
                unit_key=record.key,
                element_ids=list(record.element_ids),
                text=edit.after,
                previous=edit.before,
                author=author,
                at=now(),
                via="hand_edit",
                detail=edit.artifact,
                forced=failing,
            )
        )
        flagged = f" (checks failing: {', '.join(failing)}; the validators report it)" if failing else ""
        lines.append(f"hand edit in {edit.artifact}: unit {record.key} {edit.before!r} -> {edit.after!r}{flagged}")
    adopted = AdoptedHandEdits(lines=lines)
    if entries:
        plan = ImportPlan(entries=entries, empty_units=0, problems=[])
        log = CorrectionLog(run.paths.review_dir)
        adopted.log, adopted.log_size = log.path, log.path.stat().st_size if log.path.exists() else None
        adopted.written = write_plan_locked(
            run.benchmark, run.language, run.paths.reviewed, run.paths.canonical_map, plan
        )
        log.append_many(corrections)
        lines.insert(
            0,
            f"{len(entries)} hand-edited unit(s) in {len(files)} file(s) of {run.paths.variant} kept as corrections"
            f" by {author} (see `babelflow units {run.benchmark} --lang {run.language} --origin corrected`)",
        )
    return adopted
