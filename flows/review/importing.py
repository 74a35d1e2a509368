"""`babelflow import` as one transaction: every check first, then one write under the run lock.

The checks: the file's header (benchmark, target language), each entry (translators/interchange.py:
ids, duplicates, states, sources, inline codes), then what the import would write, with the checks
the rest of the pipeline applies later — the language pack's release checks (adapt's `enforce`),
the fidelity layer's hard failures, and the canonical map's rules. Only when all pass are the
reviewed translations and canonical terms written, under the (benchmark, language) run lock; a
rebuild that then fails puts both files back. A refused import changes nothing anywhere.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import orjson
from pydantic import Field

from babelflow.atomic_io import write_bytes_atomic
from babelflow.canonical_map import (
    CanonicalEntry,
    CanonicalMap,
    drafts_path,
    load_canonical_map,
    map_problems,
    save_canonical_map,
)
from babelflow.errors import BabelflowError
from babelflow.ir import IRDocument, IRElement, Record
from babelflow.language_pack import LanguagePack
from babelflow.run_lock import run_lock
from babelflow.settings import BabelflowSettings
from flows.review.unit_records import REFUSING_FIDELITY, Correction, CorrectionLog
from translators.interchange import ExchangeFile, ImportPlan, ImportProblem, PlannedEntry, header_problems
from translators.pack_checks import check_pack, check_translations
from validators.findings import Finding
from validators.probes.pair_checks import FieldPair, check_pair

SHOWN = 20

FIXES = {
    "final word": 'finish the entries in your tool (clear `#, fuzzy`, set state="translated") or empty their'
    " targets to leave them to the translator; delete obsolete `#~` entries (msgattrib --no-obsolete)",
    "duplicate": "keep one entry per unit id",
    "blank": "translate the blank targets, or empty them to leave those units to the translator",
    "unknown unit": "export again with `babelflow export` for this benchmark and copy your targets over",
    "source text differs": "export again with `babelflow export` and copy your targets over; edit only targets",
    "placeholder": "keep every inline code exactly once, as exported",
    "inline elements": "keep the exported <ph> codes and add no other markup to the targets",
    "swapped": "put each inline code back where the source has it",
    "reordered": "keep the inline codes in the source order",
    "now comes after": "keep each opening tag before its closing tag",
    "the file": "import the file exported for this benchmark and --lang (or pass the --lang the file was made for)",
    "release check": "fix the targets (or the language pack's glossary/forbidden list)",
    "wrong_language": "import the file into the language it is written in (--lang), or translate it into this one",
    "canonical": "give each canonical term its own non-empty target",
    "fidelity": "fix the targets: numbers, protected tokens and the target language must match the source",
}


def refuse(file: Path, problems: list[str], *, field: str) -> BabelflowError:
    shown = "\n  ".join(problems[:SHOWN])
    more = f"\n  … and {len(problems) - SHOWN} more" if len(problems) > SHOWN else ""
    fixes = [fix for marker, fix in FIXES.items() if any(marker in p for p in problems)]
    return BabelflowError(
        f"Import refused: {len(problems)} problem(s); nothing was written:\n  {shown}{more}",
        file=file,
        field=field,
        fix="; ".join(fixes) or "fix the listed entries and import again",
    )


def check_header(exchange: ExchangeFile, benchmark: str, language: str) -> None:
    problems = header_problems(exchange, benchmark, language)
    if problems:
        raise refuse(exchange.path, problems, field="target-language" if "language" in problems[0] else "benchmark")


def check_entries(exchange: ExchangeFile, plan: ImportPlan) -> None:
    if plan.problems:
        raise refuse(exchange.path, [_describe(p) for p in plan.problems], field=f"unit {plan.problems[0].unit_key}")


def _describe(problem: ImportProblem) -> str:
    return f"unit {problem.unit_key} ({problem.where}): " + "; ".join(problem.problems)


def planned_map(cmap: CanonicalMap, plan: ImportPlan) -> CanonicalMap:
    """The map with the file's canonical terms as confirmed reviewer entries (a translator's word)."""
    merged = cmap.model_copy(deep=True)
    for (group, source), target in plan.canonical.items():
        if merged.target_of(group, source) != target:
            merged.upsert(
                CanonicalEntry(
                    group=group,
                    source=source,
                    target=target,
                    origin="reviewer",
                    origin_detail="babelflow import",
                    review_state="confirmed",
                )
            )
    return merged


def check_written(
    exchange: ExchangeFile, plan: ImportPlan, ir: IRDocument, pack: LanguagePack, cmap: CanonicalMap, language: str
) -> None:
    """What the import would write, through the pack, fidelity and canonical-map checks; the
    problems are listed per unit, as the translator finds them in the file."""
    problems = [f"pack: {p}" for p in check_pack(pack)]
    elements = {e.id: e for e in ir.elements}
    checked: dict[tuple, list[str]] = {}  # fields share texts (telecom: 170k fields, ~3,400 texts): each pair once
    for entry in plan.entries:
        fields = [elements[i] for i in entry.element_ids]
        found: list[str] = []
        for element in fields:
            key = (element.artifact, element.role, element.source_text, entry.target, tuple(element.inline_tokens))
            if key not in checked:
                checked[key] = _fidelity_refusals(element, entry, language, pack, ir.source_language)
            found += checked[key]
        found += [
            f"release check: {p}"
            for p in check_translations(
                pack, ir.model_copy(update={"elements": fields}), dict.fromkeys(entry.element_ids, entry.target)
            )
        ]
        if found:
            unique = list(dict.fromkeys(found))
            problems.append(
                f"unit {entry.unit_key} ({entry.where}): "
                + "; ".join(unique[:4])
                + (f"; … {len(unique) - 4} more" if len(unique) > 4 else "")
            )
    problems += [f"canonical map: {p}" for p in map_problems(planned_map(cmap, plan))]
    if problems:
        raise refuse(exchange.path, problems, field="targets")


def _fidelity_refusals(
    element: IRElement, entry: PlannedEntry, language: str, pack: LanguagePack, source_language: str
) -> list[str]:
    """The fidelity layer's hard failures for one field. A number inside an inline code is kept
    byte for byte (the code checks saw to it): a number check that reads '$1,628' the Spanish way
    (1.628) is asked again on the texts without their codes, so only the translated words count."""

    def run(source: str, target: str) -> list[Finding]:
        return check_pair("import", FieldPair.of(element, target, source), language, pack, None, source_language)

    findings = [f for f in run(element.source_text, entry.target) if f.kind in REFUSING_FIDELITY]
    if entry.kept and any(f.kind == "number_changed" for f in findings):
        source, target = element.source_text, entry.target
        for original, restored in entry.kept:
            source, target = source.replace(original, " ", 1), target.replace(restored, " ", 1)
        if not any(f.kind == "number_changed" for f in run(source, target)):
            findings = [f for f in findings if f.kind != "number_changed"]
    return [f"fidelity {f.kind}: {element.role}: {f.message}" for f in findings]


class Written(Record):
    """What one import wrote, so that a failed rebuild can put it back."""

    path: Path
    before: bytes | None = Field(description="the file's bytes before the import; None: it did not exist")
    after: bytes


def _read_reviewed(path: Path) -> dict[str, str]:
    if not path.exists():
        return {}
    try:
        data = orjson.loads(path.read_bytes())
    except orjson.JSONDecodeError as exc:
        raise BabelflowError(
            "Reviewed translations are corrupt",
            file=path,
            fix="restore the file from a backup, or delete it and import again",
        ) from exc
    if not isinstance(data, dict) or not all(isinstance(v, str) for v in data.values()):
        raise BabelflowError(
            "Reviewed translations are not a map of element id to text",
            file=path,
            fix="restore the file from a backup, or delete it and import again",
        )
    return data


def write_import(
    settings: BabelflowSettings,
    benchmark: str,
    language: str,
    reviewed_path: Path,
    map_path: Path,
    plan: ImportPlan,
    holder: str,
) -> list[Written]:
    """Merge the plan into the stored files under the run lock (read again there: a review that
    ran meanwhile is kept). Files whose content does not change are not rewritten. When the second
    write fails (a full disk, an interrupt) the first is put back: both files or neither."""
    with held_run_lock(settings, benchmark, language, holder=holder):
        return write_plan_locked(benchmark, language, reviewed_path, map_path, plan)


def write_plan_locked(
    benchmark: str, language: str, reviewed_path: Path, map_path: Path, plan: ImportPlan
) -> list[Written]:
    """`write_import`'s writes, for a caller that already holds the run lock (a flow adopting hand edits)."""
    written: list[Written] = []
    before = reviewed_path.read_bytes() if reviewed_path.exists() else None
    reviewed = _read_reviewed(reviewed_path)
    reviewed.update(plan.reviewed)
    after = orjson.dumps(reviewed)
    cmap = load_canonical_map(map_path, benchmark, language)
    merged = planned_map(cmap, plan)
    map_files = (map_path, drafts_path(map_path))  # the reviewed map and the run's drafts beside it
    map_before = {path: path.read_bytes() if path.exists() else None for path in map_files}
    try:
        if merged.version() != cmap.version():
            save_canonical_map(merged, map_path)  # refuses empty targets and collisions before writing
            for path in map_files:
                now = path.read_bytes() if path.exists() else None
                if now is not None and now != map_before[path]:
                    written.append(Written(path=path, before=map_before[path], after=now))
        if after != before and plan.reviewed:
            write_bytes_atomic(reviewed_path, after)
            written.append(Written(path=reviewed_path, before=before, after=after))
    except BaseException:
        put_back(written)
        raise
    return written


