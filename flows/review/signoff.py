"""Sign-off: the reviewer's approval pinned to hashes of every artifact, the IR, the map and the log,
with the sample of units the reviewer read, drawn by a stated rule.

Sample size: ISO 2859-1 (acceptance sampling by attributes), general inspection level II, single
sampling, normal inspection: the lot (the variant's translated units) gives a sample-size code letter,
the letter a sample size n. The sample is stratified by the field's role (task, policy, tool, DB, ...):
each stratum gets n in proportion to its size (at least one unit), and within a stratum the riskiest
units come first (a failing check, numbers, protected tokens, a machine draft), then a seeded draw, so
the same variant gives the same sample.

A sign-off whose hashes no longer match its variant (a rebuild changed a file) is void: it is moved
out of the variant into the review folder with the reason, and the CLI says so.
"""

from __future__ import annotations

import hashlib
import math
import random
from collections import Counter
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import orjson
from pydantic import Field

from babelflow.atomic_io import sha256_file, write_bytes_atomic
from babelflow.ir import Record
from babelflow.variant import ArtifactHash, load_manifest, save_record
from flows.review.acceptance import TIER_AQL, AcceptancePlan, SampleOutcome, UnitVerdict, acceptance_plan
from flows.review.store import ReviewStore

if TYPE_CHECKING:  # the workbench imports this module's records
    from flows.review.workbench import Workbench

SIGNOFF_NAME = "babelflow_signoff.json"

SAMPLE_RULE = "ISO 2859-1, general inspection level II, single sampling, normal inspection"

# what sign-off means per translator tier (README "Review")
TIERS = {
    "pseudo": "pseudo-locale: test only; a sign-off records a test variant, never a release",
    "mt": "MT draft: needs post-editing; sign-off requires reading the sample side by side, correcting what is wrong",
    "model": "model translation: needs review; sign-off requires reading the sample side by side",
    "human": "human translation: sign-off requires a spot check of the sample",
}


def translator_tier(translator_id: str, human_share: float = 0.0) -> str:
    """pseudo, mt (rule-based MT: Apertium), model (a provider's model), human (every draft replaced)."""
    if translator_id.startswith("pseudo"):
        return "pseudo"
    if human_share >= 1.0 or translator_id in ("none", ""):
        return "human"
    if translator_id.startswith("apertium"):
        return "mt"
    return "model"


HUMAN_ORIGINS = frozenset({"corrected", "imported", "reviewed", "adopted_human"})


def units_tier(translator_id: str, origins: Iterable[str]) -> str:
    """The tier of a variant's units as they stand (their origin classes): human once people have
    replaced every draft, else the drafting translator's. Texts adopted from elsewhere (not declared
    human-reviewed) are drafts of an unknown machine: a model's tier when they outnumber the translator's."""
    counts = Counter(origins)
    human = sum(counts[o] for o in HUMAN_ORIGINS)
    drafts = counts["draft"] + counts["adopted"]
    if counts["adopted"] > counts["draft"] and human < drafts:
        return "model"
    return translator_tier(translator_id, human / max(human + drafts, 1))


def sample_size(lot: int, aql: float = TIER_AQL["mt"]) -> tuple[str, int]:
    """(code letter, n) of the plan for a lot of `lot` units at `aql` (flows/review/acceptance.py)."""
    if lot < 2:
        return "A", max(lot, 0)
    plan = acceptance_plan(lot, aql)
    return plan.code_letter, plan.sample_size


class SampledUnit(Record):
    unit_key: str
    stratum: str
    role: str
    task: str | None = None
    source: str
    target: str
    origin: str
    risk: float
    checks: list[str] = Field(default_factory=list)


class SignOffSample(Record):
    rule: str = SAMPLE_RULE
    lot_size: int
    code_letter: str
    sample_size: int
    plan: AcceptancePlan | None = Field(default=None, description="Ac/Re at the tier's AQL (None: a lot under 2)")
    strata: dict[str, int] = Field(description="stratum -> units sampled from it")
    units: list[SampledUnit]


def allocate(sizes: dict[str, int], n: int) -> dict[str, int]:
    """Proportional allocation (largest remainder), at least one per non-empty stratum, capped by its size."""
    total = sum(sizes.values())
    if not total or not n:
        return dict.fromkeys(sizes, 0)
    share = {s: n * size / total for s, size in sizes.items()}
    out = {s: min(size, max(1, math.floor(share[s]))) for s, size in sizes.items() if size}
    for stratum in sorted(share, key=lambda s: share[s] - math.floor(share[s]), reverse=True):
        if sum(out.values()) >= n:
            break
        if out.get(stratum, 0) < sizes[stratum]:
            out[stratum] = out.get(stratum, 0) + 1
    return out


