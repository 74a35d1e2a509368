"""Typed findings and the merged failure set.

A finding names the field (IR element id and location), the layer and kind of the defect, its
severity (closed set), and side-by-side evidence. Merging is a union keyed by (field, layer, kind):
the same defect seen by several validators becomes one finding carrying every validator's
evidence and reasoning; ids are stable so review decisions attach to them across runs.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from typing import Any

from pydantic import Field

from babelflow.ir import IRElement, Record
from validators.finding_kinds import FindingKind, Layer, Severity


class Evidence(Record):
    validator_id: str
    reasoning: str
    source: str | None = Field(default=None, description="source side, excerpted")
    target: str | None = Field(default=None, description="target side, excerpted")
    detail: dict[str, str] = Field(default_factory=dict)


class TextFix(Record):
    """A mechanical repair of the field a finding is on, which a reviewer accepts by confirming: every
    occurrence of `find` in the unit's text becomes `replace` (a term's inserted spaces taken out, a status
    word written twice written once). Small spans, so that several fixes of one field compose."""

    find: str = Field(min_length=1)
    replace: str


def apply_fixes(text: str, fixes: list[TextFix]) -> tuple[str, list[TextFix]]:
    """`text` with each fix applied in order; the fixes whose span is no longer there (already fixed, or
    changed by a fix before) are returned apart."""
    missed = []
    for fix in fixes:
        if fix.find in text:
            text = text.replace(fix.find, fix.replace)
        else:
            missed.append(fix)
    return text, missed


class Finding(Record):
    id: str
    layer: Layer
    kind: str
    severity: Severity
    artifact: str
    location: str = Field(description="field role/path, block, qualname or task id")
    element_id: str | None = None
    task_id: str | None = None
    message: str
    validators: list[str]
    evidence: list[Evidence]
    pattern: str | None = Field(
        default=None,
        description=(
            "what repeats across findings of one defect (e.g. the English word left), "
            "when the field role alone does not say it"
        ),
    )
    cause: str | None = Field(
        default=None,
        description=(
            "the one systematic cause several values or files share (a translator that renders the tools' "
            "values in prose): findings of one kind and cause are one group, one decision, one fix"
        ),
    )
    fixes: list[TextFix] = Field(
        default_factory=list, description="the proposed repair of this field: confirming the finding applies it"
    )

    @property
    def key(self) -> tuple[str, str, str]:
        # one field can hold several defects of a kind (two English words left): the pattern tells them apart
        kind = f"{self.kind}|{self.pattern}" if self.pattern else self.kind
        return (self.element_id or f"{self.artifact}|{self.location}|{self.task_id or ''}", self.layer.value, kind)


def finding_id(key: tuple[str, str, str]) -> str:
    return "F-" + hashlib.blake2b("\0".join(key).encode(), digest_size=6).hexdigest()


def excerpt(text: str | None, limit: int = 240) -> str | None:
    if text is None:
        return None
    return text if len(text) <= limit else text[: limit - 1] + "…"


class Hit(Record):
    """What one check saw at one place: the part of a finding its check's declaration does not say."""

    artifact: str
    location: str
    message: str
    element_id: str | None = None
    task_id: str | None = None
    source: str | None = None
    target: str | None = None
    reasoning: str | None = None
    detail: dict[str, str] = Field(default_factory=dict)
    pattern: str | None = None
    severity: Severity | None = Field(default=None, description="None: the kind's default")
    kind: str | None = Field(default=None, description="which of its check's kinds (None: its only one)")
    cause: str | None = Field(default=None, description="Finding.cause: what groups it with other values or files")
    fixes: list[TextFix] = Field(default_factory=list, description="Finding.fixes: the proposed repair")

    @classmethod
    def on(cls, element: IRElement, target: str | None, message: str, **seen: Any) -> Hit:
        """What a check saw on one IR field (at its role unless `location` says more), its source beside it."""
        seen.setdefault("location", element.role)
        return cls(
            artifact=element.artifact,
            element_id=element.id,
            source=element.source_text,
            target=target,
            message=message,
            **seen,
        )


def found(kind: FindingKind, validator_id: str, hit: Hit) -> Finding:
    """The finding of a declared kind at what a check saw."""
    finding = Finding(
        id="",
        layer=kind.layer,
        kind=kind.name,
        severity=hit.severity or kind.severity,
        artifact=hit.artifact,
        location=hit.location,
        element_id=hit.element_id,
        task_id=hit.task_id,
        message=hit.message,
        validators=[validator_id],
        evidence=[
            Evidence(
                validator_id=validator_id,
                reasoning=hit.reasoning or hit.message,
                source=excerpt(hit.source),
                target=excerpt(hit.target),
                detail=dict(hit.detail),
            )
        ],
        pattern=hit.pattern,
        cause=hit.cause,
        fixes=list(hit.fixes),
    )
    finding.id = finding_id(finding.key)
    return finding