def record_corrections(
    settings: BabelflowSettings, benchmark: str, language: str, corrections: list[Correction]
) -> None:
    """Append the applied human texts (who, when, the previous text) to the correction log, under the
    run lock, once the rebuild that applies them has succeeded (a rolled-back import leaves no trace)."""
    with held_run_lock(settings, benchmark, language, holder="corrections log"):
        CorrectionLog(settings.layout.review_dir(benchmark, language)).append_many(corrections)


@contextmanager
def held_run_lock(settings: BabelflowSettings, benchmark: str, language: str, holder: str) -> Iterator[None]:
    """The (benchmark, language) run lock, before anything is written. Refused: the message names
    the run that holds it (a flow paused for review keeps it: its flow-run id and UI address) and
    what to do; nothing was written."""
    path = settings.layout.locks() / f"{benchmark}--{language}.lock"
    try:
        with run_lock(settings.layout.locks(), benchmark, language, holder=holder):
            yield
            return
    except BabelflowError as exc:
        if not exc.message.startswith("Another babelflow run"):
            raise
        record = path.read_text().strip() if path.exists() else ""
        raise held_by(settings, benchmark, language, record, path) from None


def held_by(settings: BabelflowSettings, benchmark: str, language: str, record: str, path: Path) -> BabelflowError:
    pid, _, who = record.partition(" ")
    looks_like_run = len(who) == 36 and who.count("-") == 4  # a Prefect flow-run id (a UUID)
    if looks_like_run:
        from flows.server.local_server import running_server  # noqa: PLC0415 - only when a run holds the lock

        server = running_server(settings)
        where = f"{server.ui_url}/runs/flow-run/{who}" if server else f"flow run {who} (start `babelflow server`)"
        return BabelflowError(
            f"Flow run {who} (pid {pid}) holds {benchmark} {language}: it is running or paused for review"
            f" at {where}; nothing was written",
            file=path,
            fix=(
                f"answer its review form at {where} (or `babelflow review {benchmark} --lang {language}`) and let the"
                f" round finish, or cancel it (Cancel in the UI, or `prefect flow-run cancel {who}`);"
                " then run this command again"
            ),
        )
    return BabelflowError(
        f"Another babelflow run holds {benchmark} {language} ({who or 'pid ' + pid}, pid {pid}); nothing was written",
        file=path,
        fix="wait for it to finish, then run this command again (runs of different languages may run at once)",
    )


def put_back(written: list[Written]) -> None:
    """Restore each file unless someone has changed it since (the caller holds the run lock)."""
    for item in written:
        if item.path.exists() and item.path.read_bytes() == item.after:
            if item.before is None:
                item.path.unlink()
            else:
                write_bytes_atomic(item.path, item.before)


def roll_back(settings: BabelflowSettings, benchmark: str, language: str, written: list[Written]) -> None:
    """Put back what `write_import` wrote, unless someone has changed the file since."""
    with run_lock(settings.layout.locks(), benchmark, language, holder="import rollback"):
        put_back(written)