def draw(candidates: dict[str, list[tuple[float, str]]], n: int, seed: str) -> dict[str, list[str]]:
    """Per stratum: (risk, key) items -> keys sampled. Half of each stratum's share goes to its riskiest
    units, the rest is a seeded random draw of the others (risk alone would never show a typical unit)."""
    quota = allocate({s: len(items) for s, items in candidates.items()}, n)
    rng = random.Random(hashlib.sha256(seed.encode()).hexdigest())
    out = {}
    for stratum, items in sorted(candidates.items()):
        k = quota.get(stratum, 0)
        ranked = sorted(items, key=lambda item: (-item[0], item[1]))
        top = [key for _, key in ranked[: math.ceil(k / 2)]]
        rest = sorted(key for _, key in ranked[len(top) :])
        out[stratum] = top + rng.sample(rest, k - len(top))
    return out


class SignOff(Record):
    schema_version: str = "babelflow.signoff/3"
    benchmark: str
    language: str
    reviewer: str
    signed_at: str
    note: str = ""
    translator_id: str = ""
    tier: str = ""
    tier_requirement: str = ""
    spot_checked_tasks: list[str]
    sample: SignOffSample | None = None
    verdicts: list[UnitVerdict] = Field(default_factory=list, description="the reviewer's verdict on each sampled unit")
    outcome: SampleOutcome | None = None
    variant_files: list[ArtifactHash]
    ir_sha256: str
    canonical_map_version: str
    decision_log_sha256: str | None
    decisions: int
    flow_run_id: str | None = None


class SignoffState(Record):
    present: bool
    valid: bool
    reviewer: str = ""
    signed_at: str = ""
    changed: list[str] = Field(default_factory=list, description="variant files whose hash no longer matches")


def _variant_files(variant: Path) -> list[Path]:
    return sorted(p for p in variant.rglob("*") if p.is_file() and p.name != SIGNOFF_NAME)


def signoff_state(variant: Path) -> SignoffState:
    path = Path(variant) / SIGNOFF_NAME
    if not path.exists():
        return SignoffState(present=False, valid=False)
    record = orjson.loads(path.read_bytes())
    pinned = {f["path"]: f["sha256"] for f in record.get("variant_files", [])}
    now_files = {str(p.relative_to(variant)): p for p in _variant_files(Path(variant))}
    changed = sorted(
        name
        for name in set(pinned) | set(now_files)
        if name not in now_files or pinned.get(name) != sha256_file(now_files[name])
    )
    return SignoffState(
        present=True,
        valid=not changed,
        reviewer=record.get("reviewer", ""),
        signed_at=record.get("signed_at", ""),
        changed=changed,
    )


def void_stale_signoff(variant: Path, review_dir: Path) -> str | None:
    """Move a sign-off whose hashes no longer match out of the variant (kept in the review folder,
    with why); returns the line to show, or None when there is none or it still holds."""
    state = signoff_state(variant)
    if not state.present or state.valid:
        return None
    path = Path(variant) / SIGNOFF_NAME
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    kept = Path(review_dir) / f"signoff-void-{stamp}.json"
    record = orjson.loads(path.read_bytes())
    record["voided"] = {"at": stamp, "changed_files": state.changed}
    write_bytes_atomic(kept, orjson.dumps(record, option=orjson.OPT_INDENT_2))
    path.unlink()
    shown = ", ".join(state.changed[:3]) + (f" and {len(state.changed) - 3} more" if len(state.changed) > 3 else "")
    return (
        f"sign-off by {state.reviewer} ({state.signed_at}) VOID: the rebuild changed {shown}; kept at {kept};"
        " sign again after review"
    )


class Signer(Record):
    """Who signs, why, and from which flow run (None: the terminal)."""

    reviewer: str
    note: str = ""
    flow_run_id: str | None = None


def signing_tier(bench: Workbench) -> tuple[str, str]:
    """(translator id, tier) of the units as they stand: what a reviewer signs for."""
    translator_id = bench.engine.translator.translator_id
    return translator_id, units_tier(translator_id, (r.origin_class for r in bench.records))


def sign_off(
    bench: Workbench,
    store: ReviewStore,
    sample: SignOffSample,
    signer: Signer,
    verdicts: list[UnitVerdict] | None = None,
    outcome: SampleOutcome | None = None,
) -> SignOff:
    """Record the sign-off of the run's variant: its files' hashes, the sample read and judged, the decision log."""
    variant = bench.run.paths.variant
    manifest = load_manifest(variant)
    files = _variant_files(variant)
    translator_id, tier = signing_tier(bench)
    record = SignOff(
        benchmark=bench.run.benchmark,
        language=bench.language,
        reviewer=signer.reviewer,
        signed_at=datetime.now(UTC).isoformat(timespec="seconds"),
        note=signer.note,
        translator_id=translator_id,
        tier=tier,
        tier_requirement=TIERS.get(tier, ""),
        spot_checked_tasks=sorted({u.task for u in sample.units if u.task}, key=lambda t: (len(t), t)),
        sample=sample,
        verdicts=verdicts or [],
        outcome=outcome,
        variant_files=[ArtifactHash(path=str(p.relative_to(variant)), sha256=sha256_file(p)) for p in files],
        ir_sha256=manifest.ir_sha256,
        canonical_map_version=manifest.canonical_map_version,
        decision_log_sha256=sha256_file(store.log) if store.log.exists() else None,
        decisions=len(store.decisions()),
        flow_run_id=signer.flow_run_id,
    )
    save_record(record, variant / SIGNOFF_NAME)
    return record
