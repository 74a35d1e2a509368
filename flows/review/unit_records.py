"""What the review workbench says about a unit: its record (source, target, context, provenance, XLIFF
state), its checks, and the append-only log of human texts (corrections, imports, confirmed findings'
replacements, hand edits) with author, time and the previous text."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from pydantic import Field

from babelflow.append_log import append_records, read_records
from babelflow.ir import Record
from translators.adoption import ADOPTED_ORIGIN, ADOPTED_TERM_ORIGIN, HUMAN_REVIEWED
from translators.interchange import PlannedEntry
from translators.placeholders import ProtectedText

XliffState = Literal["needs-translation", "needs-review-translation", "translated", "final"]
Via = Literal["correction", "import", "finding", "hand_edit"]
# fidelity findings that refuse an import: the text cannot be right whoever wrote it. The rest
# (length ratio, text left in English, commentary) are a reviewer's call: `validate` reports them.
REFUSING_FIDELITY = frozenset(
    {
        "placeholder_left",
        "number_changed",
        "token_duplicated",
        "tokens_swapped",
        "wrong_language",
        "answered_not_translated",
        "truncated",
    }
)
ORIGIN_CLASSES = (
    "draft",
    "reviewed",
    "corrected",
    "imported",
    "kept",
    "localized",
    "reference",
    "adopted",
    "adopted_human",
    "failed",
    "pending",
)


class Correction(Record):
    """One human text for a unit: a post-edit in the CLI, a confirmed finding's replacement, an import."""

    unit_key: str
    element_ids: list[str]
    text: str
    previous: str = Field(description="the unit's text before this correction")
    author: str
    at: str
    via: Via
    detail: str = Field(default="", description="the imported file's name, or the finding id")
    forced: list[str] = Field(default_factory=list, description="checks that failed and were accepted with --force")


class CorrectionLog:
    """Append-only (one fsynced write per batch); a torn last line of a killed write is skipped."""

    def __init__(self, review_dir: Path):
        self.path = Path(review_dir) / "corrections.jsonl"

    def entries(self) -> list[Correction]:
        return read_records(
            self.path,
            Correction,
            "Correction log is corrupt",
            "restore the line from a backup; corrections are append-only",
        )

    def latest(self) -> dict[str, Correction]:
        return {c.unit_key: c for c in self.entries()}

    def history(self, unit_key: str) -> list[Correction]:
        return [c for c in self.entries() if c.unit_key == unit_key]

    def append_many(self, corrections: list[Correction]) -> None:
        append_records(self.path, corrections)


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class UnitCheck(Record):
    kind: str
    severity: str
    message: str
    refusing: bool = Field(description="a human text with this check failing is refused unless forced")


class UnitRecord(Record):
    key: str
    kind: Literal["free", "canonical"]
    source: str
    target: str
    element_ids: list[str]
    canonical_group: str | None = None
    artifacts: list[str]
    roles: list[str]
    tasks: list[str]
    tools: list[str]
    origin: str = Field(description="who made the current text, as the engine says (translator id, map, reviewed)")
    origin_class: str = Field(description="one of ORIGIN_CLASSES")
    human: Correction | None = None
    corrections: int = 0
    stratum: str = Field(description="role class for sampling: task, policy, user_guidelines, tool, db, prompt, other")
    state: XliffState
    findings: list[str] = Field(default_factory=list, description="open review findings on its fields")


def plan_entry(record: UnitRecord, text: str, where: str) -> PlannedEntry:
    group = (record.canonical_group or "default") if record.kind == "canonical" else None
    return PlannedEntry(
        unit_key=record.key,
        where=where,
        element_ids=list(record.element_ids),
        canonical_group=group,
        source=record.source,
        target=text,
    )


def stratum_of(role: str) -> str:
    if role.startswith("tasks"):
        return "task"
    for prefix, name in (
        ("policy", "policy"),
        ("user_guidelines", "user_guidelines"),
        ("tool_code", "tool"),
        ("data_model_code", "tool"),
        ("db", "db"),
        ("prompt_code", "prompt"),
    ):
        if role.startswith(prefix):
            return name
    return "other"


def origin_class(origin: str, human: Correction | None) -> str:
    if origin in ("failed", "pending"):
        return origin
    if origin == "reviewed" or origin == "canonical map (reviewer)":
        if human is None:
            return "reviewed"
        return "imported" if human.via == "import" else "corrected"
    if origin == "canonical map (kept)":
        return "kept"
    if origin == "canonical map (localized)":
        return "localized"
    if origin == "canonical map (cldr)":
        return "reference"
    if origin.startswith(ADOPTED_ORIGIN) or origin == ADOPTED_TERM_ORIGIN:
        return "adopted_human" if origin.endswith(HUMAN_REVIEWED) else "adopted"
    return "draft"


def xliff_state(target: str, cls: str, signed: bool) -> XliffState:
    """needs-translation: empty; needs-review-translation: a machine draft (MT, model, faker) or a text
    adopted from elsewhere; translated: a human's text (adopted ones declared human-reviewed too) or a value
    kept on purpose; final: a human text under a valid sign-off."""
    if not target:
        return "needs-translation"
    if cls in ("corrected", "imported", "reviewed", "adopted_human"):
        return "final" if signed else "translated"
    if cls in ("kept", "reference"):
        return "translated"
    return "needs-review-translation"


def reprotect(text: str, protected: ProtectedText) -> str | None:
    """The protected form (⟦N⟧ codes) of a restored text: each code's rendering replaced back, longest
    first, through private-use sentinels so a code never matches inside another's marker. None when
    a rendering is missing (the text cannot be shown with its codes)."""
    for placeholder in sorted(protected.placeholders, key=lambda p: len(p.restore_as), reverse=True):
        at = text.find(placeholder.restore_as) if placeholder.restore_as else -1
        if at < 0:
            return None
        text = text[:at] + chr(0xE000 + placeholder.index) + text[at + len(placeholder.restore_as) :]
    return re.sub("[\ue000-\uf8ff]", lambda m: f"⟦{ord(m.group()) - 0xE000}⟧", text)