class SuppressedCheck(Record):
    layer: Layer
    artifact: str
    reason: str
    # only the fields under these paths of a data file (a list of one task whose length changed);
    # empty: the whole artifact
    paths: list[list[str | int]] = Field(default_factory=list)


class FailureSummary(Record):
    """The report's first lines: what a reviewer has to decide, by severity, counted by group."""

    findings: int
    groups: int
    groups_by_severity: dict[str, int] = Field(default_factory=dict)
    findings_by_severity: dict[str, int] = Field(default_factory=dict)

    @property
    def blocking(self) -> bool:
        """Notes record a policy or a harness fallback; anything else needs a decision."""
        return any(count for severity, count in self.groups_by_severity.items() if severity != Severity.NOTE.value)

    def line(self) -> str:
        order = [s.value for s in Severity]
        parts = ", ".join(f"{self.groups_by_severity[s]} {s}" for s in order if self.groups_by_severity.get(s))
        return f"{self.groups} finding group(s) ({parts or 'none'}) from {self.findings} finding(s)"


class FailureSet(Record):
    benchmark: str
    language: str
    summary: FailureSummary | None = None
    findings: list[Finding]
    suppressed: list[SuppressedCheck] = Field(default_factory=list)
    validators: list[str]
    notes: list[str] = Field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not self.findings


def merge(
    benchmark: str,
    language: str,
    reports: list[list[Finding]],
    validators: list[str],
    suppressed: list[SuppressedCheck],
    notes: list[str],
) -> FailureSet:
    """Union of every validator's findings, one per (field, layer, kind), evidence kept from all."""
    merged: dict[tuple[str, str, str], Finding] = {}
    for report in reports:
        for finding in report:
            existing = merged.get(finding.key)
            if existing is None:
                merged[finding.key] = finding.model_copy(deep=True)
                continue
            for validator in finding.validators:
                if validator not in existing.validators:
                    existing.validators.append(validator)
            existing.evidence.extend(e for e in finding.evidence if e not in existing.evidence)
            if list(Severity).index(finding.severity) < list(Severity).index(existing.severity):
                existing.severity = finding.severity
    if any(f.layer is Layer.BEHAVIOR and f.severity is Severity.CRITICAL for f in merged.values()):
        # a rendering policy is only a policy if the variant behaves like its source
        for finding in merged.values():
            if finding.kind == "canonical_rendering_inferred" and finding.severity is Severity.NOTE:
                finding.severity = Severity.CRITICAL
                finding.message += "; but the variant does not behave like its source (see the behaviour findings)"
    order = {layer: i for i, layer in enumerate(Layer)}
    findings = sorted(merged.values(), key=lambda f: (order[f.layer], f.artifact, f.location, f.kind))
    unique_suppressed = list({(s.layer, s.artifact): s for s in suppressed}.values())
    return FailureSet(
        benchmark=benchmark,
        language=language,
        summary=summarize(findings),
        findings=findings,
        suppressed=unique_suppressed,
        validators=validators,
        notes=notes,
    )


def summarize(findings: list[Finding]) -> FailureSummary:
    groups = group_findings(findings)
    by_group: dict[str, int] = {}
    by_finding: dict[str, int] = {}
    for group in groups:
        by_group[group.severity.value] = by_group.get(group.severity.value, 0) + 1
    for finding in findings:
        by_finding[finding.severity.value] = by_finding.get(finding.severity.value, 0) + 1
    return FailureSummary(
        findings=len(findings), groups=len(groups), groups_by_severity=by_group, findings_by_severity=by_finding
    )


_INDEX = re.compile(r"\[\d+\]")
_NUMBERED_CLASS = re.compile(r"\b([A-Z][A-Za-z_]*?)\d+(?=\.)")


class FindingGroup(Record):
    """Findings that repeat one pattern (same layer, kind, file and field role): one review decision."""

    id: str
    layer: Layer
    kind: str
    severity: Severity = Field(description="the most severe of its findings")
    artifact: str
    pattern: str = Field(description="the field role (indexes generalized) or what the findings share")
    finding_ids: list[str]
    example: str = Field(description="the first finding's message")

    @property
    def summary(self) -> str:
        count = f"{len(self.finding_ids)}× " if len(self.finding_ids) > 1 else ""
        # a claim that names its pattern first ("English words left …: 'outgoing' ×12") is not prefixed twice
        claim = self.example if self.example.startswith(f"{self.pattern}: ") else f"{self.pattern}: {self.example}"
        return f"[{self.severity.value}] {self.layer.value}/{self.kind}: {count}{self.artifact} {claim}"


