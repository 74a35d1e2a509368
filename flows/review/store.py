"""The review queue and the append-only decision log of one (benchmark, language).

Decisions are appended (never rewritten) with reviewer, time, reason and the fingerprint of the
field at decision time: a dismissed finding stays dismissed until its field changes. The open
queue is persisted so an unattended run can stop and a later `babelflow review` + rerun continue.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

import orjson
from pydantic import Field, ValidationError

from babelflow.append_log import append_records, read_records
from babelflow.atomic_io import write_bytes_atomic
from babelflow.errors import BabelflowError
from babelflow.ir import PreserveReason, Record
from validators.finding_kinds import Route
from validators.findings import FailureSet, Finding, TextFix

Decision = Literal["confirm", "dismiss"]


class ReviewDecision(Record):
    finding_id: str
    decision: Decision
    reviewer: str
    note: str = ""
    route: Route = "translation"
    preserve_reason: PreserveReason | None = Field(
        default=None, description="analysis route: the type the field should have had"
    )
    replacement: str | None = Field(default=None, description="translation route: the reviewer's own translation")
    fixes: list[TextFix] = Field(
        default_factory=list,
        description="translation route, no replacement: the finding's proposed repair, applied to its unit's text",
    )
    element_id: str | None = None
    field_fingerprint: str = ""
    at: str = ""


def _accepts_repair(decision: ReviewDecision) -> bool:
    """Confirming a finding that proposes a repair, with no text of one's own, accepts that repair."""
    return decision.decision == "confirm" and decision.route == "translation" and not decision.replacement


def fingerprint(finding: Finding) -> str:
    sides = "".join(f"{e.source}\0{e.target}" for e in finding.evidence[:1])
    return hashlib.blake2b(f"{finding.key}\0{sides}".encode(), digest_size=8).hexdigest()


class ReviewStore:
    def __init__(self, folder: Path):
        self.folder = Path(folder)
        self.log = self.folder / "decisions.jsonl"
        self.queue_path = self.folder / "queue.json"
        self.applied_path = self.folder / "applied.json"

    # ---- decisions ---------------------------------------------------------------------------
    def decisions(self) -> list[ReviewDecision]:
        return read_records(
            self.log,
            ReviewDecision,
            "Decision log is corrupt",
            "restore the line from backup; decisions are append-only",
        )

    def append(self, decision: ReviewDecision, queue: FailureSet | None = None) -> ReviewDecision:
        return self.append_many([decision], queue)[0]

    def append_many(self, decisions: list[ReviewDecision], queue: FailureSet | None = None) -> list[ReviewDecision]:
        """Append decisions to the log in one write and one fsync (a group decision covers hundreds).

        Every decision is checked against the open queue first: a bad one writes none of them."""
        queue = queue if queue is not None else self.queue()
        findings = {f.id: f for f in (queue.findings if queue else [])}
        now = datetime.now(UTC).isoformat(timespec="seconds")
        stamped = []
        for decision in decisions:
            finding = findings.get(decision.finding_id)
            if finding is None:
                raise BabelflowError(
                    f"No open finding {decision.finding_id!r}",
                    file=self.queue_path,
                    field="finding_id",
                    fix="run `babelflow review` to list the open findings",
                )
            stamped.append(
                decision.model_copy(
                    update={
                        "element_id": finding.element_id,
                        "field_fingerprint": fingerprint(finding),
                        "at": decision.at or now,
                        "fixes": finding.fixes if _accepts_repair(decision) else [],
                    }
                )
            )
        append_records(self.log, stamped)
        return stamped

    def dismissed(self) -> dict[str, str]:
        """finding id -> field fingerprint, for the latest decision of each finding if it is a dismissal."""
        latest: dict[str, ReviewDecision] = {}
        for decision in self.decisions():
            latest[decision.finding_id] = decision
        return {fid: d.field_fingerprint for fid, d in latest.items() if d.decision == "dismiss"}

    def unapplied_confirmations(self) -> list[ReviewDecision]:
        applied = set(orjson.loads(self.applied_path.read_bytes())) if self.applied_path.exists() else set()
        return [d for d in self.decisions() if d.decision == "confirm" and self._key(d) not in applied]

    def mark_applied(self, decisions: list[ReviewDecision]) -> None:
        applied = set(orjson.loads(self.applied_path.read_bytes())) if self.applied_path.exists() else set()
        applied |= {self._key(d) for d in decisions}
        write_bytes_atomic(self.applied_path, orjson.dumps(sorted(applied)))

    @staticmethod
    def _key(decision: ReviewDecision) -> str:
        return f"{decision.finding_id}@{decision.at}"

    # ---- queue -------------------------------------------------------------------------------
    def open_findings(self, failures: FailureSet) -> FailureSet:
        """Drop findings dismissed earlier whose field has not changed since."""
        dismissed = self.dismissed()
        keep = [f for f in failures.findings if dismissed.get(f.id) != fingerprint(f)]
        return failures.model_copy(update={"findings": keep})

    def save_queue(self, failures: FailureSet, flow_run_id: str | None = None) -> None:
        write_bytes_atomic(self.queue_path, orjson.dumps(failures.model_dump(mode="json"), option=orjson.OPT_INDENT_2))
        write_bytes_atomic(self.folder / "flow_run.json", orjson.dumps({"flow_run_id": flow_run_id}))

    def flow_run_id(self) -> str | None:
        path = self.folder / "flow_run.json"
        return orjson.loads(path.read_bytes()).get("flow_run_id") if path.exists() else None

    def queue(self) -> FailureSet | None:
        if not self.queue_path.exists():
            return None
        try:
            return FailureSet.model_validate(orjson.loads(self.queue_path.read_bytes()))
        except (orjson.JSONDecodeError, ValidationError) as exc:
            raise BabelflowError(
                "Review queue is corrupt",
                file=self.queue_path,
                fix="rerun the flow to rebuild the queue; decisions are kept",
            ) from exc


def review_folder(settings, benchmark: str, language: str, variant: Path | None) -> tuple[Path, bool]:
    """(where a variant's review queue and decisions live, whether it is the project's own variant).

    The project's variant (adapted/<benchmark>/<lang>/, or None) shares the flow's review folder: a
    hand-edited variant validated with `--review` is reviewed and corrected like a flow round's. A
    variant made elsewhere gets a folder of its own, named after its path, so its decisions never mix
    with the project's."""
    own = settings.layout.review_dir(benchmark, language)
    ours = settings.layout.variant(benchmark, language)
    if variant is None or Path(variant).resolve() == ours.resolve():
        return own, True
    where = str(Path(variant).resolve())
    name = Path(where).name + "-" + hashlib.blake2b(where.encode(), digest_size=4).hexdigest()
    return own / "variants" / name, False
