"""What decided the types of an IR: runtime evidence, the profile alone, shape; for reports and benches."""

from __future__ import annotations

from dataclasses import dataclass

from babelflow.ir import EvidenceScope, IRDocument, LinkKind, TranslationType

RUNTIME_SCOPES = {EvidenceScope.LOCATION, EvidenceScope.FIELD_PATH, EvidenceScope.DIFFERENTIAL}


@dataclass(frozen=True)
class EvidenceShares:
    elements: int
    preserve: int
    preserve_with_runtime_evidence: int
    preserve_without_runtime_role: int  # perturbed: changing it changed no outcome (kept by shape only)
    profile_only: int  # elements whose type differs from the type the evidence alone gives
    findings: int

    @property
    def runtime_share(self) -> float:
        return self.preserve_with_runtime_evidence / self.preserve if self.preserve else 1.0

    @property
    def profile_only_share(self) -> float:
        return self.profile_only / self.elements if self.elements else 0.0


def evidence_shares(document: IRDocument) -> EvidenceShares:
    table = {entry.id: entry for entry in document.evidence}
    preserve = with_runtime = no_role = 0
    for element in document.elements:
        if element.translation_type is not TranslationType.PRESERVE:
            continue
        preserve += 1
        entry = table.get(element.evidence) if element.evidence else None
        if entry is None or entry.scope not in RUNTIME_SCOPES:
            continue
        if (
            entry.scope is EvidenceScope.DIFFERENTIAL
            and LinkKind.PERTURBATION_CHANGES_OUTCOME not in entry.kinds
            and not entry.kinds
        ):
            no_role += 1
            continue
        with_runtime += 1
    profile_only = sum(1 for element in document.elements if element.evidence_type is not element.translation_type)
    return EvidenceShares(
        len(document.elements), preserve, with_runtime, no_role, profile_only, len(document.analysis_findings)
    )


def evidence_summary(document: IRDocument) -> list[str]:
    shares = evidence_shares(document)
    return [
        f"Preserve fields with runtime evidence (traced or differential): "
        f"{shares.preserve_with_runtime_evidence:,} of {shares.preserve:,} "
        f"({100 * shares.runtime_share:.1f}%); perturbed without effect, kept by shape: "
        f"{shares.preserve_without_runtime_role:,}",
        f"decided by the profile alone (evidence alone would type them otherwise): "
        f"{shares.profile_only:,} of {shares.elements:,} ({100 * shares.profile_only_share:.2f}%)",
        f"profile/evidence disagreements for review: {shares.findings}",
        *entity_class_lines(document),
    ]


def entity_class_lines(document: IRDocument) -> list[str]:
    """One line per entity class: renamed consistently or kept, how many values, and why."""
    lines = []
    for entity in document.entity_classes:
        kept = ", ".join(f"{count} {why}" for why, count in entity.kept_values.items()) or "none"
        flows = ", ".join(f"{kind} {count}" for kind, count in entity.flows.items()) or "no runtime flow seen"
        lines.append(
            f"entity class {entity.name} ({entity.kind.value}, profile {entity.profile_policy}): {entity.decision}; "
            f"{entity.canonical_values} value(s) renamed consistently, kept: {kept}; flows: {flows}"
        )
    return lines