def _pattern(finding: Finding) -> str:
    if finding.pattern:  # the defect names what repeats (a word left, a value rendered two ways)
        return finding.pattern
    location = finding.location.split(" @ ")[0]  # consistency findings append the exact JSON path
    if finding.task_id and location in (finding.task_id, f"task {finding.task_id}"):
        return "<task>"
    if finding.artifact.endswith(".py"):  # numbered task classes are one role: 'InjectionTask5.COMMENT'
        location = _NUMBERED_CLASS.sub(r"\1*", location)
    return _INDEX.sub("[*]", location)


_SEVERITY_RANK = {"critical": 0, "major": 1, "minor": 2, "note": 3}


def _claim(pattern: str, members: list[Finding]) -> str:
    """What a reviewer reads for the group: its cause and how many occurrences, where findings
    name a dominant rendering ("'Water Bottle' rendered 3 ways: 70 fields (db.json.orders.*.items[*].name)
    differ from its record's 'X'"); otherwise the first finding's message."""
    details = [m.evidence[0].detail if m.evidence else {} for m in members]
    words = Counter(d["word"] for d in details if d.get("word"))
    if len(words) > 1:  # one cause, several words: name them all ("'user' ×93, 'available' ×34")
        listed = ", ".join(f"{word!r} ×{n}" for word, n in words.most_common(6))
        reason = members[0].message.split("; ", 1)[1] if "; " in members[0].message else ""
        return f"{pattern}: {listed}" + (f"; {reason}" if reason else "")
    if len(members) < 2 or not all("reference" in d for d in details):
        return members[0].message
    roles = Counter(d.get("holder_role", "") for d in details)
    where = ", ".join(f"{n} in {role}" for role, n in roles.most_common(3))
    first = details[0]
    return (
        f"{pattern}: {len(members)} field(s) differ from the dominant rendering {first['reference']!r} "
        f"({first.get('reference_role', '')}): {where}"
    )


def _group_key(finding: Finding) -> tuple[str, str, str, str]:
    if finding.cause:  # one cause across values and files: one group
        return (finding.layer.value, finding.kind, "", finding.cause)
    return (finding.layer.value, finding.kind, finding.artifact, _pattern(finding))


def _cause_claim(cause: str, members: list[Finding]) -> str:
    """'English words left in the translation: 'user' ×85, 'available' ×33 (tasks.json ×93, policy.md ×25)'."""
    named = Counter(m.pattern or m.location for m in members)
    where = Counter(m.artifact.rsplit("/", 1)[-1] for m in members)
    files = f" ({', '.join(f'{a} ×{n}' for a, n in where.most_common(4))})" if len(where) > 1 else ""
    if len(named) == 1:  # one pattern in several files: the files are the list
        named, files = where, ""
    listed = ", ".join(f"{name} ×{n}" for name, n in named.most_common(6))
    more = f" and {len(named) - 6} more" if len(named) > 6 else ""
    first = members[0].message
    return f"{cause}: {listed}{more}{files}. First: {first}"


def group_findings(findings: list[Finding]) -> list[FindingGroup]:
    """Groups in order of impact: severity first, then how many findings share the pattern."""
    grouped: dict[tuple[str, str, str, str], list[Finding]] = {}
    for finding in findings:
        grouped.setdefault(_group_key(finding), []).append(finding)
    groups = []
    for (layer, kind, artifact, pattern), members in grouped.items():
        severity = min((m.severity for m in members), key=lambda s: _SEVERITY_RANK.get(s.value, 9))
        artifacts = sorted({m.artifact for m in members})
        shown = artifact or (artifacts[0] if len(artifacts) == 1 else f"{len(artifacts)} files")
        members.sort(key=lambda m: _SEVERITY_RANK.get(m.severity.value, 9))  # the worst one speaks first
        groups.append(
            FindingGroup(
                id="G-"
                + hashlib.blake2b("\0".join((layer, kind, artifact, pattern)).encode(), digest_size=5).hexdigest(),
                layer=Layer(layer),
                kind=kind,
                severity=severity,
                artifact=shown,
                pattern=pattern,
                finding_ids=[m.id for m in members],
                example=_cause_claim(pattern, members) if not artifact else _claim(pattern, members),
            )
        )
    return sorted(groups, key=lambda g: (_SEVERITY_RANK.get(g.severity.value, 9), -len(g.finding_ids), g.id))


def count_line(findings: list[Finding], groups: list[FindingGroup]) -> str:
    """'3 open findings in 2 groups, and 93 notes (no decision needed).': a note records a policy and asks
    no decision, so it is not counted among what awaits review (a reviewer read '96 open findings')."""
    notes = sum(1 for f in findings if f.severity is Severity.NOTE)
    open_groups = sum(1 for g in groups if g.severity is not Severity.NOTE)
    head = f"{len(findings) - notes} open findings in {open_groups} groups"
    return head + (f", and {notes} notes (no decision needed)." if notes else ".")
