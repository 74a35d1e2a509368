"""Sign-off: the reviewer's approval pinned to hashes of every artifact, the IR, the map and the log."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from babelflow.atomic_io import sha256_file
from babelflow.ir import Record
from babelflow.settings import BabelflowSettings
from babelflow.variant import ArtifactHash, load_manifest, save_record
from flows.review_store import ReviewStore

SIGNOFF_NAME = "babelflow_signoff.json"


class SignOff(Record):
    schema_version: str = "babelflow.signoff/1"
    benchmark: str
    language: str
    reviewer: str
    signed_at: str
    note: str = ""
    spot_checked_tasks: list[str]
    variant_files: list[ArtifactHash]
    ir_sha256: str
    canonical_map_version: str
    decision_log_sha256: str | None
    decisions: int
    flow_run_id: str | None = None


def sign_off(
    settings: BabelflowSettings,
    benchmark: str,
    language: str,
    variant: Path,
    store: ReviewStore,
    *,
    reviewer: str,
    spot_checked: list[str],
    note: str = "",
    flow_run_id: str | None = None,
) -> SignOff:
    manifest = load_manifest(variant)
    files = sorted(p for p in variant.rglob("*") if p.is_file() and p.name != SIGNOFF_NAME)
    record = SignOff(
        benchmark=benchmark,
        language=language,
        reviewer=reviewer,
        signed_at=datetime.now(UTC).isoformat(timespec="seconds"),
        note=note,
        spot_checked_tasks=spot_checked,
        variant_files=[ArtifactHash(path=str(p.relative_to(variant)), sha256=sha256_file(p)) for p in files],
        ir_sha256=manifest.ir_sha256,
        canonical_map_version=manifest.canonical_map_version,
        decision_log_sha256=sha256_file(store.log) if store.log.exists() else None,
        decisions=len(store.decisions()),
        flow_run_id=flow_run_id,
    )
    save_record(record, variant / SIGNOFF_NAME)
    return record
