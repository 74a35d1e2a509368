"""The couplings with tool code the IR does not hold (validators/probes/tool_code.py), on a small
benchmark written here: a tool name prose cites must survive translation, and a value the tool
code looks data up by is no rendering policy when the data renames it and the code does not."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from babelflow.ir import (
    ArtifactFingerprint,
    ArtifactFormat,
    ArtifactRole,
    DataValueLocator,
    IRDocument,
    IRElement,
    PreserveReason,
    TranslationType,
)
from source_benchmarks.protocol import ArtifactSpec
from validators.checks import run_checks
from validators.context import ValidationContext
from validators.findings import Layer, Severity
from validators.probes.tool_code import cited, lookup_literals, tool_names

TOOLS_PY = '''
FEES = {"Gold Account": 25, "Silver Account": 10}


class BankTools:
    def unlock_card_4821(self, card_id: str) -> str:
        """Unlock a card."""
        if self.db.cards[card_id]["status"] == "FROZEN":
            return "ok"
        return "no"

    def close_account(self, account_id: str) -> str:
        level = self.db.accounts[account_id]["level"]
        return str(FEES.get(level, 0))

    def think(self, thought: str) -> str:
        return thought

    def _helper(self) -> None:
        allowed = ["checking", "savings"]
'''

DOC = "To unfreeze it, unlock `unlock_card_4821`; unlock_card_4821 again if it fails. See close_account_x."
DB = {"accounts": {f"a{i}": {"level": "Gold Account" if i < 3 else "Blue Account"} for i in range(1, 5)}}
DB_PATH, DOC_PATH, TOOLS_PATH = "data/bank/db.json", "data/bank/documents/doc_1.json", "bank/tools.py"


class SmallBank:
    """What the consistency layer asks of a source benchmark: its artifacts and where they are."""

    id = "fixture-smallbank"

    def __init__(self, root: Path):
        self.root = root

    def artifacts(self) -> list[ArtifactSpec]:
        return [
            ArtifactSpec(path=DB_PATH, format=ArtifactFormat.JSON, role=ArtifactRole.DATABASE),
            ArtifactSpec(path=DOC_PATH, format=ArtifactFormat.JSON, role=ArtifactRole.POLICY),
            ArtifactSpec(path=TOOLS_PATH, format=ArtifactFormat.PYTHON, role=ArtifactRole.TOOL_CODE),
        ]

    def artifact_path(self, spec: ArtifactSpec) -> Path:
        return self.root / spec.path


def _element(artifact: str, path: tuple, text: str, kind: TranslationType, reason=None) -> IRElement:
    return IRElement(
        id=f"{artifact}:{'/'.join(map(str, path))}",
        artifact=artifact,
        locator=DataValueLocator(path=path),
        role="db.json.accounts.*.level" if artifact == DB_PATH else "doc_1.json.content",
        source_text=text,
        translation_type=kind,
        preserve_reason=reason,
        typing_rule="test",
    )


def _write(root: Path, db: dict, doc: str) -> None:
    for path, value in ((DB_PATH, db), (DOC_PATH, {"id": "doc_1", "content": doc})):
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(json.dumps(value), encoding="utf-8")


@pytest.fixture()
def bank(tmp_path: Path):
    """bank(db, doc) -> the consistency findings of a variant with that DB and document."""
    source_root = tmp_path / "source"
    (source_root / "bank").mkdir(parents=True)
    (source_root / TOOLS_PATH).write_text(TOOLS_PY, encoding="utf-8")
    _write(source_root, DB, DOC)
    keep = (TranslationType.PRESERVE, PreserveReason.LINKED_ENTITY)
    elements = [_element(DB_PATH, ("accounts", a, "level"), DB["accounts"][a]["level"], *keep) for a in DB["accounts"]]
    elements.append(_element(DOC_PATH, ("content",), DOC, TranslationType.TRANSLATE_FREE))
    ir = IRDocument(
        benchmark=SmallBank.id,
        source_version="test",
        profile_sha256="",
        artifacts=[
            ArtifactFingerprint(path=s.path, format=s.format, role=s.role, sha256="", origin="fixture")
            for s in SmallBank(source_root).artifacts()
        ],
        elements=elements,
        link_groups=[],
    )

    def findings(db: dict, doc: str, name: str = "variant"):
        variant = tmp_path / name
        _write(variant, db, doc)
        ctx = ValidationContext(SmallBank(source_root), variant, ir, "en-XA")
        return ctx, run_checks(Layer.CONSISTENCY, ctx, [])

    return findings


def test_names_and_lookups_are_read_from_the_tool_code(bank) -> None:
    ctx, _ = bank(DB, DOC)
    # public identifiers with an underscore: not the one-word tool, not the private helper
    assert tool_names(ctx) == {"unlock_card_4821", "close_account"}
    assert {"Gold Account", "Silver Account", "FROZEN", "checking", "savings"} <= lookup_literals(ctx)
    assert "Unlock a card." not in lookup_literals(ctx) and "ok" not in lookup_literals(ctx)
    # whole identifiers only: close_account_x is another name
    assert cited(tool_names(ctx), DOC) == {"unlock_card_4821": 2}


def test_a_clean_variant_has_no_finding_above_note(bank) -> None:
    _, findings = bank(DB, DOC.replace("To unfreeze it", "[Ţö ûñƒŕééžé îţ"))
    assert [f for f in findings if f.severity is not Severity.NOTE] == []


def test_a_tool_name_translated_in_prose_is_a_lost_reference_on_that_field(bank) -> None:
    translated = DOC.replace("unlock_card_4821 again", "ûñļöçķ_çåŕð_4821 again")  # one of its two citations
    _, findings = bank(DB, translated)
    (finding,) = [f for f in findings if f.severity is not Severity.NOTE]
    assert (finding.layer, finding.kind, finding.severity) == (Layer.CONSISTENCY, "reference_lost", Severity.CRITICAL)
    assert finding.artifact == DOC_PATH and finding.element_id == f"{DOC_PATH}:content"
    assert "unlock_card_4821" in finding.message and finding.evidence[0].target == translated


def test_a_value_the_code_looks_up_renamed_in_all_data_is_a_defect_per_field(bank) -> None:
    renamed = json.loads(json.dumps(DB).replace("Gold Account", "Ĝöļð Åççöûñţ"))
    _, findings = bank(renamed, DOC)
    critical = sorted((f.element_id, f.kind) for f in findings if f.severity is Severity.CRITICAL)
    assert critical == [
        (f"{DB_PATH}:accounts/a1/level", "preserved_value_changed"),
        (f"{DB_PATH}:accounts/a2/level", "preserved_value_changed"),
    ]
    assert all(
        "tool code looks data up by it" in f.message and f.evidence[0].detail["tool_code_literal"] == "Gold Account"
        for f in findings
        if f.severity is Severity.CRITICAL
    )


def test_a_value_the_code_does_not_hold_renamed_one_way_stays_a_policy_note(bank) -> None:
    renamed = json.loads(json.dumps(DB).replace("Blue Account", "Ɓļûé Åççöûñţ"))
    _, findings = bank(renamed, DOC)
    assert [(f.kind, f.severity) for f in findings] == [("canonical_rendering_inferred", Severity.NOTE)]
